import { Rng } from '../util/rng.js';
import { UserError } from '../util/user-error.js';

/**
 * A test double for the evals pipeline: given answer keys (JSONL), a prompt whose last question is
 * one of them gets that key's right reply with probability `accuracy`, its wrong reply otherwise.
 * A key is `{question, right, wrong}`, as `frontier eval answer-keys` writes them for a task. It measures
 * nothing about a model; it lets the evals pipeline (prompting, extraction, scoring, thresholds)
 * be tested end to end against a server whose accuracy is known.
 */
/** The largest answer-keys file read, packed or unpacked: the keys of GSM8K's test split take 1 MB, of a 14,000-question task some 30 MB. */
export const MAX_ANSWERS_FILE_BYTES = 256 << 20;

export interface AnswerKey {
  question: string;
  right: string;
  wrong: string;
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
      const { question, right, wrong } = value as Record<string, unknown>;
      if (typeof question !== 'string' || typeof right !== 'string' || typeof wrong !== 'string')
        throw new UserError(
          `${file}:${i + 1}: expected {"question", "right", "wrong"}: write the keys with frontier eval answer-keys`,
        );
      keys.push({ question: question.trim(), right, wrong });
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
      if (i > at || (i === at && i >= 0 && key.question.length > best!.question.length)) {
        at = i;
        best = key;
      }
    }
    return best;
  }

  /** The reply to request `requestId` for a matched question: right with probability `accuracy`. */
  reply(key: AnswerKey, requestId: number): string {
    const rng = new Rng(this.seed ^ Math.imul(requestId + 1, 0x9e3779b1));
    return rng.chance(this.accuracy) ? key.right : key.wrong;
  }
}
