#!/usr/bin/env bash
# sglang-tp16-2nodes: deepseek-ai/DeepSeek-R1-0528 on h200
# Rendered by frontier: starts the engine, waits until it is ready, stops it on exit.
# Hosts: ${NODES[0]} ${NODES[1]} (each process line runs on its host)
set -euo pipefail
LOG_DIR=${LOG_DIR:-./logs}
mkdir -p "$LOG_DIR"
pids=()
# shellcheck disable=SC2317 # cleanup runs from the trap
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true
  wait || true
}
trap cleanup EXIT INT TERM

# server (server; host ${NODES[0]}, GPUs 0,1,2,3,4,5,6,7)
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 python3 -m sglang.launch_server --model-path /models/dsr1-fp8 \
    --served-model-name deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8000 \
    --tensor-parallel-size 16 --context-length 2248 --max-running-requests 256 --cuda-graph-max-bs \
    256 --kv-cache-dtype fp8_e4m3 --dist-init-addr "${NODES[0]}:8001" --nnodes 2 --node-rank 0 \
    --enable-metrics \
    >"$LOG_DIR/server.log" 2>&1 &
pids+=($!)

# server-n1 (server; host ${NODES[1]}, GPUs 0,1,2,3,4,5,6,7)
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 python3 -m sglang.launch_server --model-path /models/dsr1-fp8 \
    --served-model-name deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8000 \
    --tensor-parallel-size 16 --context-length 2248 --max-running-requests 256 --cuda-graph-max-bs \
    256 --kv-cache-dtype fp8_e4m3 --dist-init-addr "${NODES[0]}:8001" --nnodes 2 --node-rank 1 \
    --enable-metrics \
    >"$LOG_DIR/server-n1.log" 2>&1 &
pids+=($!)

# Ready when every probe answers 200: /health, /v1/models
for _ in $(seq 1 "${READY_ATTEMPTS:-120}"); do
  if curl -sf "http://${NODES[0]}:8000/health" && curl -sf "http://${NODES[0]}:8000/v1/models" | grep -qF -- deepseek-ai/DeepSeek-R1-0528; then
    echo "ready: http://${NODES[0]}:8000"
    wait -n "${pids[@]}"
    exit 1
  fi
  sleep "${READY_INTERVAL:-5}"
done
echo "not ready after ${READY_ATTEMPTS:-120} attempts" >&2
exit 1
