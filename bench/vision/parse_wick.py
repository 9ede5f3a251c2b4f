#!/usr/bin/env python3
"""One JSON line from `wick bench` and `wick run --profile` logs of one model:

  python3 bench/vision/parse_wick.py MODEL BENCH_LOG PROFILE_LOG [TOOL]   (TOOL: "wick", or e.g. "wick_before")

`wick run --profile` runs the step several times (--profile-runs, default 6): the profile_*
figures are the medians of the calls after the first, the profile_first_* ones the first
call's (one-time costs included). Logs of older builds (one call) give the same keys from
that call, without the profile_first_* ones.
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
    m = re.search(r"us GPU time \(median of (\d+) calls after the first; the first call ([\d.]+) us\)", prof)
    if m:
        res["profile_calls"] = int(m[1]) + 1
        res["profile_first_gpu_ms"] = float(m[2]) / 1000
    m = re.search(r"step 0: forward ([\d.]+) ms wall", prof)
    if m:
        res["profile_forward_ms"] = float(m[1])
    m = re.search(r"step 0 first call: forward ([\d.]+) ms wall", prof)
    if m:
        res["profile_first_forward_ms"] = float(m[1])
    # The host summary of the medians follows the first call's: the last one is the medians'.
    host = re.findall(r"host time not waiting for the GPU ([\d.]+) ms", prof)
    if host:
        res["profile_host_not_waiting_ms"] = float(host[-1])
        if len(host) > 1:
            res["profile_first_host_not_waiting_ms"] = float(host[0])
    # Delegate calls' phases (the medians' section where there are several calls).
    rows = re.findall(r"\[upload ([\d.]+) ms [\d.]+ MiB \| prepare ([\d.]+) \| encode ([\d.]+) \| submit ([\d.]+) x\d+ \| "
                      r"wait ([\d.]+), GPU [\d.]+ \| readback ([\d.]+) ms", prof)
    calls = res.get("profile_calls", 1)
    if rows:
        last = rows[len(rows) // 2:] if calls > 1 else rows
        for k, name in enumerate(["upload", "prepare", "encode", "submit", "wait", "readback"]):
            res[f"profile_{name}_ms"] = round(sum(float(r[k]) for r in last), 3)
    m = re.search(r"conv/matmul/attention: (\d+) ops, ([\d.]+) GFLOP in ([\d.]+) us \(([\d.]+) TFLOP/s\)", prof)
    if m:
        res.update(profile_flop_ops=int(m[1]), profile_gflop=float(m[2]), profile_flop_tflops=float(m[4]))
    m = re.search(r"largest (\d+) by FLOPs: ([\d.]+) GFLOP in ([\d.]+) us \(([\d.]+) TFLOP/s\)", prof)
    if m:
        res.update(profile_top_ops=int(m[1]), profile_top_tflops=float(m[4]))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
