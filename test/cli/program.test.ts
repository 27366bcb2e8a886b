import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, requested } from '../../src/cli/program.js';

describe('requested', () => {
  it('reads the arguments as Commander reads the root’s: -C in its forms, then the command', () => {
    expect(requested(['--version'])).toEqual({ version: true });
    expect(requested(['-C', 'dir', '-V'])).toEqual({ version: true });
    expect(requested(['--cwd=dir', '--version'])).toEqual({ version: true });
    expect(requested(['run', '--help'])).toEqual({ command: 'run' });
    expect(requested(['-C', 'dir', 'matrix', 'full-sweep'])).toEqual({ command: 'matrix' });
    expect(requested(['-Cdir', 'ci', 'plan'])).toEqual({ command: 'ci' });
    expect(requested(['--cwd', '--odd-dir', 'review'])).toEqual({ command: 'review' });
    expect(requested(['help', 'ingest'])).toEqual({ command: 'ingest' });
    expect(requested(['--', 'lint'])).toEqual({ command: 'lint' });
  });

  it('asks for every command where the root answers: its help, an unknown command or option', () => {
    for (const args of [[], ['--help'], ['-h', 'run'], ['help'], ['help', 'nope'], ['nope'], ['--nope', 'run'], ['-C']]) {
      expect(requested(args)).toBeUndefined();
    }
  });
});

describe('buildProgram', () => {
  const helps = (command: Command): string[] => [command.helpInformation(), ...command.commands.flatMap((c) => helps(c))];

  it('builds a command alone exactly as among all of them', async () => {
    const all = await buildProgram();
    for (const command of all.commands) {
      const alone = await buildProgram(command.name());
      expect(alone.commands.map((c) => c.name())).toEqual([command.name()]);
      expect(helps(alone.commands[0]!)).toEqual(helps(command));
    }
  });
});
