import type { Rule } from '../rule.js';
import { subject } from '../rule.js';
import { recipeLocation } from './shared.js';

/** The time limit clusters give a job when the recipe does not set one. */
export const CLUSTER_DEFAULT_TIME_LIMIT_HOURS = 4;

/** Slurm time formats: minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]]. Undefined when unreadable. */
export function timeLimitHours(value: string): number | undefined {
  const m = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(value.trim());
  if (!m) return undefined;
  const [, days, a, b, c] = m;
  if (days !== undefined) return Number(days) * 24 + Number(a) + Number(b ?? 0) / 60 + Number(c ?? 0) / 3600;
  if (c !== undefined) return Number(a) + Number(b) / 60 + Number(c) / 3600;
  if (b !== undefined) return Number(a) / 60 + Number(b) / 3600;
  return Number(a) / 60;
}

export const shortTimeLimitWithoutHealthCheck: Rule = {
  id: 'recipe/short-time-limit-without-health-check',
  severity: 'error',
  scope: 'tree',
  description: 'a time limit far below the cluster default comes with a health_check block',
  explanation: `srtctl waits for workers to become healthy for health_check.max_attempts × interval_seconds (30 minutes by default). With slurm.time_limit at half the cluster default (${CLUSTER_DEFAULT_TIME_LIMIT_HOURS} h) or less and no health_check, a cold model load can eat the whole allocation before a single request is sent. Add a health_check sized for the model load, or raise the time limit.`,
  check: ({ head }) =>
    [...head.recipes.values()].flatMap((file) =>
      file.variants.flatMap((variant) => {
        const r = variant.recipe;
        const limit = ((r.slurm ?? {}) as Record<string, unknown>).time_limit;
        if (typeof limit !== 'string' || r.health_check !== undefined) return [];
        const hours = timeLimitHours(limit);
        if (hours === undefined || hours > CLUSTER_DEFAULT_TIME_LIMIT_HOURS / 2) return [];
        return [
          {
            ...recipeLocation(head, file, 'slurm.time_limit', variant),
            message: `slurm.time_limit is ${limit} (cluster default ${CLUSTER_DEFAULT_TIME_LIMIT_HOURS} h) and there is no health_check block`,
            hint: 'add health_check: { max_attempts: <n>, interval_seconds: 10 } sized for the model load, or raise slurm.time_limit',
            subjects: [subject.recipe(file.path)],
          },
        ];
      }),
    ),
};
