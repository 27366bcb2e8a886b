import type { LoadedTask } from './load-task.js';
import { scoreDoc } from './scoring.js';
import { targetText } from './template.js';

/**
 * Answer keys for the simulator's evals double (`frontier sim serve --answers`): for each document
 * of a task, the question as it appears in the prompt, a reply the task scores right and one it
 * scores wrong. The replies are found by scoring candidates with the task's own filters and
 * metrics, so any task whose answer a short reply can carry (a number after "####", a letter, a
 * \boxed{} value…) gets a double whose accuracy is exactly what the sim is told.
 */

export interface AnswerKey {
  question: string;
  right: string;
  wrong: string;
}

/** The short answer inside a target: GSM8K's final number after "#### ", else the target itself. */
const finalAnswer = (target: string): string => {
  const m = /####\s*(.+?)\s*$/.exec(target);
  return (m ? m[1]! : target.trim()).replace(/,/g, '');
};

const REPLIES: ((answer: string) => string)[] = [
  (a) => `Let me work through it step by step. The answer is ${a}.\n#### ${a}`,
  (a) => `Let me work through it step by step. The answer is (${a}).`,
  (a) => `Let me work through it step by step. The final answer is $\\boxed{${a}}$.`,
  (a) => a,
];

/** Answers that differ from `a`: other numbers for a number, other letters for a letter. */
function wrongAnswers(a: string): string[] {
  if (/^-?\d+(\.\d+)?$/.test(a)) return [1, 2, 3, 7].map((d) => String(Number(a) + d));
  if (/^[A-Za-z]$/.test(a)) {
    const letters = a === a.toUpperCase() ? 'ABCDEFGHIJ' : 'abcdefghij';
    return [...letters].filter((l) => l !== a);
  }
  return [`${a} (not)`, `not ${a}`, '0'];
}

export function answerKeys(t: LoadedTask): AnswerKey[] {
  const { spec } = t;
  const scores = (doc: Record<string, unknown>, target: unknown, reply: string): number[] =>
    Object.values(scoreDoc(spec, new Array<string>(spec.repeats).fill(reply), target).scores);
  return t.docs.map((doc, i) => {
    const question = spec.docToText.render(doc);
    if (typeof question !== 'string') throw new Error(`${spec.task}: doc ${i}: doc_to_text is not text`);
    const target = spec.docToTarget.render(doc);
    const answer = finalAnswer(targetText(target));
    for (const reply of REPLIES) {
      const right = reply(answer);
      if (!scores(doc, target, right).every((s) => s === 1)) continue;
      const wrong = wrongAnswers(answer)
        .map(reply)
        .find((w) => scores(doc, target, w).every((s) => s === 0));
      if (wrong !== undefined) return { question, right, wrong };
    }
    throw new Error(
      `${spec.task}: doc ${i}: no short reply scores right and wrong under this task's filters (target ${JSON.stringify(answer)})`,
    );
  });
}
