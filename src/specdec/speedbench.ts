import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFile } from '../util/bounded-read.js';
import { UserError } from '../util/user-error.js';

/**
 * SPEED-Bench prompts (nvidia/SPEED-Bench) from local files, as InferenceX's golden-AL collectors
 * use them: the Qualitative split's `qualitative.jsonl`, as NeMo-Skills' speed-bench prepare.py
 * writes it (`--config qualitative --output_dir DIR`: one JSON row per line with the dataset's
 * columns — question_id, category, … — and its turns as `messages: [{role: "user", content}]`).
 * The Hub's own rows (`turns: [text, …]`) are read too. Nothing is downloaded: prompts whose
 * source does not permit redistribution are a placeholder until prepare.py fetches them, and a
 * placeholder is refused rather than sent.
 */

/** The Qualitative split's categories (80 prompts each; InferenceX measures golden AL on `coding`). */
export const QUALITATIVE_CATEGORIES = [
  'coding',
  'humanities',
  'math',
  'multilingual',
  'qa',
  'rag',
  'reasoning',
  'roleplay',
  'stem',
  'summarization',
  'writing',
] as const;
/** The Throughput splits' entropy categories. */
export const THROUGHPUT_CATEGORIES = ['high_entropy', 'low_entropy', 'mixed'] as const;

/** The file a prepared folder holds the Qualitative split in (vLLM's `--speed-bench-dataset-subset` default). */
export const QUALITATIVE_FILE = 'qualitative.jsonl';

/** The largest SPEED-Bench file read (the Qualitative split is a few MB; 256 MiB, as an eval dataset file). */
export const MAX_SPEEDBENCH_FILE_BYTES = 256 * 1024 * 1024;

/** What SPEED-Bench publishes in place of a prompt it may not redistribute. */
export const PLACEHOLDER = 'FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH';

const PREPARE_HINT =
  "prepare the data with NeMo-Skills' speed-bench prepare.py (--config qualitative --output_dir DIR), as InferenceX's collectors do, and pass --data DIR";

export interface SpeedBenchPrompt {
  /** The row's question_id (else its line number). */
  id: string;
  category: string;
  /** The first user turn: what is sent. */
  prompt: string;
  /** Turns after the first (not sent; counted for the report). */
  laterTurns: number;
  line: number;
}

export interface SpeedBenchData {
  file: string;
  prompts: SpeedBenchPrompt[];
  /** Every category the file holds. */
  categories: string[];
}

/** The .jsonl a --data path names: a prepared folder's qualitative.jsonl, or the file itself. */
export function speedBenchFile(path: string): string {
  if (!existsSync(path)) throw new UserError(`--data ${path}: no such file or folder`, { hint: PREPARE_HINT });
  if (statSync(path).isDirectory()) {
    const file = join(path, QUALITATIVE_FILE);
    if (!existsSync(file)) throw new UserError(`--data ${path}: the folder has no ${QUALITATIVE_FILE}`, { hint: PREPARE_HINT });
    return file;
  }
  if (!path.endsWith('.jsonl'))
    throw new UserError(`--data ${path}: expected a .jsonl file (SPEED-Bench rows, one JSON object a line) or its folder`, {
      hint: PREPARE_HINT,
    });
  return path;
}

/** Whether `category` is one SPEED-Bench has; an error naming --category and the choices when not. */
export function checkCategory(category: string): void {
  const known: readonly string[] = [...QUALITATIVE_CATEGORIES, ...THROUGHPUT_CATEGORIES];
  if (!known.includes(category))
    throw new UserError(`--category ${category}: not a SPEED-Bench category`, {
      hint: `name one of ${QUALITATIVE_CATEGORIES.join(', ')} (Qualitative split; InferenceX's golden curves use coding), or ${THROUGHPUT_CATEGORIES.join(', ')} (Throughput splits)`,
    });
}

/** The first user turn of a row: prepare.py's `messages`, or the Hub's `turns`. */
function turnsOf(row: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(row.messages))
    return row.messages.flatMap((m) => {
      const message = m as { role?: unknown; content?: unknown } | null;
      return message?.role === 'user' && typeof message.content === 'string' ? [message.content] : [];
    });
  if (Array.isArray(row.turns)) return row.turns.filter((t): t is string => typeof t === 'string');
  return undefined;
}

/** The prompts of `category` in a SPEED-Bench file (every one, in file order). */
export function readSpeedBench(file: string, category: string): SpeedBenchData {
  checkCategory(category);
  const prompts: SpeedBenchPrompt[] = [];
  const categories = new Set<string>();
  const bytes = readRegularFile(file, MAX_SPEEDBENCH_FILE_BYTES);
  if (!Buffer.isBuffer(bytes))
    throw new UserError(`--data ${file} ${bytes.refused}`, { hint: `pass the Qualitative split's ${QUALITATIVE_FILE}` });
  const lines = bytes.toString('utf8').split(/\r?\n/);
  lines.forEach((text, i) => {
    const line = i + 1;
    if (text.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch (e) {
      throw new UserError(`${file}:${line}: not a JSON object (${(e as Error).message})`, { hint: PREPARE_HINT });
    }
    if (row === null || typeof row !== 'object' || Array.isArray(row))
      throw new UserError(`${file}:${line}: not a JSON object`, { hint: PREPARE_HINT });
    const r = row as Record<string, unknown>;
    if (typeof r.category !== 'string') throw new UserError(`${file}:${line}: no category`, { hint: PREPARE_HINT });
    categories.add(r.category);
    if (r.category !== category) return;
    const turns = turnsOf(r);
    if (turns === undefined || turns.length === 0 || turns[0]!.trim() === '')
      throw new UserError(`${file}:${line}: no prompt (expected messages: [{role: "user", content}] or turns: [text])`, {
        hint: PREPARE_HINT,
      });
    if (turns.some((t) => t.includes(PLACEHOLDER)))
      throw new UserError(`${file}:${line}: SPEED-Bench's placeholder instead of the prompt (the raw Hub rows, unresolved)`, {
        hint: PREPARE_HINT,
      });
    prompts.push({
      id: typeof r.question_id === 'string' ? r.question_id : `line ${line}`,
      category,
      prompt: turns[0]!,
      laterTurns: turns.length - 1,
      line,
    });
  });
  if (prompts.length === 0)
    throw new UserError(`no ${category} prompts in ${file} (its categories: ${[...categories].sort().join(', ') || 'none'})`, {
      hint: `pick one of its categories with --category, or pass the split that has ${category} with --data`,
    });
  return { file, prompts, categories: [...categories].sort() };
}
