// Rows of an InferenceX checkout run through its own launch material (planned in
// src/plan/inferencex/): single-node rows its benchmark scripts (script-record, point, run-local,
// slurm-job), multi-node rows their srt-slurm recipes (recipe-run), or srtctl itself (srtctl), or,
// for frameworks without recipes, the job scripts that submit their own Slurm job (job-script);
// standins.ts drives the sim.
export { recordPoint } from './script-record.js';
export type { RecordedScript, ScriptProcess } from './script-record.js';
export { recordJobScript } from './job-script.js';
export type { RecordedJobScript } from './job-script.js';
