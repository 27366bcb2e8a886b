import { isAgenticRow, isMultiNodeRow } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';

/**
 * The processed changelog as the reference prints it: `ChangelogMatrixEntry.model_dump_json(
 * by_alias=True, exclude_none=True)`. pydantic writes each model's fields in declaration order
 * with defaults filled in, so rows are re-keyed here to those orders; then compact JSON with
 * raw UTF-8, which is exactly JSON.stringify.
 */

export interface ChangelogMatrix {
  single_node: Record<string, MatrixRow[]>;
  multi_node: Record<string, MatrixRow[]>;
  evals: MatrixRow[];
  agentic_evals: MatrixRow[];
  multinode_evals: MatrixRow[];
  multinode_agentic_evals: MatrixRow[];
  changelog_metadata: { base_ref: string; head_ref: string; entries: Record<string, unknown>[] };
}

/** Every row of a sweep, in the order its job lists run. */
export function changelogRows(matrix: ChangelogMatrix): MatrixRow[] {
  return [
    ...Object.values(matrix.single_node).flat(),
    ...Object.values(matrix.multi_node).flat(),
    ...matrix.evals,
    ...matrix.agentic_evals,
    ...matrix.multinode_evals,
    ...matrix.multinode_agentic_evals,
  ];
}

type Model = readonly (readonly [field: string, dflt?: unknown, nested?: Model])[];

const COMPONENT: Model = [['name'], ['version']];
const WORKER: Model = [
  ['num-worker'],
  ['tp'],
  ['pp', 1],
  ['dcp-size', 1],
  ['pcp-size', 1],
  ['ep'],
  ['dp-attn'],
  ['hardware'],
  ['additional-settings', []],
];
const SINGLE_NODE: Model = [
  ['image'],
  ['model'],
  ['model-prefix'],
  ['precision'],
  ['framework'],
  ['spec-decoding'],
  ['runner'],
  ['isl'],
  ['osl'],
  ['tp'],
  ['pp'],
  ['dcp-size'],
  ['pcp-size'],
  ['ep'],
  ['dp-attn'],
  ['conc'],
  ['max-model-len'],
  ['exp-name'],
  ['disagg'],
  ['run-eval'],
  ['eval-only', false],
  ['router', undefined, COMPONENT],
  ['recipe-fingerprint'],
];
const MULTI_NODE: Model = [
  ['image'],
  ['model'],
  ['model-prefix'],
  ['precision'],
  ['framework'],
  ['spec-decoding'],
  ['runner'],
  ['isl'],
  ['osl'],
  ['prefill', undefined, WORKER],
  ['decode', undefined, WORKER],
  ['conc'],
  ['max-model-len'],
  ['exp-name'],
  ['disagg'],
  ['run-eval'],
  ['eval-only', false],
  ['eval-conc'],
  ['eval-all-concs', false],
  ['router', undefined, COMPONENT],
  ['kv-p2p-transfer'],
  ['recipe-fingerprint'],
];
const SINGLE_NODE_AGENTIC: Model = [
  ['image'],
  ['model'],
  ['model-prefix'],
  ['precision'],
  ['framework'],
  ['runner'],
  ['tp'],
  ['pp'],
  ['dcp-size'],
  ['pcp-size'],
  ['ep'],
  ['dp-attn'],
  ['spec-decoding', 'none'],
  ['conc'],
  ['kv-offloading'],
  ['kv-offload-backend', undefined, COMPONENT],
  ['router', undefined, COMPONENT],
  ['total-cpu-dram-gb'],
  ['duration'],
  ['exp-name'],
  ['scenario-type'],
  ['run-eval'],
  ['eval-only'],
  ['recipe-fingerprint'],
];
const MULTI_NODE_AGENTIC: Model = [
  ['image'],
  ['model'],
  ['model-prefix'],
  ['precision'],
  ['framework'],
  ['spec-decoding'],
  ['runner'],
  ['prefill', undefined, WORKER],
  ['decode', undefined, WORKER],
  ['conc'],
  ['kv-offloading'],
  ['kv-offload-backend', undefined, COMPONENT],
  ['router', undefined, COMPONENT],
  ['kv-p2p-transfer'],
  ['total-cpu-dram-gb'],
  ['duration'],
  ['exp-name'],
  ['disagg'],
  ['scenario-type'],
  ['run-eval'],
  ['eval-only'],
  ['eval-conc'],
  ['recipe-fingerprint'],
];
const ENTRY: Model = [
  ['config-keys'],
  ['description'],
  ['pr-link'],
  ['evals-only', false],
  ['all-evals', false],
  ['append-only', false],
  ['eval-min-prefill-ep'],
  ['scenario-type'],
];

/** Re-key a value to a model's field order, filling defaults and dropping absent/null fields. */
function dump(value: Record<string, unknown>, model: Model): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, dflt, nested] of model) {
    let v = value[field] ?? dflt;
    if (v === undefined || v === null) continue;
    if (nested) v = dump(v as Record<string, unknown>, nested);
    out[field] = v;
  }
  return out;
}

function rowModel(row: MatrixRow): Model {
  if (isAgenticRow(row)) return isMultiNodeRow(row) ? MULTI_NODE_AGENTIC : SINGLE_NODE_AGENTIC;
  return isMultiNodeRow(row) ? MULTI_NODE : SINGLE_NODE;
}

const dumpRow = (row: MatrixRow): Record<string, unknown> => dump(row as unknown as Record<string, unknown>, rowModel(row));

const dumpBuckets = (buckets: Record<string, MatrixRow[]>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(buckets).map(([k, rows]) => [k, rows.map(dumpRow)]));

/** The reference's JSON text for a processed changelog (one line, no trailing newline). */
export function changelogMatrixJson(matrix: ChangelogMatrix): string {
  return JSON.stringify({
    single_node: dumpBuckets(matrix.single_node),
    multi_node: dumpBuckets(matrix.multi_node),
    evals: matrix.evals.map(dumpRow),
    agentic_evals: matrix.agentic_evals.map(dumpRow),
    multinode_evals: matrix.multinode_evals.map(dumpRow),
    multinode_agentic_evals: matrix.multinode_agentic_evals.map(dumpRow),
    changelog_metadata: {
      base_ref: matrix.changelog_metadata.base_ref,
      head_ref: matrix.changelog_metadata.head_ref,
      entries: matrix.changelog_metadata.entries.map((e) => dump(e, ENTRY)),
    },
  });
}
