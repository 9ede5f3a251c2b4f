#!/usr/bin/env python3
"""Exports one benchmark model (models.py) for Wick and onnxruntime, on the H200 machine:

  . .et/env.sh && python3 bench/vision/export.py NAME OUTDIR [all|pte|onnx]

OUTDIR/NAME/ gets model.pte (ExecuTorch 1.5's Vulkan partitioner, the delegate Wick runs),
model.onnx (torch.onnx), input_I.bin per input and ref_I.bin per output (PyTorch eager on the
CPU in fp32; raw little-endian bytes of each tensor's dtype) and meta.json (inputs and outputs
with file, dtype and shape, sizes, timings, how the program was split into delegates, and how
far the fp32 reference is from an fp64 run of the same weights, which bounds the tolerance
any fp32 runtime can be held to).
"""

import copy
import json
import os
import re
import sys
import time
import traceback
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

from models import CONSTANT_PROP_FIRST, ROWS_AS_SET, build  # noqa: E402


def as_tuple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


def export_onnx(m, xs, path, n_out):
    """The TorchScript exporter first (what most ONNX users still get), dynamo as fallback."""
    errors = []
    for dynamo in (False, True):
        try:
            torch.onnx.export(m, xs, path, input_names=[f"input_{i}" for i in range(len(xs))],
                              output_names=[f"output_{i}" for i in range(n_out)], opset_version=17,
                              dynamo=dynamo)
            return {"dynamo": dynamo}
        except Exception as e:  # noqa: BLE001  (record and try the other exporter)
            errors.append(f"dynamo={dynamo}: {type(e).__name__}: {str(e)[:300]}")
    raise RuntimeError("; ".join(errors))


def export_pte(m, xs, path, constant_prop_first):
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.passes.constant_prop_pass import constant_prop_pass
    ep = torch.export.export(m, xs)
    info = {"constant_prop": constant_prop_first}
    if constant_prop_first:
        ep = constant_prop_pass(ep)
    try:
        edge = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()])
    except Exception as first:  # noqa: BLE001  (the FakeTensorMode trap of shared/executorch/README.md)
        if constant_prop_first:
            raise
        print(f"lowering failed ({type(first).__name__}: {str(first)[:200]}); retrying after constant_prop_pass")
        info["constant_prop"] = True
        edge = to_edge_transform_and_lower(constant_prop_pass(ep), partitioner=[VulkanPartitioner()])
    graph = edge.exported_program().graph_module.graph
    delegates, outside = 0, Counter()
    for n in graph.nodes:
        if n.op != "call_function":
            continue
        name = str(n.target)
        if "executorch_call_delegate" in name:
            delegates += 1
        elif name != "<built-in function getitem>":
            # "<EdgeOpOverload: aten.mul.Scalar>: schema = ..." -> "aten.mul.Scalar"
            m = re.search(r"<EdgeOpOverload: ([\w.]+)>", name)
            outside[m.group(1) if m else name] += 1
    prog = edge.to_executorch()
    with open(path, "wb") as f:
        f.write(prog.buffer)
    info.update(delegates=delegates, ops_outside_delegates=dict(outside))
    return info


def run_step(kind, fn, path):
    """One export (onnx or pte) into path; its result, or its error, as a dict."""
    t = time.time()
    try:
        with torch.no_grad():
            res = fn(path)
        res["bytes"] = os.path.getsize(path)
    except Exception as e:  # noqa: BLE001  (one failed format must not lose the other)
        traceback.print_exc()
        res = {"error": f"{type(e).__name__}: {str(e)[:500]}"}
    res["seconds"] = round(time.time() - t, 2)
    print(f"{os.path.basename(os.path.dirname(path))}: {kind} {res}", flush=True)
    return res


def references(m, xs, meta, out, rows_as_set=None):
    """PyTorch eager on the CPU in fp32 (the reference), and fp64 (on the GPU where there is
    one: the same fp64 arithmetic, minutes faster at 1024x1024) for the fp32 error bound.
    rows_as_set: the dim along which the outputs' rows are an unordered set (ROWS_AS_SET);
    the fp32 error bound is then also taken between rows matched as compare.py matches them."""
    with torch.no_grad():
        refs = as_tuple(m(*xs))
        dev = "cuda" if torch.cuda.is_available() else "cpu"
        m64 = copy.deepcopy(m).double().to(dev)
        refs64 = [r.cpu() for r in as_tuple(m64(*(v.double().to(dev) if v.is_floating_point() else v.to(dev)
                                                   for v in xs)))]
        del m64
    meta["fp64_device"] = dev
    meta["inputs"] = [{"file": f"input_{i}.bin", "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape)}
                      for i, v in enumerate(xs)]
    meta["outputs"] = [{"file": f"ref_{i}.bin", "dtype": str(r.dtype).replace("torch.", ""), "shape": list(r.shape),
                        "max_abs": float(r.abs().max()),
                        "fp32_vs_fp64_max_abs": float((r.double() - r64).abs().max())}
                       for i, (r, r64) in enumerate(zip(refs, refs64))]
    # the first input and output under the names of the single-tensor models' rows
    meta["input_shape"], meta["output_shape"] = list(xs[0].shape), list(refs[0].shape)
    meta["ref_max_abs"] = max(o["max_abs"] for o in meta["outputs"])
    meta["fp32_vs_fp64_max_abs"] = max(o["fp32_vs_fp64_max_abs"] for o in meta["outputs"])
    if rows_as_set is not None:
        from compare import apply_perm, match_rows, rows_permuted
        meta["rows_as_set"] = rows_as_set
        flat32 = [r.contiguous().view(-1).numpy() for r in refs]
        flat64 = [r.contiguous().view(-1).numpy() for r in refs64]
        shapes = [list(r.shape) for r in refs]
        perms = match_rows(flat64, flat32, shapes, rows_as_set)
        meta["fp32_vs_fp64_rows_permuted"] = rows_permuted(perms)
        for o, r32, r64, shape in zip(meta["outputs"], flat32, flat64, shapes):
            o["fp32_vs_fp64_max_abs_matched"] = float(abs(apply_perm(r32, shape, rows_as_set, perms).astype(
                "float64") - r64).max())
    for i, v in enumerate(xs):
        v.contiguous().numpy().tofile(os.path.join(out, f"input_{i}.bin"))
    for i, r in enumerate(refs):
        r.contiguous().numpy().tofile(os.path.join(out, f"ref_{i}.bin"))
    # The fp64 outputs too, where rows are a set: compare.py measures each runtime's distance
    # from them (ref64_*.bin, float64), beside eager fp32's own (fp32_vs_fp64_max_abs_matched).
    if rows_as_set is not None:
        for i, (o, r64) in enumerate(zip(meta["outputs"], refs64)):
            r64.contiguous().numpy().tofile(os.path.join(out, f"ref64_{i}.bin"))
            o["fp64_file"] = f"ref64_{i}.bin"
    return len(refs)


def main():
    """export.py NAME OUTDIR [all|pte|onnx]: `pte` writes the references, meta.json and
    model.pte; `onnx` only model.onnx and onnx.json (the two can run side by side, as
    h200.sh does, each building the same weights and input from the seed); `all` both, with
    the ONNX result inside meta.json."""
    name, out_root = sys.argv[1], sys.argv[2]
    part = sys.argv[3] if len(sys.argv) > 3 else "all"
    out = os.path.join(out_root, name)
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(int(os.environ.get("EXPORT_THREADS", "2")))
    meta = {"name": name, "torch": torch.__version__}
    t = time.time()
    m, x, meta["description"] = build(name)
    xs = as_tuple(x)
    if part == "onnx":
        with torch.no_grad():
            n_out = len(as_tuple(m(*xs)))
        res = run_step("onnx", lambda p: export_onnx(m, xs, p, n_out), os.path.join(out, "model.onnx"))
        with open(os.path.join(out, "onnx.json"), "w") as f:
            json.dump(res, f, indent=1)
        return
    if hasattr(m, "m") and hasattr(m.m, "config"):  # transformers: which attention ran
        from sam2_dfine import attn_implementations
        meta["attn_implementation"] = attn_implementations(m.m)
    n_out = references(m, xs, meta, out, ROWS_AS_SET.get(name))
    meta["eager_s"] = round(time.time() - t, 2)
    # the meta file first, so that a failed export still leaves the inputs for the other tools
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    if part == "all":
        meta["onnx"] = run_step("onnx", lambda p: export_onnx(m, xs, p, n_out), os.path.join(out, "model.onnx"))
    meta["pte"] = run_step("pte", lambda p: export_pte(m, xs, p, name in CONSTANT_PROP_FIRST),
                           os.path.join(out, "model.pte"))
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    main()
