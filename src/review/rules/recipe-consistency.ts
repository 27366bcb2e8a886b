import type { Rule } from '../rule.js';
import { mismatchFindings } from './shared.js';

/** A master-config ↔ recipe rule: one kind of disagreement between an entry and its CONFIG_FILE. */
const consistency = (id: string, description: string, explanation: string): Rule => ({
  id,
  severity: 'error',
  scope: 'tree',
  description,
  explanation,
  check: (context) => mismatchFindings(context, id),
});

export const concurrencyMismatch = consistency(
  'recipe/concurrency-mismatch',
  "an entry's concurrencies are the ones its recipe runs",
  'The job runs benchmark.concurrencies of the recipe; the matrix publishes the entry\'s conc-list. When they differ, points are run that nobody asked for, or published points were never run. Make the two lists equal, or, to publish only the recipe\'s largest concurrency, set conc-list to [that maximum] and say so in a comment on the entry ("matrix tracks the max", above its `- ` line or after conc-list).',
);
export const workerCountMismatch = consistency(
  'recipe/worker-count-mismatch',
  'prefill/decode num-worker match the recipe workers',
  "num-worker labels the published topology (e.g. 5P2D); the recipe's resources decide what runs. An aggregated recipe is num-worker: <agg_workers> for prefill and 0 for decode.",
);
export const parallelismMismatch = consistency(
  'recipe/parallelism-mismatch',
  'tp, ep and dp-attn of each role match the recipe engine flags',
  "The dashboard groups and labels points by the entry's tp/ep/dp-attn (TP8, DEP8…); the engine runs its own flags. Make the entry describe the engine flags of the recipe's prefill, decode (or aggregated) role.",
);
export const imageMismatch = consistency(
  'recipe/image-mismatch',
  "a config's image is the container its recipes run",
  "Results are published under the config's image. A recipe pinned to another image measures something else; use the same image (enroot's registry#path spelling is the same image).",
);
export const seqLenMismatch = consistency(
  'recipe/seq-len-mismatch',
  'a recipe benchmarks the ISL/OSL of the scenario it is listed under',
  'A recipe listed under an 8k1k scenario must benchmark isl 8192 / osl 1024; otherwise its results land in the wrong curve.',
);
export const precisionMismatch = consistency(
  'recipe/precision-mismatch',
  "a recipe's model precision is the config's precision (fp4 covers mxfp4 and nvfp4)",
  "The config's precision names the model variant; a recipe loading another precision's weights publishes them under the wrong name.",
);
export const dynamoVersionMismatch = consistency(
  'recipe/dynamo-version-mismatch',
  "the Dynamo a recipe installs is the config's router pin",
  'The router pin (router: { name: dynamo-router, version }) is the component version published with the results. A recipe installing another Dynamo (version, wheel or commit) makes that record false; update one to match the other.',
);
