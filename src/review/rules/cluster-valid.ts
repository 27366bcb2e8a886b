import type { Rule } from '../rule.js';
import { subject } from '../rule.js';
import { fromProblem } from './shared.js';
import { UNPINNED_TOOLCHAIN } from './unpinned-toolchain.js';

export const clusterValid: Rule = {
  id: 'clusters/valid',
  severity: 'error',
  scope: 'tree',
  description: 'every cluster profile (clusters/*.yaml) is valid YAML and passes the profile schema and its rules',
  explanation:
    'A cluster profile says where and how rows run: scheduler, nodes and GPUs, Slurm partition and account, container runtime, model paths and the toolchain each recipe runs with. A profile that fails to load stops `frontier run` before anything starts. The finding names the field, what was expected and the fix (an unknown key names the likely intended one); unpinned toolchain commits are clusters/unpinned-toolchain findings instead.',
  check: ({ head }) =>
    head.clusterProblems
      .filter((p) => p.severity === 'error' && p.rule !== UNPINNED_TOOLCHAIN)
      .map((p) => fromProblem({ ...p, message: `${p.message} [${p.rule}]` }, [subject.file(p.file)])),
};
