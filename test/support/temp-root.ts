/**
 * Vitest's global setup: one directory for the temporary trees the tests make (tempFiles, the eval
 * goldens' empty dirs), removed when the run ends. A whole suite makes gigabytes of them, and a
 * worker's own exit is too late or never comes.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'frontier-tests-'));
  // Searchable by every user: a daemon that drops privileges (munged) reaches its socket through it.
  chmodSync(root, 0o755);
  process.env.FRONTIER_TEST_TMP = root;
  return () => rmSync(root, { recursive: true, force: true });
}
