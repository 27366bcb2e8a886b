import { expectedAcceptanceLength, mtpTokens, syntheticAl } from './common.js';
import { CatalogError, PRECISIONS, findHardware, findModel, nodeSeed } from '../sim/index.js';
import type {
  Deployment,
  EngineAdapter,
  EngineProcess,
  Launch,
  Placement,
  Pool,
  Ports,
  Probe,
  WorkerPlacement,
  WorkerShape,
} from './types.js';

/**
 * Frontier's simulated engine (`frontier sim serve`): the deployment's model, GPU and parallelism
 * through the performance model, no GPU needed. Aggregated: one server per worker (one worker
 * here: more go behind a router). Disaggregated: a prefill server per prefill worker, a decode
 * server per decode worker and `frontier sim router` in front, as real PD deployments run. A
 * worker spanning several nodes is one process on its leader node.
 *
 * Options: `speed` (k× faster than real time; the client scales its times back), `seed`,
 * `max-num-seqs`, `gpu-memory-utilization`, `eval-accuracy` (eval questions answered right with this
 * probability when the launch runs evals; default 0.95), `extra-args` (appended to every server,
 * split on spaces: e.g. the sim's fault flags), `stand-in-model` (a model of the sim's catalog
 * that stands in for a model it does not know, to check a pipeline on rows of a new model).
 *
 * A deployment with run-to-run variation (`runVariation`, the plan's) gives each server
 * `--run-variation CV --run-seed S`, S derived from the launch's seed and the worker's node
 * (`node<i>`): workers on different nodes draw different factors, a launch re-planned draws the
 * same. The router has none.
 */

/** The model the sim serves for `model`: itself when the catalog knows it, else the stand-in-model option. */
export function simulatedModel(model: string, options: Deployment['options']): string {
  try {
    findModel(model);
    return model;
  } catch (e) {
    if (!(e instanceof CatalogError) || options['stand-in-model'] === undefined) return model;
    return String(options['stand-in-model']);
  }
}

/** Draft tokens when the cluster sets no mtp-tokens: InferenceX's agentic MTP scripts run 3. */
const SIM_DRAFT_TOKENS = 3;
const simDraftTokens = (d: Deployment): number => mtpTokens(d, SIM_DRAFT_TOKENS);

const READY: Probe[] = [{ path: '/health' }];

function shapeFlags(w: WorkerShape): string[] {
  return ['--tp', String(w.tp), '--ep', String(w.ep), '--pp', String(w.pp), ...(w.dpAttn ? ['--dp-attn'] : [])];
}

function optionFlags(d: Deployment): string[] {
  const o = d.options;
  const flags: string[] = [];
  if (o.speed !== undefined) flags.push('--speed', String(o.speed));
  if (o.seed !== undefined) flags.push('--seed', String(o.seed));
  if (o['max-num-seqs'] !== undefined) flags.push('--max-num-seqs', String(o['max-num-seqs']));
  if (o['gpu-memory-utilization'] !== undefined) flags.push('--gpu-memory-utilization', String(o['gpu-memory-utilization']));
  // An eval against the sim measures the pipeline, not a model: the sim answers the questions
  // it has the key of, right with the probability of `eval-accuracy`.
  if (d.evalAnswers) flags.push('--answers', d.evalAnswers, '--accuracy', String(o['eval-accuracy'] ?? 0.95));
  // An agentic replay reads the reuse the server reports, as InferenceX's agentic vLLM recipes ask for it.
  if (d.scenario === 'agentic-coding') flags.push('--enable-prompt-tokens-details');
  // Speculative decoding is simulated when the row injects synthetic acceptance: its AL is known.
  if (d.specDecoding === 'mtp' && d.syntheticAcceptance) {
    const n = simDraftTokens(d);
    flags.push('--spec-draft-tokens', String(n), '--spec-acceptance', String(syntheticAl(d.syntheticAcceptance, n)));
  }
  if (o['extra-args'] !== undefined) flags.push(...String(o['extra-args']).split(/\s+/).filter(Boolean));
  return flags;
}

/** The plan's name of the node a worker leads from: `node<i>`, bound to an address or not. */
const nodeOf = (w: WorkerPlacement): string => (w.nodes?.[0] !== undefined ? `node${w.nodes[0]}` : w.hosts[0]!);

/** A server's run-variation flags: the deployment's CV, the seed of its worker's node. */
function variationFlags(d: Deployment, w: WorkerPlacement): string[] {
  const v = d.runVariation;
  if (!v || v.cv === 0) return [];
  return ['--run-variation', String(v.cv), '--run-seed', String(nodeSeed(v.seed, nodeOf(w)))];
}

const speedOf = (d: Deployment): number => (d.options.speed === undefined ? 1 : Number(d.options.speed));

export const sim: EngineAdapter = {
  frameworks: ['sim'],

  check(d) {
    const problems: string[] = [];
    const attempt = (what: () => unknown): void => {
      try {
        what();
      } catch (e) {
        if (e instanceof CatalogError) problems.push(`${e.message}: the simulated engine cannot model it`);
        else throw e;
      }
    };
    attempt(() => findModel(simulatedModel(d.model, d.options)));
    attempt(() => findHardware(d.gpu));
    if (!(PRECISIONS as readonly string[]).includes(d.precision))
      problems.push(`precision "${d.precision}": the simulated engine models ${PRECISIONS.join(', ')}`);
    const speed = speedOf(d);
    if (!(speed > 0)) problems.push(`option speed ${String(d.options.speed)}: must be a number > 0`);
    return problems;
  },

  launch(d: Deployment, placement: Placement, ports: Ports): Launch {
    const frontier = d.frontierCommand ?? ['frontier'];
    const common = [
      '--model',
      simulatedModel(d.model, d.options),
      '--hardware',
      d.gpu,
      '--precision',
      d.precision,
      // The engine the sim stands in for: its scheduler and calibrated efficiency.
      ...(d.framework === 'sim' ? [] : ['--engine', d.framework]),
      '--served-model-name',
      d.servedModelName,
      '--max-model-len',
      String(d.maxModelLen),
      ...optionFlags(d),
    ];
    const server = (
      name: string,
      role: EngineProcess['role'],
      w: WorkerPlacement,
      shape: WorkerShape,
      extra: string[],
    ): EngineProcess => {
      const host = w.hosts[0]!;
      const gpus = w.gpus[0] ?? [];
      const port = ports.next(host);
      return {
        name,
        role,
        host,
        gpus,
        command: [
          ...frontier,
          'sim',
          'serve',
          ...common,
          ...shapeFlags(shape),
          ...extra,
          ...variationFlags(d, w),
          '--host',
          host,
          '--port',
          String(port),
        ],
        env: {},
        port,
        ready: READY,
      };
    };
    const expected = expectedAcceptanceLength(d, () => simDraftTokens(d));
    const client = {
      backend: 'vllm',
      endpoint: '/v1/completions' as const,
      tokenizer: 'gpt2',
      useChatTemplate: false,
      ...(expected !== undefined ? { expectedAcceptanceLength: expected } : {}),
      timeScale: speedOf(d),
    };
    const layout = d.layout;
    if (layout.kind === 'aggregated') {
      const w = placement.workers[0]!;
      const dram = d.cpuOffloadGb ? ['--kv-offload-dram-gb', String(d.cpuOffloadGb)] : [];
      const p = server('server', 'server', w, layout.worker, dram);
      return {
        processes: [p],
        endpoint: { host: p.host, port: p.port! },
        ready: [...READY, { path: '/v1/models', contains: d.servedModelName }],
        metricsPath: '/metrics',
        client,
      };
    }
    const processes: EngineProcess[] = [];
    // The DRAM budget is the deployment's; prefill workers hold the reusable prefixes and share it.
    const dram = (role: 'prefill' | 'decode'): string[] =>
      d.cpuOffloadGb && role === 'prefill' ? ['--kv-offload-dram-gb', String(d.cpuOffloadGb / layout.prefill.workers)] : [];
    const byRole = (role: 'prefill' | 'decode', pool: Pool): EngineProcess[] =>
      placement.workers
        .filter((w) => w.role === role)
        .map((w) => server(`${role}-${w.index}`, role, w, pool, ['--role', role, ...dram(role)]));
    const prefill = byRole('prefill', layout.prefill);
    const decode = byRole('decode', layout.decode);
    processes.push(...prefill, ...decode);
    const port = ports.next(placement.head);
    const url = (p: EngineProcess): string => `http://${p.host}:${p.port}`;
    processes.push({
      name: 'router',
      role: 'router',
      host: placement.head,
      gpus: [],
      command: [
        ...frontier,
        'sim',
        'router',
        ...prefill.flatMap((p) => ['--prefill', url(p)]),
        ...decode.flatMap((p) => ['--decode', url(p)]),
        '--host',
        placement.head,
        '--port',
        String(port),
      ],
      env: {},
      port,
      ready: READY,
    });
    return {
      processes,
      endpoint: { host: placement.head, port },
      ready: [...READY, { path: '/v1/models', contains: d.servedModelName }],
      metricsPath: '/metrics',
      client,
    };
  },
};
