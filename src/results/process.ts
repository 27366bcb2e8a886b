/**
 * One benchmark point's aggregate, as the reference `utils/process_result.py` (InferenceX
 * 843c6254f) writes `agg_<RESULT_FILENAME>.json`: identity keys, the single-node or multinode
 * block with per-GPU throughputs, every raw latency in seconds plus interactivity, then the power
 * flags. Key order is the reference's insertion order; files are byte-identical.
 */
import { PyFloat, dumps, pyDivide, pyFloat, pyInt, pyPath, pyTypeName, toPlain } from '../pycompat/index.js';
import type { PyJson } from '../pycompat/index.js';
import { ResultsError } from './errors.js';
import type { PointIdentity } from './identity.js';
import { NO_TELEMETRY_FILES, powerSettingsFromEnv, powerStep } from './power.js';
import type { PowerSettings, TelemetryFiles } from './power.js';

export interface PowerContext {
  /** Default: none of the power variables set. */
  settings?: PowerSettings;
  /** Where telemetry is read (`fsTelemetry(cwd)` in real use). Default: no telemetry anywhere. */
  files?: TelemetryFiles;
}

export interface ProcessedPoint {
  /** The aggregate (`Map`s as objects, floats as numbers). */
  agg: Record<string, unknown>;
  /** The `power_validation_<RESULT_FILENAME>.json` sidecar. */
  powerValidation: Record<string, unknown>;
  /** File names, in the reference's spelling. */
  aggFile: string;
  powerValidationFile: string;
  /** Exact file contents (`json.dump(indent=2)`, no trailing newline); stdout is `aggJson + "\n"`. */
  aggJson: string;
  powerValidationJson: string;
  /** The power step's line: on stderr, or (a valid single-node measurement) on stdout before the aggregate. */
  notice: string;
  noticeOn: 'stdout' | 'stderr';
  /** The reference's exit status: 1 only when REQUIRE_POWER asks for valid power. */
  exitCode: 0 | 1;
}

/** `bmk_result[key]` on the parsed raw result. */
function field(raw: Record<string, unknown>, key: string): unknown {
  if (!Object.hasOwn(raw, key)) {
    throw new ResultsError(`'${key}'`, 'KeyError', `the raw result has no "${key}"`);
  }
  return raw[key];
}

/** The subscript error Python raises for `bmk_result['max_concurrency']` on a non-object. */
function requireObject(raw: unknown): asserts raw is Record<string, unknown> {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !(raw instanceof PyFloat)) return;
  const type = pyTypeName(raw);
  const message =
    type === 'list'
      ? 'list indices must be integers or slices, not str'
      : type === 'str'
        ? "string indices must be integers, not 'str'"
        : `'${type}' object is not subscriptable`;
  throw new ResultsError(message, 'TypeError', 'the raw result must be a JSON object');
}

/**
 * The aggregate and power sidecar of one point from its raw benchmark result (parsed with
 * pycompat's `loads` for exact float handling, or `JSON.parse`) and its identity.
 */
export function processResult(raw: unknown, identity: PointIdentity, power: PowerContext = {}): ProcessedPoint {
  requireObject(raw);
  const float = (key: string): number => pyFloat(field(raw, key), key);
  const agg = new Map<string, PyJson>([
    ['hw', identity.hw],
    ['conc', pyInt(field(raw, 'max_concurrency'), 'max_concurrency')],
    ['image', identity.image],
    ['model', field(raw, 'model_id') as PyJson],
    ['infmax_model_prefix', identity.modelPrefix],
    ['framework', identity.framework],
    ['precision', identity.precision],
    ['spec_decoding', identity.specDecoding],
    ['disagg', identity.disagg],
    ['recipe_fingerprint', identity.recipeFingerprint],
    ['isl', identity.isl],
    ['osl', identity.osl],
  ]);
  if (identity.router) agg.set('router', { ...identity.router });
  if (identity.kvP2pTransfer) agg.set('kv_p2p_transfer', identity.kvP2pTransfer);

  const t = identity.topology;
  if (t.kind === 'multinode') {
    const total = t.prefillGpus + t.decodeGpus;
    // Aggregated arms (no decode GPUs) record decode tp/ep as 0 and pp/dcp/pcp as 1.
    const hasDecode = t.decodeGpus > 0;
    const entries: [string, PyJson][] = [
      ['is_multinode', true],
      ['prefill_tp', t.prefill.tp],
      ['prefill_pp', t.prefill.pp],
      ['prefill_dcp_size', t.prefill.dcpSize],
      ['prefill_pcp_size', t.prefill.pcpSize],
      ['prefill_ep', t.prefill.ep],
      ['prefill_dp_attention', t.prefill.dpAttention],
      ['prefill_num_workers', t.prefill.numWorkers],
      ['decode_tp', hasDecode ? t.decode.tp : 0],
      ['decode_pp', hasDecode ? t.decode.pp : 1],
      ['decode_dcp_size', hasDecode ? t.decode.dcpSize : 1],
      ['decode_pcp_size', hasDecode ? t.decode.pcpSize : 1],
      ['decode_ep', hasDecode ? t.decode.ep : 0],
      ['decode_dp_attention', t.decode.dpAttention],
      ['decode_num_workers', t.decode.numWorkers],
      ['num_prefill_gpu', t.prefillGpus],
      ['num_decode_gpu', t.decodeGpus],
      ['tput_per_gpu', new PyFloat(float('total_token_throughput') / total)],
      ['output_tput_per_gpu', new PyFloat(float('output_throughput') / (hasDecode ? t.decodeGpus : total))],
      ['input_tput_per_gpu', new PyFloat((float('total_token_throughput') - float('output_throughput')) / t.prefillGpus)],
    ];
    if (t.hardware) entries.push(['prefill_hw', t.hardware.prefill], ['decode_hw', t.hardware.decode]);
    for (const [k, v] of entries) agg.set(k, v);
  } else {
    const gpus = t.tp * t.pp * t.pcpSize; // DCP splits the context over the same GPUs
    const per = (value: number): PyFloat => new PyFloat(pyDivide(value, gpus, 'the GPU count TP × PP_SIZE × PCP_SIZE is 0'));
    const entries: [string, PyJson][] = [
      ['is_multinode', false],
      ['tp', t.tp],
      ['pp', t.pp],
      ['dcp_size', t.dcpSize],
      ['pcp_size', t.pcpSize],
      ['ep', t.ep],
      ['dp_attention', t.dpAttention],
      ['tput_per_gpu', per(float('total_token_throughput'))],
      ['output_tput_per_gpu', per(float('output_throughput'))],
      ['input_tput_per_gpu', per(float('total_token_throughput') - float('output_throughput'))],
    ];
    for (const [k, v] of entries) agg.set(k, v);
  }

  // Every *ms key in seconds; every *tpot* key also as interactivity (tokens/s per user), even std.
  for (const [key, value] of Object.entries(raw)) {
    if (key.endsWith('ms')) agg.set(key.replaceAll('_ms', ''), new PyFloat(pyFloat(value, key) / 1000));
    if (key.includes('tpot')) {
      agg.set(
        key.replaceAll('_ms', '').replaceAll('tpot', 'intvty'),
        new PyFloat(pyDivide(1000, pyFloat(value, key), `${key} is 0: no request produced a second token`)),
      );
    }
  }

  const outcome = powerStep(raw, identity, agg, power.settings ?? powerSettingsFromEnv({}), power.files ?? NO_TELEMETRY_FILES);
  return {
    agg: toPlain(agg) as Record<string, unknown>,
    powerValidation: toPlain(outcome.validation) as Record<string, unknown>,
    aggFile: pyPath(`agg_${identity.resultFilename}.json`),
    powerValidationFile: pyPath(`power_validation_${identity.resultFilename}.json`),
    aggJson: dumps(agg, { indent: 2 }),
    powerValidationJson: dumps(outcome.validation, { indent: 2 }),
    notice: outcome.notice,
    noticeOn: outcome.noticeOn ?? 'stderr',
    exitCode: outcome.exitCode,
  };
}
