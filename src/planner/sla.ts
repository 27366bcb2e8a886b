import { UserError } from '../util/user-error.js';

/**
 * A service-level objective over the measured (or predicted) metrics of one benchmark point:
 * comma-separated terms such as `ttft<2s,intvty>50`. Latencies are upper bounds, interactivity a
 * lower bound.
 */

export type SlaMetric = 'ttft' | 'tpot' | 'e2e' | 'intvty';

export interface SlaTerm {
  metric: SlaMetric;
  /** Latencies in milliseconds; interactivity in tokens/s per user. */
  limit: number;
  /** The term as the user wrote it, for messages. */
  text: string;
}

export type Sla = SlaTerm[];

/** What one point is judged on (milliseconds; interactivity in tokens/s per user). */
export interface SlaSubject {
  ttftMs: number;
  tpotMs: number;
  e2eMs: number;
  interactivity: number;
}

export const SLA_FORMS = 'ttft<2s, ttft<500ms, tpot<20ms, e2e<30s, intvty>50 (tokens/s per user)';

/** A malformed --sla: the message names the term, the hint the accepted forms. */
const slaError = (message: string): UserError =>
  new UserError(message, { hint: `--sla takes comma-separated terms: ${SLA_FORMS}` });

const LATENCY = /^(ttft|tpot|e2e)\s*<\s*(\d+(?:\.\d+)?)\s*(ms|s)$/i;
const INTERACTIVITY = /^intvty\s*>\s*(\d+(?:\.\d+)?)$/i;

function parseTerm(text: string): SlaTerm {
  const latency = LATENCY.exec(text);
  if (latency) {
    const [, metric, value, unit] = latency;
    const ms = Number(value) * (unit!.toLowerCase() === 's' ? 1000 : 1);
    if (!(ms > 0)) throw slaError(`--sla term "${text}": the limit must be greater than 0`);
    return { metric: metric!.toLowerCase() as SlaMetric, limit: ms, text };
  }
  const intvty = INTERACTIVITY.exec(text);
  if (intvty) return { metric: 'intvty', limit: Number(intvty[1]), text };
  if (/^(ttft|tpot|e2e)\s*</i.test(text)) {
    throw slaError(`--sla term "${text}": a latency limit needs a unit, ms or s (e.g. ttft<2s, tpot<20ms)`);
  }
  if (/^(ttft|tpot|e2e|intvty)\s*[>=]/i.test(text) || /^intvty\s*</i.test(text)) {
    throw slaError(`--sla term "${text}": latencies take "<" (an upper bound), intvty takes ">" (a lower bound)`);
  }
  throw slaError(`--sla term "${text}" is not one of the accepted forms`);
}

/** `ttft<2s,intvty>50` → its terms; an empty or malformed term is an error naming it. */
export function parseSla(text: string): Sla {
  const terms = text.split(',').map((t) => t.trim());
  if (terms.some((t) => t === '')) throw slaError(`--sla "${text}" has an empty term`);
  const sla = terms.map(parseTerm);
  const seen = new Set<SlaMetric>();
  for (const term of sla) {
    if (seen.has(term.metric)) throw slaError(`--sla "${text}" bounds ${term.metric} twice`);
    seen.add(term.metric);
  }
  return sla;
}

const VALUE: Record<SlaMetric, (s: SlaSubject) => number> = {
  ttft: (s) => s.ttftMs,
  tpot: (s) => s.tpotMs,
  e2e: (s) => s.e2eMs,
  intvty: (s) => s.interactivity,
};

const shown = (metric: SlaMetric, value: number): string =>
  metric === 'intvty' ? `${value.toFixed(1)} tok/s` : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;

/** The terms `subject` breaks, each as "ttft 3.20 s (ttft<2s)"; empty when it meets the SLA. */
export function slaViolations(sla: Sla, subject: SlaSubject): string[] {
  return sla
    .filter((t) => (t.metric === 'intvty' ? !(VALUE.intvty(subject) > t.limit) : !(VALUE[t.metric](subject) < t.limit)))
    .map((t) => `${t.metric} ${shown(t.metric, VALUE[t.metric](subject))} (${t.text})`);
}

/** The SLA as written back: "ttft<2s, intvty>50". */
export const formatSla = (sla: Sla): string => sla.map((t) => t.text).join(', ');
