#!/usr/bin/env python3
"""Exports one benchmark model (models.py) for Wick and onnxruntime, on the H200 machine:

  . .et/env.sh && python3 bench/vision/export.py NAME OUTDIR

OUTDIR/NAME/ gets model.pte (ExecuTorch 1.5's Vulkan partitioner, the delegate Wick runs),
model.onnx (torch.onnx), input.bin and ref.bin (PyTorch eager on the CPU in fp32, raw
little-endian float32) and meta.json (shapes, sizes, timings, how the program was split
into delegates, and how far the fp32 reference is from an fp64 run of the same weights,
which bounds the tolerance any fp32 runtime can be held to).
"""

import copy
import json
import os
import re
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

from models import build  # noqa: E402


def export_onnx(m, x, path):
    """The TorchScript exporter first (what most ONNX users still get), dynamo as fallback."""
    errors = []
    for dynamo in (False, True):
        try:
            torch.onnx.export(m, (x,), path, input_names=["input"], output_names=["output"], opset_version=17,
                              dynamo=dynamo)
            return {"dynamo": dynamo}
        except Exception as e:  # noqa: BLE001  (record and try the other exporter)
            errors.append(f"dynamo={dynamo}: {type(e).__name__}: {str(e)[:300]}")
    raise RuntimeError("; ".join(errors))


def export_pte(m, x, path):
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.exir import to_edge_transform_and_lower
    ep = torch.export.export(m, (x,))
    try:
        edge = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()])
    except Exception as first:  # noqa: BLE001  (the FakeTensorMode trap of shared/executorch/README.md)
        from executorch.exir.passes.constant_prop_pass import constant_prop_pass
        print(f"lowering failed ({type(first).__name__}: {str(first)[:200]}); retrying after constant_prop_pass")
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
    return {"delegates": delegates, "ops_outside_delegates": dict(outside)}


def main():
    name, out_root = sys.argv[1], sys.argv[2]
    out = os.path.join(out_root, name)
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(int(os.environ.get("EXPORT_THREADS", "2")))
    meta = {"name": name, "torch": torch.__version__}
    t = time.time()
    m, x, meta["description"] = build(name)
    with torch.no_grad():
        ref = m(x)
        ref64 = copy.deepcopy(m).double()(x.double())
    meta["input_shape"], meta["output_shape"] = list(x.shape), list(ref.shape)
    meta["ref_max_abs"] = float(ref.abs().max())
    meta["fp32_vs_fp64_max_abs"] = float((ref.double() - ref64).abs().max())
    x.contiguous().numpy().tofile(os.path.join(out, "input.bin"))
    ref.contiguous().numpy().tofile(os.path.join(out, "ref.bin"))
    meta["eager_s"] = round(time.time() - t, 2)
    for kind, fn, file in (("onnx", export_onnx, "model.onnx"), ("pte", export_pte, "model.pte")):
        t = time.time()
        try:
            with torch.no_grad():
                meta[kind] = fn(m, x, os.path.join(out, file))
            meta[kind]["bytes"] = os.path.getsize(os.path.join(out, file))
        except Exception as e:  # noqa: BLE001  (one failed format must not lose the other)
            meta[kind] = {"error": f"{type(e).__name__}: {str(e)[:500]}"}
        meta[kind]["seconds"] = round(time.time() - t, 2)
        print(f"{name}: {kind} {meta[kind]}", flush=True)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    main()
