#!/usr/bin/env bash
# dynamo-sglang-1p1d-tp8-dep16: deepseek-ai/DeepSeek-R1-0528 on h200
# Rendered by frontier: starts the engine, waits until it is ready, stops it on exit.
# Hosts: ${NODES[0]} ${NODES[1]} ${NODES[2]} (each process line runs on its host)
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

# etcd (infra; host ${NODES[0]}, no GPU)
etcd --data-dir dynamo-state/etcd --listen-client-urls http://0.0.0.0:2379 --advertise-client-urls \
    "http://${NODES[0]}:2379" \
    >"$LOG_DIR/etcd.log" 2>&1 &
pids+=($!)

# nats (infra; host ${NODES[0]}, no GPU)
nats-server -js -sd dynamo-state/nats -p 4222 \
    >"$LOG_DIR/nats.log" 2>&1 &
pids+=($!)

# frontend (frontend; host ${NODES[0]}, no GPU)
ETCD_ENDPOINTS="http://${NODES[0]}:2379" NATS_SERVER="nats://${NODES[0]}:4222" python3 -m \
    dynamo.frontend --http-port 8000 \
    >"$LOG_DIR/frontend.log" 2>&1 &
pids+=($!)

# prefill-0 (prefill; host ${NODES[0]}, GPUs 0,1,2,3,4,5,6,7)
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 HEAD_NODE_IP="${NODES[0]}" \
    ETCD_ENDPOINTS="http://${NODES[0]}:2379" NATS_SERVER="nats://${NODES[0]}:4222" \
    DYN_SYSTEM_PORT=8001 python3 -m dynamo.sglang --model-path /models/dsr1-fp8 --served-model-name \
    deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8002 --nccl-port 8003 --disaggregation-mode \
    prefill --disaggregation-transfer-backend mooncake --disaggregation-bootstrap-port 8004 \
    --tensor-parallel-size 8 --context-length 2248 --max-running-requests 256 --cuda-graph-max-bs \
    256 --kv-cache-dtype fp8_e4m3 \
    >"$LOG_DIR/prefill-0.log" 2>&1 &
pids+=($!)

# decode-0 (decode; host ${NODES[1]}, GPUs 0,1,2,3,4,5,6,7)
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 HEAD_NODE_IP="${NODES[0]}" \
    ETCD_ENDPOINTS="http://${NODES[0]}:2379" NATS_SERVER="nats://${NODES[0]}:4222" \
    DYN_SYSTEM_PORT=8001 python3 -m dynamo.sglang --model-path /models/dsr1-fp8 --served-model-name \
    deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8002 --nccl-port 8003 --disaggregation-mode \
    decode --disaggregation-transfer-backend mooncake --dist-init-addr "${NODES[1]}:8000" --nnodes 2 \
    --node-rank 0 --tensor-parallel-size 16 --data-parallel-size 16 --enable-dp-attention --ep-size \
    16 --context-length 2248 --max-running-requests 256 --cuda-graph-max-bs 16 --kv-cache-dtype \
    fp8_e4m3 \
    >"$LOG_DIR/decode-0.log" 2>&1 &
pids+=($!)

# decode-0-n1 (decode; host ${NODES[2]}, GPUs 0,1,2,3,4,5,6,7)
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 HEAD_NODE_IP="${NODES[0]}" \
    ETCD_ENDPOINTS="http://${NODES[0]}:2379" NATS_SERVER="nats://${NODES[0]}:4222" \
    DYN_SYSTEM_PORT=8000 python3 -m dynamo.sglang --model-path /models/dsr1-fp8 --served-model-name \
    deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8001 --nccl-port 8002 --disaggregation-mode \
    decode --disaggregation-transfer-backend mooncake --dist-init-addr "${NODES[1]}:8000" --nnodes 2 \
    --node-rank 1 --tensor-parallel-size 16 --data-parallel-size 16 --enable-dp-attention --ep-size \
    16 --context-length 2248 --max-running-requests 256 --cuda-graph-max-bs 16 --kv-cache-dtype \
    fp8_e4m3 \
    >"$LOG_DIR/decode-0-n1.log" 2>&1 &
pids+=($!)

# Ready when every probe answers 200: /health, /v1/models
for _ in $(seq 1 "${READY_ATTEMPTS:-120}"); do
  if curl -sf "http://${NODES[0]}:8000/health" | grep -qF -- '"component":"prefill"' && curl -sf "http://${NODES[0]}:8000/v1/models" | grep -qF -- deepseek-ai/DeepSeek-R1-0528; then
    echo "ready: http://${NODES[0]}:8000"
    wait -n "${pids[@]}"
    exit 1
  fi
  sleep "${READY_INTERVAL:-5}"
done
echo "not ready after ${READY_ATTEMPTS:-120} attempts" >&2
exit 1
