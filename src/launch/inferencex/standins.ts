import { chmodSync, mkdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
  // What InferenceX's multi-node scripts that submit their own Slurm job start on each node
  // (benchmarks/multi_node/amd_utils/job.slurm): a container per node, found by its address.
  'docker',
  'ip',
  'hostname',
  'ibv_devinfo',
  // A job script's submission or allocation: recorded, and in a dry run not made; srun with
  // pyxis's container options (the test cluster has no pyxis), enroot's image import.
  'sbatch',
  'salloc',
  'srun',
  'enroot',
  'unsquashfs',
  // Astral's uv: InferenceX's agentic scripts make AIPerf's virtual environment with it.
  'uv',
  // What llm-d's job (benchmarks/multi_node/llm-d/server.sh) starts besides vLLM: the P/D routing
  // sidecar on each decode node, the endpoint picker (EPP) and Envoy in front of it.
  'pd-sidecar',
  'epp',
  'envoy',
] as const;

/**
 * Tools a container image ships that scripts call by absolute path (`/usr/local/bin/atomesh`, AMD
 * ATOM's router): in a stand-in container their stand-in is there (frontier-container).
 */
const IMAGE_TOOLS = ['/usr/local/bin/atomesh'] as const;

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
  // TileRT's decode server (its prefill is vllm serve).
  'tilert.pd_vllm.decode_server',
];

/** `python3 -m <module>` entry points that front workers: each becomes `frontier sim router` over the registered ones. */
export const FRONTEND_MODULES = ['dynamo.frontend', 'sglang_router.launch_router', 'tilert.pd_vllm.pd_router'];

/** The stand-in itself; `\${` is bash's `${`. */
const SCRIPT = `#!/usr/bin/env bash
# Frontier's stand-in for a GPU-only tool: records the call, then acts it out (docs/running.md).
invoked=$EPOCHREALTIME
tool=\${0##*/}
# A simulating cluster's GPUs: each sim registers the GPUs it holds here, per node, and the fake GPU
# monitors (frontier-smi) report them (docs/power.md).
if [[ "$FRONTIER_STANDIN_MODE" == run && -z "$FRONTIER_SIM_GPU_REGISTRY" ]]; then
  export FRONTIER_SIM_GPU_REGISTRY="$FRONTIER_STANDIN_DIR/gpus/\${FRONTIER_NODE_ADDR:-local}"
fi
real() {
  local IFS=: d
  # What the stand-in pip installed imports, and a simulating cluster's Python sleeps at its
  # speed (sitecustomize.py); a real cluster's Python is left alone.
  if [[ "$FRONTIER_STANDIN_MODE" != client && ( "$tool" == python3 || "$tool" == python ) ]]; then
    export PYTHONPATH="$FRONTIER_STANDIN_BIN/python-site\${PYTHONPATH:+:$PYTHONPATH}"
  fi
  # A virtual environment's python is the host's python3 where the host has no python.
  local names=("$tool")
  if [[ "$tool" == python ]]; then names+=(python3); fi
  for t in "\${names[@]}"; do
    for d in $FRONTIER_STANDIN_PATH; do
      if [[ -x "$d/$t" && "$d" != "$FRONTIER_STANDIN_BIN" ]]; then exec "$d/$t" "$@"; fi
    done
  done
  echo "$tool: command not found" >&2
  exit 127
}
# A client on a node of a simulating cluster means the node itself by 0.0.0.0 or localhost: its
# own loopback address (frontier-node-addr), where its servers listen. (127.0.0.1 is the first
# node's address: scripts use it by name.)
on_this_node() {
  local a=$FRONTIER_NODE_ADDR x h
  args=()
  for x in "$@"; do
    if [[ -n "$a" ]]; then
      for h in 0.0.0.0 localhost; do x=\${x//"//$h:"/"//$a:"}; done
    fi
    args+=("$x")
  done
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
            *)
              case "$2" in
                pip) kind=pip ;;
                # lm-evaluation-harness (run_lm_eval): frontier eval run (src/evals/lm-eval-args.ts).
                lm_eval) kind=eval ;;
                tilert.models.preprocess.weight_converter) kind=convert ;;
                *) real "$@" ;;
              esac
              ;;
          esac
          ;;
      esac
    elif [[ "$1" == */bench_serving/benchmark_serving.py ]]; then
      kind=client
    else
      real "$@"
    fi
    ;;
  pip | pip3) kind=pip ;;
  hf | huggingface-cli) kind=noop ;;
  enroot | unsquashfs) kind=image ;;
  uv)
    # The virtual environment InferenceX's agentic scripts install AIPerf into: its python is the
    # host's, its aiperf and hf are stand-ins (what \`uv pip install\` would put there).
    kind=noop
    if [[ "$1" == venv ]]; then
      venv=\${!#}
      mkdir -p "$venv/bin"
      for t in python aiperf hf; do ln -sfn "$FRONTIER_STANDIN_BIN/frontier-standin" "$venv/bin/$t"; done
    fi
    ;;
  aiperf)
    # AIPerf's trace replay becomes frontier bench --trace (src/engines/standin/aiperf.ts).
    if [[ "$1" == profile ]]; then kind=client; else kind=noop; fi
    ;;
  nvidia-smi | amd-smi | rocm-smi) kind=gpu ;;
  mpirun | numactl | trtllm-llmapi-launch) kind=launcher ;;
  nginx) kind=frontend ;;
  docker)
    case "$1" in
      run) kind=container ;;
      # No containers outlive their command here: nothing to list, stop, remove or pull.
      *) exit 0 ;;
    esac
    ;;
  ip)
    # A node's address: on a simulating cluster the nodes share this host, so each has its own
    # loopback address (frontier-node-addr), which the scripts read with \`ip route get\`.
    if [[ "$1 $2" == "route get" ]]; then
      addr=$("$FRONTIER_STANDIN_BIN/frontier-node-addr")
      echo "$3 via $addr dev lo src $addr uid $(id -u)"
      exit 0
    fi
    real "$@"
    ;;
  sbatch | salloc) kind=job ;;
  srun)
    case " $* " in
      *" --container-image"*) kind=container ;;
      *) real "$@" ;;
    esac
    ;;
  atomesh) if [[ "$1" == launch ]]; then kind=frontend; fi ;;
  epp) kind=frontend ;;
  envoy | pd-sidecar) kind=proxy ;;
  ibv_devinfo)
    # A node's RDMA NICs (eight, as on InferenceX's MI355X nodes), for scripts that look them up.
    for i in {0..7}; do printf 'hca_id:\trdma%d\n' "$i"; done
    exit 0
    ;;
  hostname)
    # Each node's own name (the nodes of a simulating cluster share this host's).
    if [[ -n "$FRONTIER_NODE_NAME$SLURMD_NODENAME" && "$1" != -* || "$1" == -s ]]; then
      echo "\${FRONTIER_NODE_NAME:-$SLURMD_NODENAME}"
      exit 0
    fi
    real "$@"
    ;;
  sleep)
    # A dry run only records: the script's waits need not wait.
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then real 0.01; fi
    # A simulating cluster runs its scripts' waits at the sim's speed ($FRONTIER_TIME_SCALE).
    if [[ "$FRONTIER_STANDIN_MODE" == run && "$#" == 1 && "$1" =~ ^[0-9.]+$ && -n "$FRONTIER_TIME_SCALE" ]]; then
      real "$(awk -v s="$1" -v k="$FRONTIER_TIME_SCALE" 'BEGIN { printf "%.3f", s / k }')"
    fi
    real "$@"
    ;;
  curl)
    if [[ "$FRONTIER_STANDIN_MODE" == run ]]; then
      on_this_node "$@"
      real "\${args[@]}"
    fi
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
# (uv's environment stays the stand-ins', so that its aiperf is frontier bench.)
if [[ "$FRONTIER_STANDIN_MODE" == client && "$kind" != client && "$tool" != uv ]]; then real "$@"; fi
case "$kind" in
  noop | other) exit 0 ;;
  gpu)
    # rocm-smi's memory use, which AMD scripts poll until a previous job's memory is reclaimed:
    # the node's GPUs, none in use before the script's engine starts.
    if [[ $tool == rocm-smi && " $* " == *" --showmemuse "* ]]; then
      for ((i = 0; i < \${FRONTIER_SIM_NODE_GPUS:-8}; i++)); do
        printf 'GPU[%d]\t\t: GPU Memory Allocated (VRAM%%): 0\n' "$i"
      done
      exit 0
    fi
    # A monitor loop (-l/-w) runs until it is stopped; a one-shot query answers nothing.
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then exit 0; fi
    # On a simulating cluster nvidia-smi and amd-smi report the sims' GPUs (frontier-smi).
    # They read the GPUs as of this call (FRONTIER_SIM_SMI_INVOKED), not after Node has started.
    if [[ "$FRONTIER_STANDIN_MODE" == run && "$tool" != rocm-smi ]]; then
      FRONTIER_SIM_SMI_INVOKED=$invoked exec "$FRONTIER_STANDIN_BIN/frontier-smi" "$tool" "$@"
    fi
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
  job)
    # A dry run submits nothing: sbatch's job is 0; an allocation, which the script would go on
    # to use, ends the script here.
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then
      if [[ $tool == salloc ]]; then kill -KILL 0; fi
      echo 0
      exit 0
    fi
    real "$@"
    ;;
  container)
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then exit 0; fi
    exec "$FRONTIER_STANDIN_BIN/frontier-container" "$tool" "$@"
    ;;
  pip)
    # What it is asked to install counts as installed: each requirement's metadata (its pinned
    # version) in the stand-ins' Python path, where its modules import as empty ones.
    site="$FRONTIER_STANDIN_BIN/python-site" skip=0
    for a in "$@"; do
      if [[ $skip == 1 ]]; then skip=0; continue; fi
      case "$a" in
        -m | pip | install) ;;
        -i | --index-url | --extra-index-url | -r | -c | -t | --target) skip=1 ;;
        -*) ;;
        *)
          name=\${a%%[<>=!~]*} version=0+frontier.standin
          if [[ "$a" == *==* ]]; then version=\${a#*==}; fi
          name=\${name,,} name=\${name//-/_}
          # The module a distribution installs, where its name is not the distribution's.
          case "$name" in
            mooncake_transfer_engine*) echo mooncake >>"$site/installed.txt" ;;
          esac
          rm -rf "$site/$name"-*.dist-info
          mkdir -p "$site/$name-$version.dist-info"
          printf 'Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n' "$name" "$version" >"$site/$name-$version.dist-info/METADATA"
          echo "$name" >>"$site/installed.txt"
          ;;
      esac
    done
    exit 0
    ;;
  image)
    # enroot's image import writes a stand-in squash file (no layers: the host's tools stand in for
    # the image); unsquashfs -l lists one and, as on anything that is not a squash, fails otherwise.
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then exit 0; fi
    marker="frontier stand-in squash"
    case "$tool $1" in
      "enroot import")
        shift
        out= uri=
        while [[ $# -gt 0 ]]; do
          case "$1" in
            -o | --output) out=$2; shift 2 ;;
            --output=*) out=\${1#*=}; shift ;;
            -*) shift ;;
            *) uri=$1; shift ;;
          esac
        done
        [[ -n "$uri" ]] || { echo "enroot import: no image URI" >&2; exit 1; }
        if [[ -z "$out" ]]; then out=\${uri##*/}; out=\${out//[:#]/+}.sqsh; fi
        [[ ! -e "$out" ]] || { echo "enroot import: $out already exists" >&2; exit 1; }
        printf '%s of %s\\n' "$marker" "$uri" >"$out"
        exit 0
        ;;
      "unsquashfs -l")
        file=\${!#}
        if [[ -f "$file" ]] && IFS= read -r line <"$file" && [[ "$line" == "$marker of "* ]]; then
          echo "squashfs-root"
          exit 0
        fi
        echo "unsquashfs: $file is not a squash file (one enroot import made here)" >&2
        exit 1
        ;;
    esac
    exit 0
    ;;
  convert)
    # A checkpoint conversion: its output's index, no weights.
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then exit 0; fi
    while [[ $# -gt 0 ]]; do
      if [[ "$1" == --save_dir || "$1" == --save-dir ]]; then mkdir -p "$2" && echo '{}' >"$2/model.safetensors.index.json"; fi
      shift
    done
    exit 0
    ;;
  engine | client | frontend | proxy | eval)
    if [[ "$FRONTIER_STANDIN_MODE" == record ]]; then exit 0; fi
    on_this_node "$@"
    exec "$FRONTIER_STANDIN_NODE" "$FRONTIER_STANDIN_CLI" standin "$kind" "$tool" "\${args[@]}"
    ;;
esac
`;

/**
 * This node's loopback address: 127.0.0.1 for the first node of the job (where clients reach what
 * listens on 0.0.0.0), 127.0.0.2 for the next… Outside a job, or in a container that was given
 * it, $FRONTIER_NODE_ADDR, else 127.0.0.1. With --hosts: every node's, as /etc/hosts lines (the
 * cluster's name resolution, which containers get).
 */
const NODE_ADDR = `#!/usr/bin/env bash
if [[ "$1" != --hosts && -n "$FRONTIER_NODE_ADDR" ]]; then echo "$FRONTIER_NODE_ADDR"; exit 0; fi
# The allocation's nodes (a step's own SLURM_JOB_NODELIST may name only the step's).
nodes=$(squeue -h -j "$SLURM_JOB_ID" -o %N 2>/dev/null || true)
i=1
for n in $(scontrol show hostnames "\${nodes:-$SLURM_JOB_NODELIST}" 2>/dev/null); do
  if [[ "$1" == --hosts ]]; then echo "127.0.0.$i $n"
  elif [[ "$n" == "$SLURMD_NODENAME" ]]; then echo "127.0.0.$i"; exit 0; fi
  i=$((i + 1))
done
if [[ "$1" != --hosts ]]; then echo 127.0.0.1; fi
`;

/**
 * frontier-smi TOOL ARGS…: the simulated nvidia-smi / amd-smi over the node's simulated GPUs
 * (`frontier sim smi`, src/sim/smi.ts), reading the sims' GPU registry.
 */
const SMI = `#!/usr/bin/env bash
exec "$FRONTIER_STANDIN_NODE" \${FRONTIER_STANDIN_CLI:+"$FRONTIER_STANDIN_CLI"} sim smi "$@"
`;

/**
 * \`docker run\` on a simulating cluster: the command runs on this host in private mount and PID
 * namespaces, as a container's does: its root is assembled from the host's top-level folders with
 * the container's volumes (-v) mounted over them, so its paths are the container's (/workspace,
 * /models…) and the host's root is left as it was, and what it leaves running ends when it does.
 * Its environment is what -e gives it, plus the stand-ins' own settings and the node's name and
 * address. Needs root (unshare).
 */
const CONTAINER = `#!/usr/bin/env bash
set -euo pipefail
if [[ "$1" == srun ]]; then
  # pyxis: srun's container options become this container, on the node srun runs it on; the
  # container keeps the task's whole environment, as pyxis does.
  shift
  opts=() here=(docker run --env-all)
  while [[ $# -gt 0 && "$1" == -* ]]; do
    o=$1
    shift
    case "$o" in
      --container-mounts=*) IFS=, read -ra m <<<"\${o#*=}"; for x in "\${m[@]}"; do here+=(-v "$x"); done ;;
      --container-workdir=*) here+=(-w "\${o#*=}") ;;
      --container-mounts) IFS=, read -ra m <<<"$1"; shift; for x in "\${m[@]}"; do here+=(-v "$x"); done ;;
      --container-workdir) here+=(-w "$1"); shift ;;
      --container-image | --container-name | --container-env) shift ;;
      --container-* | --no-container-*) ;;
      --*=*) opts+=("$o") ;;
      -N | -n | -c | -w | -p | -A | -t | -J | -o | -e | -D | --jobid | --nodelist | --nodes | --ntasks | --partition | --account | --time | --job-name | --output | --error | --chdir | --export | --gres | --gpus | --mem | --cpus-per-task | --ntasks-per-node) opts+=("$o" "$1"); shift ;;
      *) opts+=("$o") ;;
    esac
  done
  for d in \${FRONTIER_STANDIN_PATH//:/ }; do
    if [[ -x "$d/srun" ]]; then exec "$d/srun" "\${opts[@]}" "$0" "\${here[@]}" pyxis-image "$@"; fi
  done
  echo "srun: command not found" >&2
  exit 127
fi
shift # docker
shift # run
volumes=() envs=() workdir=/ detach=0 all=0
while [[ $# -gt 0 && "$1" == -* ]]; do
  opt=$1 value=
  if [[ "$opt" == --*=* ]]; then value=\${opt#*=} opt=\${opt%%=*}; fi
  case "$opt" in
    --env-all) all=1; shift; continue ;;
    -d | --detach) detach=1; shift; continue ;;
    --init | --privileged | --rm | -i | -t | -it | --interactive | --tty | --no-healthcheck) shift; continue ;;
  esac
  if [[ -z "$value" ]]; then value=$2; shift; fi
  shift
  case "$opt" in
    -v | --volume) volumes+=("$value") ;;
    -e | --env) envs+=("$value") ;;
    -w | --workdir) workdir=$value ;;
  esac
done
[[ $# -gt 0 ]] || { echo "docker run: no image" >&2; exit 125; }
shift # the image: the host's tools stand in for it
[[ $# -gt 0 ]] || { echo "docker run: the image's default command cannot run here; give one" >&2; exit 125; }
node=$(hostname)
addr=$("$FRONTIER_STANDIN_BIN/frontier-node-addr")
environment=()
if [[ $all == 1 ]]; then
  while IFS= read -r name; do environment+=("$name=\${!name}"); done < <(compgen -e)
else
  environment+=("PATH=$FRONTIER_STANDIN_BIN:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "HOME=$FRONTIER_STANDIN_HOME")
  while IFS= read -r name; do environment+=("$name=\${!name}"); done < <(compgen -e | grep -E '^FRONTIER_(STANDIN|SIM|BENCH|TIME)_' || true)
fi
environment+=("FRONTIER_NODE_NAME=$node" "FRONTIER_NODE_ADDR=$addr")
for e in "\${envs[@]}"; do
  if [[ "$e" == *=* ]]; then environment+=("$e"); elif [[ -v "$e" ]]; then environment+=("$e=\${!e}"); fi
done
root=$(mktemp -d "$FRONTIER_STANDIN_DIR/root.XXXXXX")
hosts=$(mktemp "$FRONTIER_STANDIN_DIR/hosts.XXXXXX")
{ cat /etc/hosts; "$FRONTIER_STANDIN_BIN/frontier-node-addr" --hosts; } >"$hosts"
setup='
set -e
root=$1 workdir=$2 hosts=$3 n=$4
shift 4
hostdirs=" "
for e in /*; do
  name=\${e#/}
  if [[ -L "$e" ]]; then ln -s "$(readlink "$e")" "$root/$name"
  elif [[ -d "$e" ]]; then mkdir "$root/$name"; mount --rbind "$e" "$root/$name"; hostdirs+="$name "
  fi
done
# What the container writes in a folder of the host (its /tmp; the mount points its volumes need
# there, such as /etc/epp) is its own, as a container root is: an overlay of the host folder with a
# private upper layer, in memory. The folder of the stand-ins stays the host one (their records).
private=$root.private
mkdir -p "$private"
mount -t tmpfs tmpfs "$private"
own() {
  [[ ! -d "$private/$1" ]] || return 0
  mkdir -p "$private/$1/upper" "$private/$1/work"
  umount -l "$root/$1"
  mount -t overlay overlay -o "lowerdir=/$1,upperdir=$private/$1/upper,workdir=$private/$1/work" "$root/$1"
  if [[ "$FRONTIER_STANDIN_DIR" == "/$1/"* ]]; then mount --bind "$FRONTIER_STANDIN_DIR" "$root$FRONTIER_STANDIN_DIR"; fi
}
if [[ "$hostdirs" == *" tmp "* ]]; then own tmp; fi
for v in "\${@:1:n}"; do
  IFS=: read -r source target mode <<<"$v"
  top=\${target#/} top=\${top%%/*}
  if [[ "$target" == /*/* && ! -e "$root$target" && "$hostdirs" == *" $top "* ]]; then own "$top"; fi
done
for ((i = 0; i < n; i++)); do
  IFS=: read -r source target mode <<<"$1"
  shift
  [[ -e "$source" ]] || mkdir -p "$source"
  if [[ -d "$source" ]]; then mkdir -p "$root$target"; else mkdir -p "$(dirname "$root$target")"; touch "$root$target"; fi
  mount --rbind "$source" "$root$target"
  if [[ "$mode" == ro ]]; then mount -o remount,bind,ro "$root$target"; fi
done
# Tools of the image that scripts call by path: an overlay of their stand-ins.
for d in "$FRONTIER_STANDIN_BIN"/image/*; do
  mount -t overlay overlay -o "lowerdir=$d:/\${d##*/}" "$root/\${d##*/}"
done
mount --bind "$hosts" "$root/etc/hosts"
mount -t proc proc "$root/proc"
cd "$root$workdir"
# As the init of the container: what the command leaves running ends with it.
chroot "$root" env -i "$@" &
child=$!
trap "kill -TERM $child 2>/dev/null" TERM INT HUP
while :; do
  wait "$child"
  rc=$?
  kill -0 "$child" 2>/dev/null || exit "$rc"
done
'
run=(unshare --mount --propagation private --pid --fork -- bash -c "$setup" setup "$root" "$workdir" "$hosts" "\${#volumes[@]}" "\${volumes[@]}" "\${environment[@]}" sh -c 'cd "$0" && exec "$@"' "$workdir" "$@")
if [[ $detach == 1 ]]; then
  "\${run[@]}" >/dev/null 2>&1 &
  echo "standin-$!"
else
  exec "\${run[@]}"
fi
`;

/** Python's sleeps at the simulated cluster's speed, for the scripts' own Python (sync barriers…). */
const SITECUSTOMIZE = `import importlib.abc, importlib.machinery, os, sys, time

_scale = float(os.environ.get("FRONTIER_TIME_SCALE") or 1)
if _scale > 1:
    _sleep = time.sleep
    time.sleep = lambda seconds: _sleep(seconds / _scale)


class _Installed(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """What the stand-in pip installed imports, as empty modules (after every real one)."""

    def find_spec(self, name, path=None, target=None):
        try:
            with open(os.path.join(os.path.dirname(__file__), "installed.txt")) as f:
                installed = f.read().split()
        except OSError:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True) if name.split(".")[0] in installed else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__path__ = []
        module.__getattr__ = _placeholder


def _placeholder(name):
    """\`from package import Name\` of an installed stand-in: a placeholder class."""
    if name.startswith("__"):
        raise AttributeError(name)
    return type(name, (), {})


sys.meta_path.append(_Installed())
`;

/** Python packages the engines' images have (by their metadata), for scripts that check: vLLM's. */
const IMAGE_PACKAGES = ['vllm'] as const;

/** Write the stand-ins into `bin` (idempotent): one script, a link per tool name. */
export function writeStandins(bin: string): void {
  mkdirSync(bin, { recursive: true });
  const script = join(bin, 'frontier-standin');
  writeFileSync(script, SCRIPT);
  chmodSync(script, 0o755);
  for (const [name, text] of [
    ['frontier-node-addr', NODE_ADDR],
    ['frontier-container', CONTAINER],
    ['frontier-smi', SMI],
  ] as const) {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  }
  for (const path of IMAGE_TOOLS) {
    const link = join(bin, 'image', path);
    mkdirSync(dirname(link), { recursive: true });
    if (!existsSync(link)) symlinkSync(script, link);
  }
  const site = join(bin, 'python-site');
  mkdirSync(site, { recursive: true });
  writeFileSync(join(site, 'sitecustomize.py'), SITECUSTOMIZE);
  for (const name of IMAGE_PACKAGES) {
    const dist = join(site, `${name}-0+frontier.standin.dist-info`);
    mkdirSync(dist, { recursive: true });
    writeFileSync(join(dist, 'METADATA'), `Metadata-Version: 2.1\nName: ${name}\nVersion: 0+frontier.standin\n`);
  }
  for (const tool of STANDIN_TOOLS) if (!existsSync(join(bin, tool))) symlinkSync('frontier-standin', join(bin, tool));
}
