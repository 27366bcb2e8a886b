import { chmodSync, mkdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Stand-ins for the GPU-only tools InferenceX's benchmark scripts call (engines, GPU monitors,
 * model downloads, package installs). Put first on PATH, each records what it was asked (argv,
 * working directory and environment, one pair of files per call in `$FRONTIER_STANDIN_DIR/calls`)
 * and then acts it out: in `run` mode (a simulating cluster) an engine becomes Frontier's simulated
 * engine on the port it was given and the benchmark client becomes `frontier bench`; in `client`
 * mode (a real cluster whose client is frontier bench) only the client is replaced; in `record`
 * mode (a dry run) nothing starts, so the script stops at its first readiness check with its
 * processes recorded.
 * They are bash, not node: a dry run of a whole sweep calls thousands of them.
 */

const ENGINE_TOOLS = ['vllm', 'trtllm-serve', 'sglang'] as const;
const STANDIN_TOOLS = [
  ...ENGINE_TOOLS,
  'python3',
  'python',
  'pip',
  'pip3',
  'hf',
  'huggingface-cli',
  'nvidia-smi',
  'amd-smi',
  'rocm-smi',
  'mpirun',
  'curl',
  'sleep',
  // What srtctl's recipes start (recipe-run.ts): NUMA binding and TensorRT-LLM's MPI wrapper
  // around a worker, nginx in front of several frontends.
  'numactl',
  'trtllm-llmapi-launch',
  'nginx',
] as const;

/** `python3 -m <module>` entry points that start an inference server. */
const ENGINE_MODULES = [
  'sglang.launch_server',
  'sglang_router.launch_server',
  'atom.entrypoints.openai_server',
  'vllm.entrypoints.openai.api_server',
  'tensorrt_llm.serve',
  // Dynamo's workers (srt-slurm recipes): they find their frontend through etcd/NATS, so each
  // registers its URL in $FRONTIER_STANDIN_REGISTRY for the frontend's stand-in to find.
  'dynamo.sglang',
  'dynamo.vllm',
  'dynamo.trtllm',
];

/** `python3 -m <module>` entry points that front workers: each becomes `frontier sim router` over the registered ones. */
export const FRONTEND_MODULES = ['dynamo.frontend', 'sglang_router.launch_router'];

/** The stand-in itself; `\${` is bash's `${`. */
const SCRIPT = `#!/usr/bin/env bash
# Frontier's stand-in for a GPU-only tool: records the call, then acts it out (docs/running.md).
tool=\${0##*/}
real() {
  local IFS=: d
  for d in $FRONTIER_STANDIN_PATH; do
    if [[ -x "$d/$tool" && "$d" != "$FRONTIER_STANDIN_BIN" ]]; then exec "$d/$tool" "$@"; fi
  done
  echo "$tool: command not found" >&2
  exit 127
}
kind=other
case "$tool" in
  vllm) if [[ "$1" == serve ]]; then kind=engine; else kind=noop; fi ;;
  trtllm-serve | sglang) kind=engine ;;
  python3 | python)
    if [[ "$1" == -m ]]; then
      case " ${ENGINE_MODULES.join(' ')} " in
        *" $2 "*) kind=engine ;;
        *)
          case " ${FRONTEND_MODULES.join(' ')} " in
            *" $2 "*) kind=frontend ;;
            *) if [[ "$2" == pip ]]; then kind=noop; else real "$@"; fi ;;
          esac
          ;;
      esac
    elif [[ "$1" == */bench_serving/benchmark_serving.py ]]; then
      kind=client
    else
      real "$@"
    fi
    ;;
  pip | pip3 | hf | huggingface-cli) kind=noop ;;
  nvidia-smi | amd-smi | rocm-smi) kind=gpu ;;
  mpirun | numactl | trtllm-llmapi-launch) kind=launcher ;;
  nginx) kind=frontend ;;
  sleep)
    # A dry run only records: the script's waits need not wait.
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then real 0.01; fi
    real "$@"
    ;;
  curl)
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then
      # The first readiness check: once an engine has recorded and every stand-in the script
      # started in the background has finished recording (each .argv has its .env), the script
      # and all it started stop here.
      calls="$FRONTIER_STANDIN_DIR/calls"
      for _ in {1..500}; do
        /bin/sleep 0.02
        done=1
        engine=0
        for f in "$calls"/*.pending; do
          [[ -e "$f" ]] || continue
          if [[ ! -e "\${f%.pending}.done" ]]; then done=0; fi
        done
        for f in "$calls"/*.argv; do
          [[ -e "$f" ]] || continue
          read -r -d '' k <"$f"
          if [[ "$k" == engine ]]; then engine=1; fi
        done
        if [[ $done == 1 && $engine == 1 ]]; then break; fi
      done
      kill -KILL 0
    fi
    real "$@"
    ;;
esac
# A call is complete when its .done marker is there (bash builtins only: no process per record).
call="$FRONTIER_STANDIN_DIR/calls/\${EPOCHREALTIME/./}-$$"
: >"$call.pending"
while IFS= read -r name; do printf '%s=%s\\0' "$name" "\${!name}"; done < <(compgen -e) >"$call.env"
printf '%s\\0' "$kind" "$tool" "$PWD" "$@" >"$call.argv"
: >"$call.done"
# On a real cluster whose client is frontier bench, every other tool is the real one.
if [[ "$FRONTIER_STANDIN_MODE" == client && "$kind" != client ]]; then real "$@"; fi
case "$kind" in
  noop | other) exit 0 ;;
  gpu)
    # A monitor loop (-l/-w) runs until it is stopped; a one-shot query answers nothing.
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then exit 0; fi
    for a in "$@"; do
      if [[ "$a" == -l || "$a" == -w || "$a" == --loop* ]]; then exec sleep 2147483647; fi
    done
    exit 0
    ;;
  launcher)
    # The launcher's own options (mpirun's, numactl's; trtllm-llmapi-launch has none), then the
    # program it starts (recorded by its own stand-in).
    while [[ $tool != trtllm-llmapi-launch && $# -gt 0 && "$1" == -* ]]; do
      case "$tool $1" in
        "mpirun -n" | "mpirun -np" | "mpirun -N" | "mpirun -x" | "mpirun -H" | "mpirun --host" | "mpirun --hostfile" | "mpirun -hostfile" | "mpirun --bind-to" | "mpirun --map-by" | "mpirun -wdir" | "mpirun --wdir" | "mpirun --npernode") shift 2 ;;
        "mpirun --mca" | "mpirun -mca") shift 3 ;;
        "numactl -m" | "numactl -N" | "numactl -C" | "numactl -i" | "numactl -p" | "numactl -P" | "numactl -b") shift 2 ;;
        *) shift ;;
      esac
    done
    exec "$@"
    ;;
  engine | client | frontend)
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then exit 0; fi
    exec "$FRONTIER_STANDIN_NODE" "$FRONTIER_STANDIN_CLI" standin "$kind" "$tool" "$@"
    ;;
esac
`;

/** Write the stand-ins into `bin` (idempotent): one script, a link per tool name. */
export function writeStandins(bin: string): void {
  mkdirSync(bin, { recursive: true });
  const script = join(bin, 'frontier-standin');
  writeFileSync(script, SCRIPT);
  chmodSync(script, 0o755);
  for (const tool of STANDIN_TOOLS) if (!existsSync(join(bin, tool))) symlinkSync('frontier-standin', join(bin, tool));
}
