#!/usr/bin/env python3
"""Write test/fixtures/agentic/store/run: a run directory with agentic points, aggregated by
InferenceX's own utils/agentic/aggregation/process_agentic_result.py.

    python3 scripts/agentic-store-fixture.py --inferencex CHECKOUT [--out test/fixtures/agentic/store/run]

Synthetic AIPerf artifacts (profile_export.jsonl records in AIPerf's format, profile_export_aiperf.json
with the theoretical prefix-cache metric and dataset metadata, a vLLM server_metrics_export.json and
a server.log naming the KV pool) for two configs at three concurrencies; the reference processor
aggregates each. Every point keeps its aggregate as bmk_agentic_<RF>/<RF>.json; the raw records
are kept for the first config only (they are optional for ingest).
"""
import argparse
import json
import math
import statistics
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CONFIGS = [
    {"name": "gpu", "KV_OFFLOADING": "none", "TOTAL_CPU_DRAM_GB": "0", "raw": True},
    {
        "name": "dram",
        "KV_OFFLOADING": "dram",
        "KV_OFFLOAD_BACKEND": "vllm-simple",
        "KV_OFFLOAD_BACKEND_METADATA": json.dumps({"name": "vllm-simple"}),
        "TOTAL_CPU_DRAM_GB": "1024",
        "raw": False,
    },
]
CONCS = [4, 8, 16]


def record(rng, conv, turn, isl, osl, ttft_ms, itl_ms, start_ns, phase="profiling", error=None):
    e2e_ms = ttft_ms + itl_ms * (osl - 1)
    return {
        "metadata": {
            "session_num": 0,
            "x_correlation_id": f"{conv}-{turn}",
            "conversation_id": conv,
            "turn_index": turn,
            "request_start_ns": start_ns,
            "request_ack_ns": start_ns + 100_000,
            "request_end_ns": start_ns + int(e2e_ms * 1e6),
            "worker_id": "worker_0",
            "benchmark_phase": phase,
            "was_cancelled": False,
            "cancellation_time_ns": None,
        },
        "metrics": {
            "input_sequence_length": {"value": isl, "unit": "tokens"},
            "output_sequence_length": {"value": osl, "unit": "tokens"},
            "time_to_first_token": {"value": round(ttft_ms, 3), "unit": "ms"},
            "request_latency": {"value": round(e2e_ms, 3), "unit": "ms"},
            "inter_token_latency": {"value": round(itl_ms, 4), "unit": "ms"},
        },
        "error": error,
    }


def artifacts(result_dir, cfg, conc, seed):
    rng = random.Random(seed)
    art = result_dir / "aiperf_artifacts"
    art.mkdir(parents=True)
    offload = cfg["KV_OFFLOADING"] != "none"
    lines = []
    t = 1_000_000_000_000
    for session in range(conc * 2):
        isl = rng.randint(2_000, 6_000)
        start = t + session * 400_000_000
        for turn in range(rng.randint(2, 5)):
            osl = rng.randint(80, 600)
            # Prefill of the uncached part: slower with context and with load.
            ttft = 40 + isl / 1000 * (6 + conc * 0.8) * rng.uniform(0.7, 1.3)
            itl = (9 + conc * 0.9) * rng.uniform(0.9, 1.1)
            phase = "warmup" if session == 0 and turn == 0 else "profiling"
            lines.append(record(rng, f"trace-{seed}-{session}", turn, isl, osl, ttft, itl, start, phase))
            start += int((ttft + itl * osl) * 1e6) + rng.randint(500, 3000) * 1_000_000
            isl = min(isl * rng.uniform(1.6, 2.6) + osl, 180_000)
            isl = int(isl)
    lines.append(record(rng, "trace-err", 0, 4096, 1, 0, 0, t, error={"type": "ReadTimeout", "message": "timed out"}))
    with open(art / "profile_export.jsonl", "w") as f:
        for r in lines:
            f.write(json.dumps(r) + "\n")
    hits = 900 + conc * 3
    with open(art / "profile_export_aiperf.json", "w") as f:
        json.dump(
            {
                "request_count": len(lines),
                "theoretical_prefix_cache_hit": {"unit": "%", "avg": hits / 10, "count": 1000, "sum": hits},
                "metadata": {
                    "dataset": {
                        "source_type": "public_dataset",
                        "loader": "semianalysis_cc_traces_weka_with_subagents",
                        "hf_dataset_name": "semianalysisai/cc-traces-weka-062126",
                        "hf_split": "train",
                        "num_dataset_entries": 393,
                    }
                },
            },
            f,
        )
    gpu_hit = 0.86 - conc * 0.012 - (0.05 if offload else 0)
    series = lambda stats: [{"endpoint_url": "http://localhost:8888/metrics", "labels": {"model_name": "m"}, "stats": stats}]
    metrics = {
        "vllm:prefix_cache_hits": {"type": "counter", "series": series({"total": round(1e6 * gpu_hit)})},
        "vllm:prefix_cache_queries": {"type": "counter", "series": series({"total": 1e6})},
        "vllm:prompt_tokens": {"type": "counter", "series": series({"total": 1e6})},
        "vllm:generation_tokens": {"type": "counter", "series": series({"total": 2e4 * conc})},
        "vllm:kv_cache_usage_perc": {"type": "gauge", "series": series({"avg": 0.3 + conc * 0.03, "max": 0.4 + conc * 0.035})},
    }
    if offload:
        metrics["vllm:external_prefix_cache_hits"] = {"type": "counter", "series": series({"total": round(1e6 * (0.04 + conc * 0.01))})}
        metrics["vllm:external_prefix_cache_queries"] = {"type": "counter", "series": series({"total": 1e6})}
        metrics["vllm:cpu_kv_cache_usage_perc"] = {"type": "gauge", "series": series({"max": 0.1 + conc * 0.02})}
    with open(art / "server_metrics_export.json", "w") as f:
        json.dump({"schema_version": "1.0", "metrics": metrics}, f)
    (result_dir / "server.log").write_text("(EngineCore pid=123) INFO GPU KV cache size: 1,048,576 tokens\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--inferencex", required=True)
    ap.add_argument("--out", default="test/fixtures/agentic/store/run")
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "run.json").write_text(
        json.dumps(
            {
                "frontier": "test",
                "id": "20261201T120000-agentic1",
                "started": "2026-12-01T12:00:00Z",
                "ended": "2026-12-01T14:00:00Z",
                "status": "completed",
                "commit": "c" * 40,
                "matrix": {"file": "matrix.json", "sha256": "d" * 64},
                "cluster": {"name": "h200-lab"},
            },
            indent=2,
        )
        + "\n"
    )
    seed = 0
    expected = {}
    for cfg in CONFIGS:
        for conc in CONCS:
            seed += 1
            rf = f"dsr1_fp8_vllm_tp8-ep1-dpafalse_kv-{cfg['name']}_agentic_conc{conc}_h200-nv_0"
            with tempfile.TemporaryDirectory() as tmp:
                result_dir = Path(tmp) / "results"
                artifacts(result_dir, cfg, conc, seed)
                env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFILL_", "DECODE_"))}
                env.update(
                    {
                        "RESULT_DIR": str(result_dir),
                        "AGENTIC_OUTPUT_DIR": str(Path(tmp) / "out"),
                        "RESULT_FILENAME": rf,
                        "MODEL": "deepseek-ai/DeepSeek-R1-0528",
                        "MODEL_PREFIX": "dsr1",
                        "FRAMEWORK": "vllm",
                        "PRECISION": "fp8",
                        "TP": "8",
                        "EP_SIZE": "1",
                        "DP_ATTENTION": "false",
                        "CONC": str(conc),
                        "RUNNER_TYPE": "h200-nv_0",
                        "IMAGE": "vllm/vllm-openai:v0.11.0",
                        "RECIPE_FINGERPRINT": "",
                        "SPEC_DECODING": "none",
                        "DISAGG": "false",
                        "IS_MULTINODE": "false",
                        "HF_HUB_CACHE": str(Path(tmp) / "no_hf_cache"),
                        **{k: v for k, v in cfg.items() if k.isupper()},
                    }
                )
                subprocess.run(
                    [sys.executable, "-m", "utils.agentic.aggregation.process_agentic_result"],
                    cwd=args.inferencex,
                    env=env,
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
                bmk = out / f"bmk_agentic_{rf}"
                bmk.mkdir()
                shutil.copy(Path(tmp) / "out" / f"{rf}.json", bmk / f"{rf}.json")
                if cfg["raw"]:
                    raw = out / f"agentic_{rf}" / "aiperf_artifacts"
                    raw.mkdir(parents=True)
                    shutil.copy(result_dir / "aiperf_artifacts" / "profile_export.jsonl", raw)
                    expected[rf] = ttft_by_context(args.inferencex, raw / "profile_export.jsonl")
    (out.parent / "ttft-by-context.expected.json").write_text(json.dumps(expected, indent=2) + "\n")


def ttft_by_context(inferencex, jsonl):
    """TTFT percentiles per input-length bucket (<8k, then powers of two), with the reference's
    record filter (profiling phase, no error) and its percentile (linear interpolation)."""
    sys.path.insert(0, inferencex)
    from utils.agentic.aggregation.aggregation_common import percentile
    from utils.agentic.aggregation.request_metrics import load_records

    buckets = {}
    for r in load_records(jsonl):
        isl = r["metrics"]["input_sequence_length"]["value"]
        ttft = r["metrics"]["time_to_first_token"]["value"] / 1000.0
        if not ttft > 0:
            continue
        lo = 0 if isl < 8192 else 8192 * 2 ** int(math.log2(isl / 8192))
        buckets.setdefault(lo, []).append(ttft)
    return [
        {
            "min_tokens": lo,
            "max_tokens": 8192 if lo == 0 else lo * 2,
            "count": len(v),
            "mean": statistics.mean(v),
            "p50": percentile(v, 50),
            "p90": percentile(v, 90),
            "p99": percentile(v, 99),
        }
        for lo, v in sorted(buckets.items())
    ]


if __name__ == "__main__":
    main()
