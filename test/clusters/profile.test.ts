import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/catalog/index.js';
import type { Problem } from '../../src/catalog/index.js';
import {
  ClusterProfileError,
  EnvReferenceError,
  LOCAL_PROFILE,
  excludedNodesFor,
  expandPath,
  findCluster,
  loadClusterProfile,
  loadClusterProfiles,
  modelPath,
  parseClusterProfile,
} from '../../src/clusters/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import { REPO, tempFiles } from '../helpers.js';

const EXAMPLES = join(REPO, 'examples/clusters');
const PIN = 'c180328b98c3793ca84a1e24a030f90545eb7d5d';

const SLURM = `scheduler: slurm
nodes: 18
gpus-per-node: 8
gpu: b300
partition: batch_1
time-limit: 240
`;

/** Every problem of a profile written from `text` (as clusters/test.yaml). */
async function problemsOf(text: string): Promise<Problem[]> {
  const read = await parseClusterProfile('clusters/test.yaml', text);
  return read.problems;
}

/** The 1-based line of the line marked `# <-`. */
const marked = (text: string): number => text.split('\n').findIndex((l) => l.includes('# <-')) + 1;

/** Exactly one error, on the marked line, at `path`, whose message and hint match. */
async function expectOne(
  text: string,
  expected: { path: string; message: RegExp; hint: RegExp; rule?: string },
): Promise<Problem> {
  const problems = (await problemsOf(text)).filter((p) => p.severity === 'error');
  expect(problems.map(formatProblem)).toHaveLength(1);
  const p = problems[0]!;
  expect(p).toMatchObject({ file: 'clusters/test.yaml', line: marked(text), path: expected.path });
  if (expected.rule) expect(p.rule).toBe(expected.rule);
  expect(p.message).toMatch(expected.message);
  expect(p.hint ?? '').toMatch(expected.hint);
  expect(p.col).toBeGreaterThan(0);
  return p;
}

describe('cluster profile schema: every problem located, with a fix', () => {
  it('an unknown key names the likely intended one', async () => {
    const text = `${SLURM}gpus_per_node: 8 # <-\n`;
    const p = await expectOne(text, {
      path: 'gpus_per_node',
      message: /unknown field "gpus_per_node"/,
      hint: /did you mean "gpus-per-node"\?/,
    });
    expect(formatProblem(p)).toBe(
      `clusters/test.yaml:7:1  gpus_per_node  unknown field "gpus_per_node"\n    hint: did you mean "gpus-per-node"?`,
    );
  });

  it('an unknown key deep inside (a routing rule) is located there too', async () => {
    const text = `${SLURM}routing:\n  - match: { framwork: dynamo-sglang } # <-\n    toolchain: { repo: https://github.com/NVIDIA/srt-slurm.git, commit: ${PIN} }\n`;
    await expectOne(text, {
      path: 'routing[0].match.framwork',
      message: /unknown field "framwork"/,
      hint: /did you mean "framework"/,
    });
  });

  it('a scheduler that is neither local nor slurm', async () => {
    const text = `scheduler: kubernetes # <-\nnodes: 1\ngpus-per-node: 8\ngpu: h100\n`;
    await expectOne(text, {
      path: 'scheduler',
      message: /expected "local" or "slurm", got "kubernetes"/,
      hint: /set scheduler to "local" or "slurm"/,
    });
  });

  it('a missing required key', async () => {
    const text = `scheduler: local\nnodes: 1\ngpu: h100\n`;
    const [p] = await problemsOf(text);
    expect(p).toMatchObject({ path: 'gpus-per-node', message: expect.stringMatching(/missing required field "gpus-per-node"/) });
  });

  it('a Slurm key on a local cluster says why it is wrong', async () => {
    const text = `scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h100\npartition: batch # <-\n`;
    await expectOne(text, {
      rule: 'slurm-only',
      path: 'partition',
      message:
        /partition is a Slurm setting, and this cluster's scheduler is local: a local cluster runs engines as processes on this host, never through sbatch/,
      hint: /remove partition, or set scheduler: slurm/,
    });
  });

  it('every Slurm-only key on a local cluster is reported, each at its key', async () => {
    const text = `scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h100\naccount: a\nqos: q\nreservation: r\nsbatch-directives: ['--exclusive']\n`;
    const problems = await problemsOf(text);
    expect(problems.map((p) => [p.rule, p.path, p.line])).toEqual([
      ['slurm-only', 'account', 5],
      ['slurm-only', 'qos', 6],
      ['slurm-only', 'reservation', 7],
      ['slurm-only', 'sbatch-directives', 8],
    ]);
  });

  it('srtctl runs recipes under Slurm only; inferencex-client is inferencex or frontier', async () => {
    const local = `scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h100\nsrtctl: { root: /srv/srt-slurm } # <-\n`;
    await expectOne(local, {
      path: 'srtctl',
      message: /Slurm setting/,
      hint: /remove srtctl, or set scheduler: slurm/,
      rule: 'slurm-only',
    });
    const client = `scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h100\ninferencex-client: bench # <-\n`;
    await expectOne(client, { path: 'inferencex-client', message: /"inferencex" or "frontier"/, hint: /./ });
    const read = await parseClusterProfile(
      'clusters/test.yaml',
      'scheduler: slurm\nnodes: 2\ngpus-per-node: 4\ngpu: gb200\ntime-limit: 240\nhealth-check: { attempts: 10, interval: 10 }\nsrtctl: { root: "/srv/srt-slurm/{commit}" }\ninferencex-runner: gb200-nv_0\n',
    );
    expect(read.problems).toEqual([]);
    expect(read.profile).toMatchObject({
      srtctl: { root: '/srv/srt-slurm/{commit}', command: ['srtctl'] },
      inferencexRunner: 'gb200-nv_0',
    });
  });

  it('a short Slurm time limit without a health check (the reviewer’s "one hour, no health check")', async () => {
    const text = `scheduler: slurm\nnodes: 2\ngpus-per-node: 8\ngpu: b200\ntime-limit: 60 # <-\n`;
    await expectOne(text, {
      rule: 'time-limit',
      path: 'time-limit',
      message: /a 60-minute time limit with no health-check/,
      hint: /add health-check: \{ attempts: <n>, interval: <seconds> \}.*or set time-limit: 90 or more/,
    });
  });

  it('the default time limit (60) counts too, reported at the scheduler', async () => {
    const text = `scheduler: slurm # <-\nnodes: 2\ngpus-per-node: 8\ngpu: b200\n`;
    await expectOne(text, {
      rule: 'time-limit',
      path: 'scheduler',
      message: /a 60-minute time limit \(the default\) with no health-check/,
      hint: /health-check/,
    });
  });

  it('an explicit health check makes a short limit fine; a long limit needs none', async () => {
    expect(
      await problemsOf(
        `scheduler: slurm\nnodes: 2\ngpus-per-node: 8\ngpu: b200\ntime-limit: 60\nhealth-check: { attempts: 60, interval: 10 }\n`,
      ),
    ).toEqual([]);
    expect(await problemsOf(`scheduler: slurm\nnodes: 2\ngpus-per-node: 8\ngpu: b200\ntime-limit: 90\n`)).toEqual([]);
    // A local cluster has no allocation to lose.
    expect(await problemsOf(`scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h100\ntime-limit: 30\n`)).toEqual([]);
  });

  it('a health check that outlasts the time limit names both numbers', async () => {
    const text = `${SLURM.replace('time-limit: 240', 'time-limit: 20')}health-check: # <-\n  attempts: 180\n  interval: 10\n`;
    await expectOne(text, {
      rule: 'health-check',
      path: 'health-check',
      message: /health-check waits up to 180 × 10 s = 30 min, which is not shorter than the time limit of 20 min/,
      hint: /raise time-limit above 30/,
    });
  });

  it('an unpinned toolchain (branch, tag, short sha) is an error with the ls-remote fix', async () => {
    for (const [ref, what] of [
      ['sa-submission-q2-2026', 'a branch or tag'],
      ['v1.0.50', 'a tag'],
      ['e4019633', 'a short sha'],
    ]) {
      const text = `${SLURM}routing:\n  - match: {}\n    toolchain:\n      repo: https://github.com/NVIDIA/srt-slurm.git\n      commit: ${ref} # <-\n`;
      const p = await expectOne(text, {
        rule: 'unpinned-toolchain',
        path: 'routing[0].toolchain.commit',
        message: new RegExp(`toolchain commit "${ref}" is not pinned: it is ${what}`),
        hint: /pin the full 40-hex commit/,
      });
      expect(p.hint).toBe(`pin the full 40-hex commit, e.g. \`git ls-remote https://github.com/NVIDIA/srt-slurm.git ${ref}\``);
    }
  });

  it('two models entries for one model-prefix and precision', async () => {
    const text = `${SLURM}models:\n  - { model-prefix: dsr1, precision: fp8, path: /a }\n  - { model-prefix: dsr1, precision: fp4, path: /b }\n  - { model-prefix: dsr1, precision: fp8, path: /c } # <-\n`;
    await expectOne(text, {
      rule: 'duplicate-model',
      path: 'models[2]',
      message: /a second models entry for dsr1 fp8 \(the first is models\[0\], line 8\)/,
      hint: /one entry per model-prefix and precision/,
    });
  });

  it('a flag needs a reason', async () => {
    const text = `${SLURM}routing:\n  - match: {}\n    toolchain: { repo: https://github.com/NVIDIA/srt-slurm.git, commit: ${PIN} }\n    flags:\n      - flag: skip-preflight # <-\n`;
    await expectOne(text, { path: 'routing[0].flags[0].reason', message: /missing required field "reason"/, hint: /add reason/ });
  });

  it('container, engines, mounts, globs and references are checked', async () => {
    const cases: [string, RegExp][] = [
      ['container: { runtime: docker, squash-dir: /sq } # <-\n', /squash-dir is where enroot keeps imported images/],
      ['container: { mounts: ["/a:/b"] } # <-\n', /mounts need a container runtime/],
      ['container:\n  runtime: enroot\n  mounts:\n    - /a # <-\n', /mount "\/a" is not "src:dst\[:ro\]"/],
      ['engines:\n  sim: { speedUp: 2 } # <-\n', /engine option "speedUp" is not kebab-case/],
      [
        'routing:\n  - match: { recipe: "recipes/sglang/**" } # <-\n    toolchain: { repo: https://x.org/r.git, commit: ' +
          PIN +
          ' }\n',
        /relative to the recipes folder/,
      ],
      [
        'routing:\n  - match: { recipe: "sglang/{a,b}/**" } # <-\n    toolchain: { repo: https://x.org/r.git, commit: ' +
          PIN +
          ' }\n',
        /do not support/,
      ],
      ['models:\n  - { model-prefix: m, precision: p, path: "$HOME/m" } # <-\n', /references are written \$\{HOME\}/],
      ['gpu: H100 # <-\n', /not a lower-case GPU sku/],
      ["sbatch-directives: ['-A other'] # <-\n", /sets what the profile's account key sets/],
      ["sbatch-directives: ['#SBATCH --exclusive'] # <-\n", /repeats the #SBATCH prefix/],
    ];
    for (const [extra, message] of cases) {
      const text = `${SLURM.replace('gpu: b300\n', extra.startsWith('gpu') ? '' : 'gpu: b300\n')}${extra}`;
      await expectOne(text, { path: expect.any(String) as unknown as string, message, hint: /\S/ });
    }
  });

  it('all problems of all files are reported together, then thrown as one error', async () => {
    const dir = tempFiles({
      'clusters/a.yaml': 'scheduler: local\nnodes: 0\ngpus-per-node: 8\ngpu: h100\n',
      'clusters/b.yaml': 'scheduler: slurm\nnodes: 1\ngpus-per-node: 8\ngpu: h100\ntime-limit: 30\n',
      'clusters/c.yml': 'scheduler: local\n',
      'clusters/README.md': 'not a profile\n',
    });
    const error = await loadClusterProfiles(join(dir, 'clusters')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterProfileError);
    const problems = (error as ClusterProfileError).problems;
    expect(problems.map((p) => [p.file.slice(dir.length + 1), p.line, p.rule])).toEqual([
      ['clusters/c.yml', 0, 'file'],
      ['clusters/a.yaml', 2, 'schema'],
      ['clusters/b.yaml', 5, 'time-limit'],
    ]);
    expect((error as Error).message.split('\n')[0]).toBe(
      `${join(dir, 'clusters/c.yml')}  cluster profiles are read from *.yaml files; this .yml file would be ignored`,
    );
  });

  it('invalid YAML and a file that is not a mapping', async () => {
    expect((await problemsOf('scheduler: local\nscheduler: slurm\n')).map((p) => p.message)).toEqual([
      expect.stringMatching(/duplicate key "scheduler"/),
    ]);
    expect((await problemsOf('- a\n- b\n')).map((p) => p.message)).toEqual(['a cluster profile must be a mapping']);
  });
});

describe('retries and exclude-nodes', () => {
  it('retries default to 1 on Slurm and 0 locally; exclude-nodes take names and { nodes, framework, models } rules', async () => {
    const text = `${SLURM}exclude-nodes:
  - gpu-03
  - { framework: vllm-disagg, models: [Kimi-K2.5-MXFP4], nodes: [gpu-07, gpu-08] }
  - { nodes: [gpu-09], models: [amd/DeepSeek-R1] }
sbatch-directives: ['--exclude=gpu-01,gpu-02']
`;
    const read = await parseClusterProfile('clusters/test.yaml', text);
    expect(read.problems).toEqual([]);
    const p = read.profile!;
    expect(p.retries).toBe(1);
    expect(p.excludeNodes).toEqual(['gpu-03']);
    expect(p.excludeNodeRules).toEqual([
      { nodes: ['gpu-07', 'gpu-08'], framework: 'vllm-disagg', models: ['Kimi-K2.5-MXFP4'] },
      { nodes: ['gpu-09'], framework: undefined, models: ['amd/DeepSeek-R1'] },
    ]);
    // The names, the rules that cover the row (the model's full name or its last part, as MODEL_NAME) and a directive's --exclude.
    expect(excludedNodesFor(p, { framework: 'vllm-disagg', model: 'amd/Kimi-K2.5-MXFP4' })).toEqual([
      'gpu-01',
      'gpu-02',
      'gpu-03',
      'gpu-07',
      'gpu-08',
    ]);
    expect(excludedNodesFor(p, { framework: 'sglang-disagg', model: 'amd/Kimi-K2.5-MXFP4' })).toEqual([
      'gpu-01',
      'gpu-02',
      'gpu-03',
    ]);
    expect(excludedNodesFor(p, { framework: 'sglang', model: 'amd/DeepSeek-R1' })).toEqual([
      'gpu-01',
      'gpu-02',
      'gpu-03',
      'gpu-09',
    ]);
    const LOCAL = 'scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h100\n';
    const local = await parseClusterProfile('clusters/test.yaml', `${LOCAL}retries: 2\n`);
    expect(local.profile).toMatchObject({ retries: 2, excludeNodes: [], excludeNodeRules: [] });
    expect((await parseClusterProfile('clusters/test.yaml', LOCAL)).profile!.retries).toBe(0);
  });

  it('a rule without nodes, or a retries that is not a whole number, is located with what it takes', async () => {
    const problems = await problemsOf(`${SLURM}retries: -1\nexclude-nodes:\n  - { framework: vllm }\n`);
    expect(problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      expect.stringMatching(/^7: .*a non-negative integer/),
      expect.stringMatching(/^9: .*(a node name, or a mapping|nodes)/),
    ]);
  });
});

describe('loading profiles', () => {
  it('the three example profiles load, sorted by name', async () => {
    const profiles = await loadClusterProfiles(EXAMPLES);
    expect(profiles.map((p) => [p.name, p.scheduler, p.simulate])).toEqual([
      ['example-slurm', 'slurm', false],
      ['local', 'local', false],
      ['local-sim', 'local', true],
    ]);
    const slurm = profiles[0]!;
    expect(slurm).toMatchObject({
      partition: 'batch_1',
      account: 'benchmark',
      timeLimitMinutes: 240,
      healthCheck: { attempts: 180, intervalSeconds: 10 },
      container: { runtime: 'enroot', squashDir: '/data/squash' },
    });
    expect(slurm.container.mounts[0]).toEqual({ source: '/data/models', target: '/data/models', readOnly: true });
    expect(slurm.routing.map((r) => r.match.framework)).toEqual(['dynamo-sglang', 'dynamo-trt']);
    expect(slurm.routing[0]!.flags.map((f) => f.flag)).toEqual(['skip-preflight']);
    expect(slurm.source.locate(['routing', 1, 'toolchain', 'commit']).line).toBeGreaterThan(1);
    const sim = profiles[2]!;
    expect(sim).toMatchObject({ nodes: 4, gpusPerNode: 8, gpu: 'h100', engines: { sim: { speed: 10 } } });
  });

  it('examples/clusters/local.yaml is the embedded default, spelt out', async () => {
    const { source, ...fromFile } = await loadClusterProfile(join(EXAMPLES, 'local.yaml'));
    const { source: builtin, ...embedded } = LOCAL_PROFILE;
    expect(fromFile).toEqual(embedded);
    expect(source.builtin).toBe(false);
    expect(builtin.builtin).toBe(true);
  });

  it('a catalog without clusters/ (or with no profiles in it) gets the embedded local profile', async () => {
    expect(await loadClusterProfiles(join(tempFiles({}), 'clusters'))).toEqual([LOCAL_PROFILE]);
    expect(await loadClusterProfiles(join(tempFiles({ 'clusters/README.md': 'x' }), 'clusters'))).toEqual([LOCAL_PROFILE]);
  });

  it('every example runner label is served by local-sim', async () => {
    const profiles = await loadClusterProfiles(EXAMPLES);
    for (const runner of ['cpu', 'h100', 'h200', 'h200-multinode', 'cluster:h100-lab'])
      expect(findCluster(profiles, { runner }).name).toBe('local-sim');
  });
});

describe('findCluster', () => {
  const profile = (name: string, runners: string[]): ClusterProfile => ({ ...LOCAL_PROFILE, name, runners });
  const profiles = [profile('a', ['h100', 'h200']), profile('b', ['b300']), profile('c', ['b300'])];

  it('by name, even over the runner', () => {
    expect(findCluster(profiles, { name: 'b', runner: 'h100' }).name).toBe('b');
  });

  it('by runner', () => {
    expect(findCluster(profiles, { runner: 'h200' }).name).toBe('a');
  });

  it('an unknown name, an unserved runner, two clusters for one runner: errors that list the clusters', () => {
    const message = (wanted: { name?: string; runner?: string }): string => {
      try {
        findCluster(profiles, wanted);
      } catch (e) {
        expect(e).toBeInstanceOf(ClusterProfileError);
        const p = (e as ClusterProfileError).problems[0]!;
        return `${p.message} | ${p.hint}`;
      }
      throw new Error('no error');
    };
    expect(message({ name: 'aa' })).toBe(
      'no cluster named "aa" (clusters: a (local; runners h100, h200); b (local; runners b300); c (local; runners b300)) | did you mean --cluster a?',
    );
    expect(message({ runner: 'mi355x' })).toBe(
      'no cluster serves runner "mi355x" (clusters: a (local; runners h100, h200); b (local; runners b300); c (local; runners b300)) | pass --cluster <name>, or add "mi355x" to the runners of a profile',
    );
    expect(message({ runner: 'b300' })).toBe('2 clusters serve runner "b300": b, c | choose one with --cluster b');
  });

  it('the only profile, listing no runners, serves every row (the embedded default)', () => {
    expect(findCluster([LOCAL_PROFILE], { runner: 'h100' })).toBe(LOCAL_PROFILE);
    expect(findCluster([LOCAL_PROFILE], {})).toBe(LOCAL_PROFILE);
  });
});

describe('model paths and ${VAR}', () => {
  it('expandPath expands ${VAR} and $$, and refuses an unset or empty variable', () => {
    expect(expandPath('${ROOT}/models/${NAME}.gguf', { ROOT: '/data', NAME: 'tiny' })).toBe('/data/models/tiny.gguf');
    expect(expandPath('/cost$$/x', {})).toBe('/cost$/x');
    expect(() => expandPath('${MISSING}/x', {})).toThrow(EnvReferenceError);
    expect(() => expandPath('${EMPTY}/x', { EMPTY: '' })).toThrow('environment variable EMPTY (in "${EMPTY}/x") is not set');
  });

  it('modelPath finds the entry and expands it; an unset variable is located in the profile', async () => {
    const profiles = await loadClusterProfiles(EXAMPLES);
    const sim = findCluster(profiles, { name: 'local-sim' });
    expect(modelPath(sim, 'qwen3-0.6b', 'q8', { FRONTIER_TINY_MODEL: '/tmp/tiny.gguf' })).toBe('/tmp/tiny.gguf');
    expect(modelPath(sim, 'llama3.1-8b', 'fp8', {})).toBeUndefined();
    const error = (() => {
      try {
        modelPath(sim, 'qwen3-0.6b', 'q8', {});
      } catch (e) {
        return e as ClusterProfileError;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(ClusterProfileError);
    const p = error.problems[0]!;
    expect(p).toMatchObject({ file: join(EXAMPLES, 'local-sim.yaml'), path: 'models[0].path' });
    expect(p.line).toBeGreaterThan(1);
    expect(p.hint).toBe('export FRONTIER_TINY_MODEL=<path> before running, or write the path out in the profile');
  });
});
