#!/usr/bin/env bash
# dynamo-sglang-5p2d-tp1-dep8: deepseek-ai/DeepSeek-R1-0528 on h200
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
ETCD_ENDPOINTS="http://${NODES[0]}:2379" NATS_SERVER="nats://${NODES[0]}:4222" \
    DYN_REQUEST_PLANE=nats python3 -m dynamo.frontend --http-port 8000 --router-mode kv \
    >"$LOG_DIR/frontend.log" 2>&1 &
pids+=($!)

# prefill-0 (prefill; host ${NODES[0]}, GPUs 0)
CUDA_VISIBLE_DEVICES=0 HEAD_NODE_IP="${NODES[0]}" ETCD_ENDPOINTS="http://${NODES[0]}:2379" \
    NATS_SERVER="nats://${NODES[0]}:4222" DYN_SYSTEM_PORT=8001 python3 -m dynamo.sglang --model-path \
    /models/dsr1-fp8 --served-model-name deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8002 \
    --nccl-port 8003 --disaggregation-mode prefill --disaggregation-transfer-backend nixl \
    --disaggregation-bootstrap-port 8004 --tensor-parallel-size 1 --context-length 2248 \
    --max-running-requests 256 --cuda-graph-max-bs 256 --kv-cache-dtype fp8_e4m3 --request-plane \
    nats \
    >"$LOG_DIR/prefill-0.log" 2>&1 &
pids+=($!)

# prefill-1 (prefill; host ${NODES[0]}, GPUs 1)
CUDA_VISIBLE_DEVICES=1 HEAD_NODE_IP="${NODES[0]}" ETCD_ENDPOINTS="http://${NODES[0]}:2379" \
    NATS_SERVER="nats://${NODES[0]}:4222" DYN_SYSTEM_PORT=8005 python3 -m dynamo.sglang --model-path \
    /models/dsr1-fp8 --served-model-name deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8006 \
    --nccl-port 8007 --disaggregation-mode prefill --disaggregation-transfer-backend nixl \
    --disaggregation-bootstrap-port 8008 --tensor-parallel-size 1 --context-length 2248 \
    --max-running-requests 256 --cuda-graph-max-bs 256 --kv-cache-dtype fp8_e4m3 --request-plane \
    nats \
    >"$LOG_DIR/prefill-1.log" 2>&1 &
pids+=($!)

# prefill-2 (prefill; host ${NODES[0]}, GPUs 2)
CUDA_VISIBLE_DEVICES=2 HEAD_NODE_IP="${NODES[0]}" ETCD_ENDPOINTS="http://${NODES[0]}:2379" \
    NATS_SERVER="nats://${NODES[0]}:4222" DYN_SYSTEM_PORT=8009 python3 -m dynamo.sglang --model-path \
    /models/dsr1-fp8 --served-model-name deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8010 \
    --nccl-port 8011 --disaggregation-mode prefill --disaggregation-transfer-backend nixl \
    --disaggregation-bootstrap-port 8012 --tensor-parallel-size 1 --context-length 2248 \
    --max-running-requests 256 --cuda-graph-max-bs 256 --kv-cache-dtype fp8_e4m3 --request-plane \
    nats \
    >"$LOG_DIR/prefill-2.log" 2>&1 &
pids+=($!)

# prefill-3 (prefill; host ${NODES[0]}, GPUs 3)
CUDA_VISIBLE_DEVICES=3 HEAD_NODE_IP="${NODES[0]}" ETCD_ENDPOINTS="http://${NODES[0]}:2379" \
    NATS_SERVER="nats://${NODES[0]}:4222" DYN_SYSTEM_PORT=8013 python3 -m dynamo.sglang --model-path \
    /models/dsr1-fp8 --served-model-name deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8014 \
    --nccl-port 8015 --disaggregation-mode prefill --disaggregation-transfer-backend nixl \
    --disaggregation-bootstrap-port 8016 --tensor-parallel-size 1 --context-length 2248 \
    --max-running-requests 256 --cuda-graph-max-bs 256 --kv-cache-dtype fp8_e4m3 --request-plane \
    nats \
    >"$LOG_DIR/prefill-3.log" 2>&1 &
pids+=($!)

# prefill-4 (prefill; host ${NODES[0]}, GPUs 4)
CUDA_VISIBLE_DEVICES=4 HEAD_NODE_IP="${NODES[0]}" ETCD_ENDPOINTS="http://${NODES[0]}:2379" \
    NATS_SERVER="nats://${NODES[0]}:4222" DYN_SYSTEM_PORT=8017 python3 -m dynamo.sglang --model-path \
    /models/dsr1-fp8 --served-model-name deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8018 \
    --nccl-port 8019 --disaggregation-mode prefill --disaggregation-transfer-backend nixl \
    --disaggregation-bootstrap-port 8020 --tensor-parallel-size 1 --context-length 2248 \
    --max-running-requests 256 --cuda-graph-max-bs 256 --kv-cache-dtype fp8_e4m3 --request-plane \
    nats \
    >"$LOG_DIR/prefill-4.log" 2>&1 &
pids+=($!)

# decode-0 (decode; host ${NODES[1]}, GPUs 0,1,2,3,4,5,6,7)
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 HEAD_NODE_IP="${NODES[0]}" \
    ETCD_ENDPOINTS="http://${NODES[0]}:2379" NATS_SERVER="nats://${NODES[0]}:4222" \
    DYN_SYSTEM_PORT=8000 python3 -m dynamo.sglang --model-path /models/dsr1-fp8 --served-model-name \
    deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8001 --nccl-port 8002 --disaggregation-mode \
    decode --disaggregation-transfer-backend nixl --tensor-parallel-size 8 --data-parallel-size 8 \
    --enable-dp-attention --ep-size 8 --context-length 2248 --max-running-requests 256 \
    --cuda-graph-max-bs 32 --kv-cache-dtype fp8_e4m3 --request-plane nats \
    >"$LOG_DIR/decode-0.log" 2>&1 &
pids+=($!)

# decode-1 (decode; host ${NODES[2]}, GPUs 0,1,2,3,4,5,6,7)
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 HEAD_NODE_IP="${NODES[0]}" \
    ETCD_ENDPOINTS="http://${NODES[0]}:2379" NATS_SERVER="nats://${NODES[0]}:4222" \
    DYN_SYSTEM_PORT=8000 python3 -m dynamo.sglang --model-path /models/dsr1-fp8 --served-model-name \
    deepseek-ai/DeepSeek-R1-0528 --host 0.0.0.0 --port 8001 --nccl-port 8002 --disaggregation-mode \
    decode --disaggregation-transfer-backend nixl --tensor-parallel-size 8 --data-parallel-size 8 \
    --enable-dp-attention --ep-size 8 --context-length 2248 --max-running-requests 256 \
    --cuda-graph-max-bs 32 --kv-cache-dtype fp8_e4m3 --request-plane nats \
    >"$LOG_DIR/decode-1.log" 2>&1 &
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
