// What a relative path on the command line means (src/cli/paths.ts): where frontier was started,
// also with -C, which only says where the catalog is. Through the built CLI, from a folder that is
// not the catalog, as a user keeps a run outside the InferenceX checkout it benchmarks.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { pathKind } from '../../src/cli/paths.js';
import { buildProgram } from '../../src/cli/program.js';
import type { RunManifest } from '../../src/launch/index.js';
import { REPO, runCli, tempFiles } from '../helpers.js';

const EXAMPLES = join(REPO, 'examples');

describe('relative paths with -C', () => {
  it('--matrix, --traces, --out and --db are where the command started; the catalog is -C’s', async () => {
    const work = tempFiles({});
    const cli = (args: string[]) => runCli(args, { cwd: work });
    const configs = relative(work, join(EXAMPLES, 'configs/example-master.yaml'));
    const matrix = cli(
      ['-C', EXAMPLES, 'matrix', 'test-config', '--config-files', configs].concat([
        '--config-keys',
        'llama3.1-8b-fp8-h100-sim',
        'llama3.1-8b-fp8-h100-sim-agentic',
        '--conc',
        '1',
      ]),
    );
    expect(matrix.stderr).toBe('');
    expect(matrix.status).toBe(0);
    const rows = JSON.parse(matrix.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => r['scenario-type'] ?? r.isl)).toEqual([1024, 8192, 'agentic-coding']);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(work, 'matrix.json'), matrix.stdout);
    expect(
      cli(['traces', 'synth', '--scale', '0.05', '--traces', '8', '--max-gap', '5', '-o', 'traces/small.jsonl']).status,
    ).toBe(0);

    const run = cli(
      ['-C', EXAMPLES, 'run', '--matrix', 'matrix.json', '--cluster', 'local-sim'].concat([
        '--out',
        'runs/today',
        '--traces',
        'traces/small.jsonl',
        '--agentic-duration',
        '10',
      ]),
    );
    expect(run.stderr).toContain('run directory: runs/today\n');
    expect(run.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(work, 'runs/today/run.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('completed');
    expect(manifest.points.map((p) => p.status)).toEqual(['ok', 'ok', 'ok']);
    expect(manifest.points.filter((p) => p.agentic)).toHaveLength(1);
    expect(manifest.matrix.file).toBe(join(work, 'matrix.json'));
    expect(existsSync(join(EXAMPLES, 'runs'))).toBe(false);

    const ingest = cli(['-C', EXAMPLES, 'ingest', 'runs/today', '--db', 'store.db']);
    expect(ingest.status).toBe(0);
    expect(ingest.stdout).toContain(`into ${join(work, 'store.db')}`);
    expect(readdirSync(EXAMPLES).filter((f) => f.endsWith('.db'))).toEqual([]);
    // $FRONTIER_DB is a path the user gave too: the store it names is the one here, not one in the catalog.
    const tokens = runCli(['-C', EXAMPLES, 'token', 'create', 'ci'], { cwd: work, env: { FRONTIER_DB: 'tokens.db' } });
    expect(tokens.status).toBe(0);
    expect(existsSync(join(work, 'tokens.db'))).toBe(true);
    expect(existsSync(join(EXAMPLES, 'tokens.db'))).toBe(false);
  });

  it('a path missing where frontier started but present in the catalog: the error, and a note naming the one meant', () => {
    const r = runCli(['-C', 'examples', 'validate', 'configs/example-master.yaml']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      `frontier: note: configs/example-master.yaml is relative to where frontier started (${REPO.replace(/\/$/, '')}), where there is none; the one in the -C directory is examples/configs/example-master.yaml`,
    );
    // Without -C nothing is rewritten: messages show the path as typed.
    const here = runCli(['validate', 'examples/configs/nope.yaml']);
    expect(here.stdout).toContain("Input file 'examples/configs/nope.yaml' does not exist.");
    expect(here.stderr).toBe('');
  });

  it('--help says what relative paths are relative to', () => {
    const help = runCli(['--help']).stdout;
    expect(help).toContain('relative to where you started frontier, also with -C');
  });
});

describe('every option and argument that names a file or folder has a path kind', () => {
  // A placeholder such as <file> or <dir> names a path; one that does not resolve from where the
  // command started must say so (catalog, repository) rather than be forgotten.
  const NAMES_A_PATH = /^(file|dir|path|files|dirs|location|store\|path|file\.svg|in|out|raw|artifact-dir)$/;
  const NOT_ON_DISK = new Set([
    // A file name inside the workflow folder of the repository named by the API, not a local path.
    'ci reuse decide --workflow-id',
    'ci external --workflow-id',
    'ci stage --workflow-id',
    'ingest --workflow-id',
    // Relative to the eval folder (DIR), as the reference's --meta-env.
    'eval check --meta-env',
    // The catalog itself.
    '--cwd',
  ]);

  function placeholders(command: Command, prefix: string): { where: string; name: string; kind: string | undefined }[] {
    const name = `${prefix} ${command.name()}`.trim();
    const found = [
      ...command.options
        .filter((o) => o.required || o.optional)
        .map((o) => ({
          where: `${name} ${o.long ?? o.short}`.replace(/^frontier ?/, ''),
          name: /<([^>]+)>|\[([^\]]+)\]/
            .exec(o.flags)!
            .slice(1)
            .find(Boolean)!
            .replace(/\.\.\.$/, ''),
          kind: pathKind(o),
        })),
      ...command.registeredArguments.map((a) => ({
        where: `${name} <${a.name()}>`.replace(/^frontier ?/, ''),
        name: a.name(),
        kind: pathKind(a),
      })),
    ];
    return [...found, ...command.commands.flatMap((c) => placeholders(c, name))];
  }

  it('is classified', async () => {
    const all = placeholders(await buildProgram(), '');
    const paths = all.filter((p) => NAMES_A_PATH.test(p.name) && !NOT_ON_DISK.has(p.where));
    expect(paths.length).toBeGreaterThan(80);
    expect(paths.filter((p) => p.kind === undefined).map((p) => p.where)).toEqual([]);
    // And the reverse: nothing that names no path is resolved as one.
    expect(all.filter((p) => p.kind !== undefined && !NAMES_A_PATH.test(p.name)).map((p) => p.where)).toEqual([]);
  });
});
