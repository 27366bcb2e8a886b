import { tuneProcess } from './common.js';
import type { Deployment, EngineAdapter, Launch, Placement, Ports } from './types.js';

/**
 * llama.cpp's `llama-server`: one process, the deployment's highest concurrency as its slots
 * (`-np`), each slot with the context of one request (`-c` is the total). CPU or one GPU; no
 * tensor parallelism across processes.
 *
 * Options: `binary` (default `llama-server`), `threads` (default: one less than the cores of a
 * machine it shares with the client, at least 1, so the client keeps a core; 1 elsewhere, as
 * more threads than cores is many times slower), `gpu-layers` (`-ngl`), `extra-args` (appended,
 * split on spaces).
 */
export const llamaCpp: EngineAdapter = {
  frameworks: ['llama.cpp'],

  check(d) {
    const problems: string[] = [];
    if (d.layout.kind !== 'aggregated')
      problems.push('llama.cpp serves aggregated deployments only: remove the prefill/decode split');
    else {
      const w = d.layout.worker;
      if (w.tp > 1 || w.pp > 1 || w.ep > 1 || w.dpAttn)
        problems.push(
          `llama.cpp runs one process per model (tp ${w.tp}, pp ${w.pp}, ep ${w.ep}): set tp, pp and ep to 1 and dp-attn to false`,
        );
    }
    return problems;
  },

  launch(d: Deployment, placement: Placement, ports: Ports): Launch {
    const host = placement.workers[0]!.hosts[0]!;
    const gpus = placement.workers[0]!.gpus[0] ?? [];
    const port = ports.next(host);
    const slots = Math.max(1, d.maxConcurrency);
    const o = d.options;
    const threads = o.threads ?? (d.hostCores === undefined ? 1 : Math.max(1, d.hostCores - 1));
    const command = [
      String(o.binary ?? 'llama-server'),
      '-m',
      d.modelPath,
      '--alias',
      d.servedModelName,
      '--host',
      host,
      '--port',
      String(port),
      '-c',
      String(d.maxModelLen * slots),
      '-np',
      String(slots),
      '-t',
      String(threads),
      '--metrics',
      '--no-webui',
      ...(o['gpu-layers'] === undefined ? [] : ['-ngl', String(o['gpu-layers'])]),
      ...(o['extra-args'] === undefined ? [] : String(o['extra-args']).split(/\s+/).filter(Boolean)),
    ];
    return {
      processes: [
        tuneProcess(d, {
          name: 'server',
          role: 'server',
          host,
          gpus,
          command,
          env: {},
          threads: Number(threads),
          port,
          ready: [{ path: '/health' }],
        }),
      ],
      endpoint: { host, port },
      ready: [{ path: '/health' }, { path: '/v1/models', contains: d.servedModelName }],
      metricsPath: '/metrics',
      client: { backend: 'vllm', endpoint: '/v1/completions', tokenizer: 'server', useChatTemplate: false, timeScale: 1 },
    };
  },
};
