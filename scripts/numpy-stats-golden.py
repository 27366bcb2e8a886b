#!/usr/bin/env python3
"""Golden statistics for src/bench/stats.ts, computed with numpy exactly as the reference client
does (np.mean, np.std, np.median, np.percentile): writes test/fixtures/bench/numpy-stats.json.
Run with any Python 3 that has numpy; the samples are seeded, so the file is reproducible."""
import json
import sys

import numpy as np

rng = np.random.default_rng(7)
cases = []
for n in [1, 2, 7, 8, 9, 127, 128, 129, 1000, 4099]:
    for kind in ["uniform", "lognormal"]:
        xs = rng.uniform(0, 50, n) if kind == "uniform" else rng.lognormal(3, 1, n)
        xs = [float(x) for x in xs]
        cases.append({
            "values": xs,
            "mean": float(np.mean(xs)),
            "std": float(np.std(xs)),
            "median": float(np.median(xs)),
            "percentiles": {str(p): float(np.percentile(xs, p)) for p in [0, 25, 50, 90, 99, 99.9, 100]},
        })
json.dump({"numpy": np.__version__, "cases": cases}, open(sys.argv[1] if len(sys.argv) > 1 else "test/fixtures/bench/numpy-stats.json", "w"))  # then: gzip -9 it
