#!/usr/bin/env python3
"""PyTorch CUDA latency of one benchmark model (models.py, same weights as export.py):
eager and CUDA graph, fp32 with TF32 off (Wick and ORT's WebGPU EP compute in fp32 too).

  python3 bench/vision/torch_bench.py MODELS_DIR NAME... [--runs 100] [--max-seconds 10]

MODELS_DIR/NAME/ holds export.py's meta.json, input_I.bin and ref_I.bin. One call is timed
as Wick and ORT are: copy the host inputs into the GPU tensors, run, copy the outputs back to
the host (synchronising). Prints one JSON line per model: medians, and the largest difference of
the CUDA output from the CPU eager reference. Several models share one process, so that
importing torch and transformers is paid once.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402

from models import build  # noqa: E402


def timed(fn, runs, max_seconds):
    ms = []
    t0 = time.perf_counter()
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t) * 1e3)
        if time.perf_counter() - t0 > max_seconds:
            break
    ms.sort()
    return {"median_ms": ms[len(ms) // 2], "min_ms": ms[0], "max_ms": ms[-1], "runs": len(ms)}


def as_tuple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


def bench_one(name, models_dir, a):
    d = os.path.join(models_dir, name)
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    m, _, _ = build(name)
    xs = [torch.from_numpy(np.fromfile(os.path.join(d, i["file"]), dtype=getattr(np, i["dtype"])).reshape(i["shape"]))
          for i in meta["inputs"]]
    refs = [np.fromfile(os.path.join(d, o["file"]), dtype=np.float32) for o in meta["outputs"]]
    m = m.cuda()
    xg = [torch.empty_like(x, device="cuda") for x in xs]
    x_host = [x.pin_memory() for x in xs]
    res = {"model": name, "tool": f"torch {torch.__version__}", "device": torch.cuda.get_device_name()}

    def upload():
        for g, h in zip(xg, x_host):
            g.copy_(h, non_blocking=True)

    def eager():
        upload()
        with torch.no_grad():
            return [y.cpu() for y in as_tuple(m(*xg))]

    for _ in range(a.warmup):
        ys = eager()
    res["max_abs_diff_vs_cpu_ref"] = max(float(np.abs(y.numpy().ravel() - r).max()) for y, r in zip(ys, refs))
    res["eager"] = timed(eager, a.runs, a.max_seconds)
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s), torch.no_grad():
            for _ in range(3):
                m(*xg)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g), torch.no_grad():
            yg = as_tuple(m(*xg))

        def graphed():
            upload()
            g.replay()
            return [y.cpu() for y in yg]

        for _ in range(a.warmup):
            graphed()
        res["cuda_graph"] = timed(graphed, a.runs, a.max_seconds)
    except Exception as e:  # noqa: BLE001  (a model that cannot be captured still has its eager row)
        res["cuda_graph"] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models_dir")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--max-seconds", type=float, default=10)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    for name in a.names:
        if not os.path.exists(os.path.join(a.models_dir, name, "meta.json")):
            continue
        try:
            res = bench_one(name, a.models_dir, a)
        except Exception as e:  # noqa: BLE001  (one model failing must not lose the others)
            res = {"model": name, "tool": f"torch {torch.__version__}", "error": f"{type(e).__name__}: {str(e)[:300]}"}
        print(json.dumps(res), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
