import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../../src/util/process-alive.js';
import { waitFor } from '../support/wait.js';

describe('processAlive', () => {
  it('is true for this process and false for one that has exited', async () => {
    expect(processAlive(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.once('exit', resolve));
    expect(processAlive(child.pid!)).toBe(false);
  });

  it.runIf(existsSync('/proc/self/stat'))('counts a zombie (exited, not reaped) as gone', async () => {
    // A child that exits in the background after its shell has become `sleep`, which never reaps
    // it (a child that exits before the exec may be reaped by the shell itself).
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(String(d)))));
      const state = (): string => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0]!;
      await waitFor(() => state() === 'Z', { what: `process ${pid} to become a zombie` });
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(processAlive(pid)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
