import { Rng } from '../util/rng.js';
import { UserError } from '../util/user-error.js';

/**
 * A test double for the evals pipeline: given reference answers (JSONL of {question, answer}),
 * a prompt whose last question is one of them gets a reply ending in `#### <n>` — the reference
 * answer with probability `accuracy`, a wrong number otherwise. It measures nothing about a
 * model; it lets the evals pipeline (prompting, extraction, scoring, thresholds) be tested end
 * to end against a server whose accuracy is known.
 */
export interface AnswerKey {
  question: string;
  answer: string;
}

/** The final number of a GSM8K answer (`… #### 72`), or the answer as given. */
export function finalAnswer(answer: string): string {
  const m = /####\s*(.+?)\s*$/.exec(answer);
  return (m ? m[1]! : answer.trim()).replace(/,/g, '');
}

export class AnswerBook {
  constructor(
    private readonly keys: readonly AnswerKey[],
    private readonly accuracy: number,
    private readonly seed: number,
  ) {}

  static parse(jsonl: string, accuracy: number, seed: number, file = 'answers'): AnswerBook {
    const keys: AnswerKey[] = [];
    jsonl.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw new UserError(`${file}:${i + 1}: not JSON: ${(e as Error).message}`);
      }
      const { question, answer } = value as Record<string, unknown>;
      if (typeof question !== 'string' || (typeof answer !== 'string' && typeof answer !== 'number')) {
        throw new UserError(`${file}:${i + 1}: expected {"question": string, "answer": string}`);
      }
      keys.push({ question: question.trim(), answer: String(answer) });
    });
    return new AnswerBook(keys, accuracy, seed);
  }

  get size(): number {
    return this.keys.length;
  }

  /** The question of the book asked last in the prompt (few-shot prompts quote earlier ones). */
  match(prompt: string): AnswerKey | undefined {
    let best: AnswerKey | undefined;
    let at = -1;
    for (const key of this.keys) {
      const i = prompt.lastIndexOf(key.question);
      if (i > at) {
        at = i;
        best = key;
      }
    }
    return best;
  }

  /** The reply to request `requestId` for a matched question: right with probability `accuracy`. */
  reply(key: AnswerKey, requestId: number): string {
    const rng = new Rng(this.seed ^ Math.imul(requestId + 1, 0x9e3779b1));
    const right = finalAnswer(key.answer);
    let number = right;
    if (!rng.chance(this.accuracy)) {
      const n = Number(right);
      number = Number.isFinite(n) ? String(n + 1 + rng.int(9)) : `${right}0`;
    }
    return ` Let me work through it step by step. The answer is ${number}.\n#### ${number}`;
  }
}
