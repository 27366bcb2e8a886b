import { problemAt } from '../catalog/index.js';
import type { PathSegment, Problem, Subject } from '../catalog/index.js';
import { envProblems } from './env-reference.js';
import { parseMount } from './profile.js';
import { globProblem } from './recipe-glob.js';
import {
  DEFAULT_HEALTH_CHECK,
  DEFAULT_TIME_LIMIT_MINUTES,
  HEALTH_CHECK_REQUIRED_BELOW_MINUTES,
  SLURM_ONLY_KEYS,
} from './schema.js';
import type { ProfileFile } from './schema.js';

// The checks between a profile's fields, after its shape (schema.ts) holds.

/** The slowest the simulated engine runs (`frontier sim serve --speed` takes the same range). */
const SIM_MIN_SPEED = 1e-3;
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const FULL_SHA = /^[0-9a-fA-F]{40}$/;
const GIT_URL = /^((https?|ssh|git|file):\/\/\S+|[\w.-]+@[\w.-]+:\S+)$/;

/** The rules between fields, each a located problem with a fix. */
export function crossFieldProblems(subject: Subject, v: ProfileFile): Problem[] {
  const out: Problem[] = [];
  const at = (path: PathSegment[], message: string, rule: string, hint: string, keyName?: string): void => {
    out.push(problemAt(subject, path, message, { rule, hint, ...(keyName !== undefined ? { keyName } : {}) }));
  };

  if (v.gpu !== v.gpu.toLowerCase() || !/^[a-z0-9][a-z0-9-]*$/.test(v.gpu.toLowerCase())) {
    at(
      ['gpu'],
      `gpu "${v.gpu}" is not a lower-case GPU sku`,
      'schema',
      `write the sku in lower case, e.g. gpu: ${v.gpu.toLowerCase()}`,
    );
  }

  const seenRunners = new Map<string, number>();
  (v.runners ?? []).forEach((label, i) => {
    const first = seenRunners.get(label);
    if (first !== undefined) at(['runners', i], `runner "${label}" is listed twice (runners[${first}])`, 'schema', 'remove one');
    else seenRunners.set(label, i);
  });

  if (v.scheduler === 'local') {
    for (const key of SLURM_ONLY_KEYS) {
      if (v[key] === undefined) continue;
      at(
        [],
        `${key} is a Slurm setting, and this cluster's scheduler is local: a local cluster runs engines as processes on this host, never through sbatch`,
        'slurm-only',
        `remove ${key}, or set scheduler: slurm`,
        key,
      );
    }
  }

  for (const [i, directive] of (v['sbatch-directives'] ?? []).entries()) {
    const d = directive.trim();
    if (/^#SBATCH\b/i.test(d)) {
      at(
        ['sbatch-directives', i],
        `"${directive}" repeats the #SBATCH prefix`,
        'schema',
        `write the option alone: "${d.replace(/^#SBATCH\s*/i, '')}"`,
      );
      continue;
    }
    if (!d.startsWith('-')) {
      at(
        ['sbatch-directives', i],
        `"${directive}" is not an sbatch option`,
        'schema',
        'write it as sbatch takes it, e.g. "--exclusive" or "--gres=gpu:8"',
      );
      continue;
    }
    const option = /^--?([A-Za-z-]+)/.exec(d)?.[1];
    const owned: Record<string, string> = {
      partition: 'partition',
      p: 'partition',
      account: 'account',
      A: 'account',
      qos: 'qos',
      reservation: 'reservation',
      time: 'time-limit',
      t: 'time-limit',
      nodes: 'nodes',
      N: 'nodes',
    };
    const key = option !== undefined ? owned[option] : undefined;
    if (key) {
      at(
        ['sbatch-directives', i],
        `"${directive}" sets what the profile's ${key} key sets`,
        'schema',
        `use ${key}: and remove the directive`,
      );
    }
  }

  const limit = v['time-limit'] ?? DEFAULT_TIME_LIMIT_MINUTES;
  const check = v['health-check'];
  if (v.scheduler === 'slurm' && limit < HEALTH_CHECK_REQUIRED_BELOW_MINUTES && check === undefined) {
    const written = v['time-limit'] !== undefined;
    at(
      written ? ['time-limit'] : ['scheduler'],
      `a ${limit}-minute time limit${written ? '' : ' (the default)'} with no health-check: a cold model load can use up the whole allocation before the first request`,
      'time-limit',
      `add health-check: { attempts: <n>, interval: <seconds> } sized for the model load (attempts × interval under the time limit), or set time-limit: ${HEALTH_CHECK_REQUIRED_BELOW_MINUTES} or more`,
    );
  }
  const attempts = check?.attempts ?? DEFAULT_HEALTH_CHECK.attempts;
  const interval = check?.interval ?? DEFAULT_HEALTH_CHECK.interval;
  const waitSeconds = attempts * interval;
  if (waitSeconds >= limit * 60) {
    const minutes = Math.round((waitSeconds / 60) * 100) / 100;
    at(
      check ? ['health-check'] : ['time-limit'],
      `health-check waits up to ${attempts} × ${interval} s = ${minutes} min, which is not shorter than the time limit of ${limit} min: the job would be killed before the engine is declared unhealthy`,
      'health-check',
      `lower health-check attempts or interval, or raise time-limit above ${Math.ceil(minutes)}`,
    );
  }

  const container = v.container;
  const runtime = container?.runtime ?? 'none';
  if (container?.['squash-dir'] !== undefined && runtime !== 'enroot') {
    at(
      ['container'],
      `squash-dir is where enroot keeps imported images, and this cluster's container runtime is ${runtime}`,
      'container',
      'remove squash-dir, or set runtime: enroot',
      'squash-dir',
    );
  }
  if (container?.mounts !== undefined && container.mounts.length > 0 && runtime === 'none') {
    at(
      ['container'],
      'mounts need a container runtime, and runtime is none',
      'container',
      'set runtime (enroot, apptainer or docker), or remove mounts',
      'mounts',
    );
  }
  (container?.mounts ?? []).forEach((m, i) => {
    if (!parseMount(m)) {
      at(
        ['container', 'mounts', i],
        `mount "${m}" is not "src:dst[:ro]"`,
        'container',
        'write host-path:/container/path, with :ro for read-only, e.g. "/data/models:/models:ro"',
      );
    } else out.push(...envProblems(subject, ['container', 'mounts', i], m));
  });
  if (container?.['squash-dir'] !== undefined)
    out.push(...envProblems(subject, ['container', 'squash-dir'], container['squash-dir']));

  for (const [framework, options] of Object.entries(v.engines ?? {})) {
    if (framework.trim() === '')
      at(['engines'], 'an engine with an empty name', 'schema', 'name the framework, e.g. sim or llama.cpp', framework);
    for (const option of Object.keys(options)) {
      if (KEBAB.test(option)) continue;
      at(
        ['engines', framework],
        `engine option "${option}" is not kebab-case`,
        'schema',
        `write it as "${kebab(option)}"`,
        option,
      );
    }
    // The simulated engine's speed is known here; a bad one would otherwise fail only at run time.
    const speed = framework === 'sim' ? options.speed : undefined;
    if (speed !== undefined && !(typeof speed !== 'boolean' && Number(speed) >= SIM_MIN_SPEED && Number(speed) < Infinity)) {
      at(
        ['engines', framework, 'speed'],
        `sim speed ${JSON.stringify(speed)} is not a number ≥ ${SIM_MIN_SPEED}`,
        'engine-option',
        `set speed to how many times faster than real time the sim runs: a number ≥ ${SIM_MIN_SPEED} (as frontier sim serve --speed), e.g. 100`,
      );
    }
  }

  const seenModels = new Map<string, number>();
  (v.models ?? []).forEach((m, i) => {
    const id = `${m['model-prefix']}\u0000${m.precision}`;
    const first = seenModels.get(id);
    if (first !== undefined) {
      const line = subject.doc.locate(['models', first]).line;
      at(
        ['models', i],
        `a second models entry for ${m['model-prefix']} ${m.precision} (the first is models[${first}], line ${line})`,
        'duplicate-model',
        'keep one entry per model-prefix and precision',
      );
    } else seenModels.set(id, i);
    out.push(...envProblems(subject, ['models', i, 'path'], m.path));
  });

  (v.routing ?? []).forEach((rule, i) => {
    const { repo, commit } = rule.toolchain;
    if (!GIT_URL.test(repo)) {
      at(
        ['routing', i, 'toolchain', 'repo'],
        `toolchain repo "${repo}" is not a repository URL`,
        'schema',
        'write the clone URL, e.g. https://github.com/NVIDIA/srt-slurm.git',
      );
    }
    if (!FULL_SHA.test(commit)) {
      const what = /^[0-9a-fA-F]{4,39}$/.test(commit)
        ? 'a short sha, which can become ambiguous'
        : /^v?\d+(\.\d+)+/.test(commit)
          ? 'a tag, which can be moved'
          : 'a branch or tag, which moves';
      at(
        ['routing', i, 'toolchain', 'commit'],
        `toolchain commit "${commit}" is not pinned: it is ${what}, so the same recipe can run different code tomorrow`,
        'unpinned-toolchain',
        `pin the full 40-hex commit, e.g. \`git ls-remote ${GIT_URL.test(repo) ? repo : '<repo>'} ${commit || '<ref>'}\``,
      );
    }
    if (rule.match.recipe !== undefined) {
      const problem = globProblem(rule.match.recipe);
      if (problem) at(['routing', i, 'match', 'recipe'], problem.message, 'schema', problem.hint);
    }
    const flags = new Map<string, number>();
    (rule.flags ?? []).forEach((f, k) => {
      if (!KEBAB.test(f.flag)) {
        at(
          ['routing', i, 'flags', k, 'flag'],
          `flag "${f.flag}" is not a kebab-case name`,
          'schema',
          `write it without dashes in front, e.g. "${kebab(f.flag.replace(/^-+/, '')) || 'skip-preflight'}"`,
        );
      }
      if (f.reason.trim() === '') {
        at(
          ['routing', i, 'flags', k, 'reason'],
          `flag ${f.flag} has an empty reason`,
          'schema',
          'say why this route needs the flag: a reviewer reads it',
        );
      }
      if (flags.has(f.flag)) at(['routing', i, 'flags', k], `flag ${f.flag} is given twice`, 'schema', 'remove one');
      flags.set(f.flag, k);
    });
  });
  return out;
}

const kebab = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[_\s.]+/g, '-')
    .toLowerCase();
