#!/usr/bin/env python3
"""One JSON line from `wick bench` and `wick run --profile` logs of one model:

  python3 bench/vision/parse_wick.py MODEL BENCH_LOG PROFILE_LOG [TOOL]   (TOOL: "wick", or e.g. "wick_before")
"""

import json
import re
import sys


def main():
    model, bench_log, profile_log = sys.argv[1:4]
    res = {"model": model, "tool": sys.argv[4] if len(sys.argv) > 4 else "wick"}
    bench = open(bench_log).read()
    m = re.search(r"median ([\d.]+) ms, min ([\d.]+) ms, max ([\d.]+) ms over (\d+) runs", bench)
    if m:
        res.update(median_ms=float(m[1]), min_ms=float(m[2]), max_ms=float(m[3]), runs=int(m[4]))
    else:
        res["error"] = bench.strip().splitlines()[-3:] if bench.strip() else "no output"
    m = re.search(r"webgpu: (\d+) graph\(s\), (\d+) dispatches", bench)
    if m:
        res.update(graphs=int(m[1]), dispatches=int(m[2]))
    try:
        prof = open(profile_log).read()
    except OSError:
        prof = ""
    m = re.search(r"total: (\d+) dispatches, ([\d.]+) us GPU time", prof)
    if m:
        res["profile_gpu_ms"] = float(m[2]) / 1000
    m = re.search(r"step 0: forward ([\d.]+) ms wall", prof)
    if m:
        res["profile_forward_ms"] = float(m[1])
    m = re.search(r"host time not waiting for the GPU ([\d.]+) ms", prof)
    if m:
        res["profile_host_not_waiting_ms"] = float(m[1])
    print(json.dumps(res))


if __name__ == "__main__":
    main()
