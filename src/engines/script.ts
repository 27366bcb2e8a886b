import type { EngineProcess, Launch } from './types.js';

/**
 * Shell rendering of engine processes: for job scripts and for reading. Hosts may be shell
 * expressions such as `${NODES[1]}` (resolved where the script runs), so an argument holding one
 * is double-quoted with everything else escaped; any other argument is single-quoted when needed.
 */

const PLAIN = /^[A-Za-z0-9_\-.,:/=@%+]+$/;
const HOST_EXPR = /\$\{NODES\[\d+\]\}/g;
const HAS_HOST_EXPR = /\$\{NODES\[\d+\]\}/;

export function shellQuote(arg: string): string {
  if (arg !== '' && PLAIN.test(arg)) return arg;
  if (HAS_HOST_EXPR.test(arg)) {
    let out = '';
    let last = 0;
    for (const m of arg.matchAll(HOST_EXPR)) {
      out += arg.slice(last, m.index).replace(/["\\$`]/g, '\\$&') + m[0];
      last = m.index + m[0].length;
    }
    return `"${out}${arg.slice(last).replace(/["\\$`]/g, '\\$&')}"`;
  }
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** `VAR=value … command args…` for one process (GPU visibility included). */
export function commandLine(p: EngineProcess): string {
  const env = { ...(p.gpus.length > 0 ? { CUDA_VISIBLE_DEVICES: p.gpus.join(',') } : {}), ...p.env };
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...assignments, ...p.command.map(shellQuote)].join(' ');
}

/** Wrap a long command line at argument boundaries, continuing with ` \` and an indent. */
export function wrap(line: string, width = 100, indent = '    '): string {
  const words = line.match(/(?:[^\s'"\\]+|\\.|'[^']*'|"(?:\\.|[^"\\])*")+/g) ?? [line];
  const lines: string[] = [];
  let current = '';
  for (const w of words) {
    if (current !== '' && current.length + 1 + w.length > width) {
      lines.push(current);
      current = indent + w;
    } else current = current === '' ? w : `${current} ${w}`;
  }
  lines.push(current);
  return lines.join(' \\\n');
}

/**
 * A standalone bash script that starts every process of a single-host launch in the background
 * (logs in $LOG_DIR), waits until the endpoint is ready and stops everything on exit: what an
 * executor does, written out for reading, for running by hand, and for goldens.
 */
export function renderLaunchScript(launch: Launch, title: string): string {
  const hosts = new Set(launch.processes.map((p) => p.host));
  const out = [
    '#!/usr/bin/env bash',
    `# ${title}`,
    '# Rendered by frontier: starts the engine, waits until it is ready, stops it on exit.',
    ...(hosts.size > 1 ? [`# Hosts: ${[...hosts].join(' ')} (each process line runs on its host)`] : []),
    'set -euo pipefail',
    'LOG_DIR=${LOG_DIR:-./logs}',
    'mkdir -p "$LOG_DIR"',
    'pids=()',
    '# shellcheck disable=SC2317 # cleanup runs from the trap',
    'cleanup() {',
    '  kill "${pids[@]}" 2>/dev/null || true',
    '  wait || true',
    '}',
    'trap cleanup EXIT INT TERM',
    '',
  ];
  for (const p of launch.processes) {
    const where = [`host ${p.host}`, p.gpus.length > 0 ? `GPUs ${p.gpus.join(',')}` : 'no GPU'].join(', ');
    out.push(`# ${p.name} (${p.role}; ${where})`);
    out.push(`${wrap(commandLine(p))} \\\n    >"$LOG_DIR/${p.name}.log" 2>&1 &`);
    out.push('pids+=($!)', '');
  }
  const url = `http://${launch.endpoint.host}:${launch.endpoint.port}`;
  out.push(
    `# Ready when every probe answers 200: ${launch.ready.map((r) => r.path).join(', ')}`,
    'for _ in $(seq 1 "${READY_ATTEMPTS:-120}"); do',
    `  if ${launch.ready.map((r) => `curl -sf ${shellQuote(url + r.path)}${r.contains === undefined ? '' : ` | grep -qF -- ${shellQuote(r.contains)}`}`).join(' && ')}; then`,
    `    echo "ready: ${url}"`,
    '    wait -n "${pids[@]}"',
    '    exit 1',
    '  fi',
    '  sleep "${READY_INTERVAL:-5}"',
    'done',
    'echo "not ready after ${READY_ATTEMPTS:-120} attempts" >&2',
    'exit 1',
    '',
  );
  return out.join('\n');
}
