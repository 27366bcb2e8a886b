import { readFile } from 'node:fs/promises';
import { commitMessage, sweepOptOut } from '../changelog/index.js';
import type { NoSweep } from '../changelog/index.js';
import { UserError } from '../util/user-error.js';

/**
 * A change's opt-out of its sweep (`--pr-body FILE`, `-` for stdin): the pull request description
 * first, then the message of the head commit when the head is a git ref.
 */
export async function changeOptOut(prBody: string | undefined, head: string | undefined): Promise<NoSweep | undefined> {
  if (prBody !== undefined) {
    const text =
      prBody === '-'
        ? await readStdin()
        : await readFile(prBody, 'utf8').catch((e: NodeJS.ErrnoException) => {
            throw new UserError(`--pr-body ${prBody}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
          });
    const found = sweepOptOut(text, 'pull request description');
    if (found) return found;
  }
  return head === undefined ? undefined : sweepOptOut(await commitMessage(head), `commit ${head}`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
