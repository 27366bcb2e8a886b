import type { Rule } from '../rule.js';
import { subject } from '../rule.js';
import { fromProblem } from './shared.js';

const subjectsOf = (key: string | undefined, file: string): string[] => (key ? [subject.config(key)] : [subject.file(file)]);

export const configValid: Rule = {
  id: 'config/valid',
  severity: 'error',
  scope: 'tree',
  description: 'master configs and runners.yaml pass the schema and every cross-field rule',
  explanation:
    'The catalog is what the sweep is generated from: an entry that fails validation generates nothing, or the wrong thing. The finding names the field and what was expected; `frontier validate` lists the same problems.',
  check: ({ head }) =>
    head.catalogProblems
      .filter((p) => p.severity === 'error')
      .map((p) => fromProblem({ ...p, message: `${p.message} [${p.rule}]` }, subjectsOf(p.key, p.file))),
};

export const configRunnerLabel: Rule = {
  id: 'config/runner-label',
  severity: 'warning',
  scope: 'tree',
  description: "a config's runner label is defined in runners.yaml",
  explanation:
    'A runner label that runners.yaml does not define cannot be expanded to nodes (--runner-node-filter) or checked for hardware facts. Add the label, or fix the typo the hint suggests.',
  check: ({ head }) =>
    head.catalogProblems.filter((p) => p.severity === 'warning').map((p) => fromProblem(p, subjectsOf(p.key, p.file))),
};
