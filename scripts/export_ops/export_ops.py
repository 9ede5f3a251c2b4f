#!/usr/bin/env python3
"""One tiny ExecuTorch fixture per operator that Wick's WebGPU delegate added for issue 14
(comparisons, logical ops, rounded division, int8 quantize / dequantize, choose_qparams_affine,
interleaved RoPE, grid_priors, grid_sampler_2d, embedding_q4gsw, linear_qcs4w, linear_dq8ca_q4gsw,
the training ops fused_ce and linear_dW, the int8 q8ta family with q4gsw_requant from
q8ta_cases.py, and concatenations built in place from cat_cases.py), in the layout of shared/fixtures.

Run on the device machine, with ExecuTorch's toolchain copied to .et (shared/executorch):

  . .et/env.sh && python3 scripts/export_ops/export_ops.py --out OUTDIR [--only a,b]

Each program is lowered with VulkanPartitioner(); OUTDIR/<name>/ gets model.pte,
manifest.json and the case files (PyTorch eager references, fp32, CPU; float cases are also
run in fp64 and the difference recorded). The delegated ops and the ops left outside the
delegate are printed and written to the manifest (vk_ops, edge_ops_outside_delegates) and to
OUTDIR/summary.json. vk_ops are the edge ops handed to the partitioner, before the Vulkan
preprocess fuses patterns (q/dq + conv -> et_vk.q8ta_conv2d, ...): once the fixtures are back,
run vk_graph_ops.py here to add the VK00 chain's own op names (what op_status.py counts). One op failing to export is recorded there and does not stop the rest.
Every fixture stays under 64 KiB.
"""

import argparse
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_files import dir_bytes, write_fixture  # noqa: E402

import torch  # noqa: E402

import torch.ao.quantization.fx._decomposed  # noqa: E402,F401  (registers quantized_decomposed ops)
import executorch.backends.vulkan.custom_ops_lib  # noqa: E402,F401  (et_vk ops)
import torchao.quantization.quant_primitives  # noqa: E402,F401  (torchao.choose_qparams_affine)
from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner  # noqa: E402
from executorch.exir import to_edge_transform_and_lower  # noqa: E402
from q8ta_cases import add_q8ta_cases  # noqa: E402
from cat_cases import add_cat_cases  # noqa: E402

MAX_FIXTURE_BYTES = 64 * 1024
DTYPE_NAMES = {torch.float32: "float32", torch.int64: "int64", torch.int32: "int32", torch.int8: "int8",
               torch.uint8: "uint8", torch.bool: "bool"}


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def gen():
    return torch.Generator().manual_seed(0)


def ties(shape, g):
    """Integer-valued floats in [-3, 3]: comparisons meet many equal pairs."""
    return torch.randint(-3, 4, shape, generator=g).to(torch.float32)


def quotient_inputs(shape_x, shape_y, g):
    """x, y with x / y at least 0.1 away from an integer (rounded division is then exact in
    fp32 on any GPU), both signs."""
    y = (torch.rand(shape_y, generator=g) * 3 + 0.5) * torch.where(torch.rand(shape_y, generator=g) < 0.5, -1.0, 1.0)
    n = torch.randint(-6, 7, torch.broadcast_shapes(shape_x, shape_y), generator=g).to(torch.float64)
    f = torch.rand(n.shape, generator=g, dtype=torch.float64) * 0.8 + 0.1
    x = (n + f) * y.to(torch.float64)
    assert list(x.shape) == list(shape_x), "quotient_inputs: x must have the broadcast shape"
    return x.to(torch.float32), y


Q_SCALE, Q_ZP = 0.05, 3


def q_inputs(shape, g):
    """Floats k * scale + f * scale with |f| <= 0.4 (no rounding ties), k beyond the int8
    range at both ends so that the clamp is exercised."""
    k = torch.randint(-140, 141, shape, generator=g).to(torch.float64)
    f = torch.rand(shape, generator=g, dtype=torch.float64) * 0.8 - 0.4
    return ((k + f) * Q_SCALE).to(torch.float32)


def quantize(x):
    return torch.ops.quantized_decomposed.quantize_per_tensor(x, Q_SCALE, Q_ZP, -128, 127, torch.int8)


def dequantize(q):
    return torch.ops.quantized_decomposed.dequantize_per_tensor(q, Q_SCALE, Q_ZP, -128, 127, torch.int8)


def choose_qparams(x):
    return torch.ops.torchao.choose_qparams_affine(x, "ASYMMETRIC", [1, x.shape[-1]], torch.int8, -128, 127,
                                                   torch.finfo(torch.float32).eps, torch.float32, torch.int8)


def rope_inputs(g):
    x = torch.randn(1, 8, 16, generator=g)
    theta = torch.rand(8, 8, generator=g) * 6.28
    freqs = torch.stack((theta.cos(), theta.sin()), dim=-1).reshape(8, 16)
    return x, freqs


def grid_inputs(g, shape_in, shape_grid):
    return torch.randn(shape_in, generator=g), torch.rand(shape_grid, generator=g) * 2.4 - 1.2


def hnwc_example(g):
    """A [1, 4, 3, 5] tensor laid out (H, N, W, C)-major: a permute of a contiguous [3, 1, 5, 4]."""
    return torch.randn(3, 1, 5, 4, generator=g).permute(1, 3, 0, 2)


def pack_q4_linear(q):
    """int [-8, 7] values [rows, cols] -> uint8 [rows, cols / 2], even column in the low nibble
    (the q4gsw / is_linear_weight order of shared/spec/ops.md §5.1)."""
    u = (q + 8).to(torch.uint8)
    return (u[:, 1::2] << 4) | u[:, 0::2]


class EmbeddingQ4gsw(torch.nn.Module):
    """et_vk.embedding_q4gsw on a constant [vocab, dim] table of 4-bit values with one scale per
    group of `group_size` dims (called directly, as the Vulkan pattern emits it)."""

    def __init__(self, g, vocab=16, dim=64, group_size=32):
        super().__init__()
        q = torch.randint(-8, 8, (vocab, dim), generator=g)
        self.register_buffer("weight", pack_q4_linear(q))
        self.register_buffer("scales", torch.rand(vocab, dim // group_size, generator=g) * 0.1 + 0.01)
        self.group_size = group_size

    def forward(self, idx):
        return torch.ops.et_vk.embedding_q4gsw(self.weight, self.scales, self.group_size, idx, True)


class LinearQcs4w(torch.nn.Module):
    """linear(x, dequantize_per_channel(q int8 in [-8, 7], scales, zeros 0)): the weight-only
    pattern that the Vulkan backend's fuse_quantized_ops.py turns into et_vk.linear_qcs4w."""

    def __init__(self, g, k=64, n=24):
        super().__init__()
        self.register_buffer("q", torch.randint(-8, 8, (n, k), generator=g).to(torch.int8))
        self.register_buffer("scales", torch.rand(n, generator=g) * 0.05 + 0.01)
        self.register_buffer("zeros", torch.zeros(n, dtype=torch.int64))

    def forward(self, x):
        w = torch.ops.quantized_decomposed.dequantize_per_channel(self.q, self.scales, self.zeros, 0, -8, 7, torch.int8)
        return torch.nn.functional.linear(x, w)


class Linear8da4w(torch.nn.Module):
    """torchao's 8da4w graph: per-row asymmetric int8 choose_qparams / quantize / dequantize of
    the activation, group-wise symmetric 4-bit weight dequantized by dequantize_affine, linear
    (+ bias): what the Vulkan pattern quantized_linear.py turns into et_vk.linear_dq8ca_q4gsw."""

    def __init__(self, g, k=64, n=16, group_size=32):
        super().__init__()
        self.register_buffer("q", torch.randint(-8, 8, (n, k), generator=g).to(torch.int8))
        self.register_buffer("scales", torch.rand(n, k // group_size, generator=g) * 0.05 + 0.01)
        self.register_buffer("zeros", torch.zeros(n, k // group_size, dtype=torch.int8))
        self.register_buffer("bias", torch.randn(n, generator=g))
        self.group_size = group_size

    def forward(self, x):
        block = [1, x.shape[-1]]
        s, zp = choose_qparams(x)
        xq = torch.ops.torchao.quantize_affine(x, block, s, zp, torch.int8, -128, 127)
        xd = torch.ops.torchao.dequantize_affine(xq, block, s, zp, torch.int8, -128, 127)
        w = torch.ops.torchao.dequantize_affine(self.q, [1, self.group_size], self.scales, self.zeros, torch.int8, -8, 7)
        return torch.nn.functional.linear(xd, w, self.bias)


class UpdateCache(torch.nn.Module):
    """llama.update_cache(value, cache, 2) on a zero [1, 8, 2, 4] cache buffer (mutated in
    place), returning a copy of the cache: rows 2..4 hold value, the rest stay zero."""

    def __init__(self):
        super().__init__()
        import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  (llama ops)
        self.register_buffer("cache", torch.zeros(1, 8, 2, 4))

    def forward(self, value):
        torch.ops.llama.update_cache(value, self.cache, 2)
        return self.cache.clone()


def ce_inputs(g, rows, cols, pad):
    labels = torch.randint(0, cols, (rows,), generator=g)
    labels[rows - pad:] = -1
    return torch.randn(rows, cols, generator=g) * 2, labels


# name -> (description, module fn, cases: list of input tuples made from a generator, (atol, rtol), fp64 check)
def op_table():
    g = gen()
    t = {}
    t["gt_tensor"] = ("x[2,3,4] > y[1,3,4] (broadcast, integer-valued floats with ties)", lambda x, y: x > y,
                      [(ties((2, 3, 4), g), ties((1, 3, 4), g)), (torch.randn(2, 3, 4, generator=g), torch.randn(1, 3, 4, generator=g))],
                      (0, 0), True)
    t["ge_tensor"] = ("x[2,3,4] >= y[4] (broadcast, ties)", lambda x, y: x >= y,
                      [(ties((2, 3, 4), g), ties((4,), g))], (0, 0), True)
    t["lt_scalar"] = ("x[3,5] < 0.5", lambda x: x < 0.5,
                      [(torch.cat([ties((2, 5), g), torch.full((1, 5), 0.5)]),)], (0, 0), True)
    t["logical_or"] = ("logical_or(x > 0, y > 0), x[2,8], y[2,8]", lambda x, y: torch.logical_or(x > 0, y > 0),
                       [(ties((2, 8), g), ties((2, 8), g))], (0, 0), True)
    t["bitwise_or"] = ("(x > 0) | (y < 0) on bools, x[2,8], y[1,8]", lambda x, y: (x > 0) | (y < 0),
                       [(ties((2, 8), g), ties((1, 8), g))], (0, 0), True)
    t["div_trunc"] = ("div(x[3,4], y[4], rounding_mode='trunc'), quotients away from integers", lambda x, y: torch.div(x, y, rounding_mode="trunc"),
                      [quotient_inputs((3, 4), (4,), g)], (0, 0), True)
    t["div_floor"] = ("div(x[3,4], y[3,4], rounding_mode='floor'), quotients away from integers", lambda x, y: torch.div(x, y, rounding_mode="floor"),
                      [quotient_inputs((3, 4), (3, 4), g)], (0, 0), True)
    t["quantize_per_tensor"] = (f"quantize_per_tensor(x[2,3,8], scale {Q_SCALE}, zp {Q_ZP}, -128, 127, int8)", quantize,
                                [(q_inputs((2, 3, 8), g),)], (0, 0), False)
    t["dequantize_per_tensor"] = (f"dequantize_per_tensor(q int8[2,3,8], scale {Q_SCALE}, zp {Q_ZP}, -128, 127, int8)", dequantize,
                                  [(torch.randint(-128, 128, (2, 3, 8), generator=g).to(torch.int8),)], (1e-6, 1e-6), False)
    t["quantize_dequantize"] = ("dequantize(quantize(x[2,3,8])), per tensor int8", lambda x: dequantize(quantize(x)),
                                [(q_inputs((2, 3, 8), g),)], (1e-6, 1e-6), False)
    t["choose_qparams_affine"] = ("torchao.choose_qparams_affine(x[4,32], ASYMMETRIC, block [1,32], int8): per-row scale, zero point",
                                  choose_qparams, [(torch.randn(4, 32, generator=g) * 2 + 0.3,)], (1e-6, 1e-6), False)
    t["apply_rotary_emb_interleaved"] = ("et_vk.apply_rotary_emb_interleaved(x[1,8,16], freqs_cis[8,16] (cos, sin) pairs)",
                                         lambda x, f: torch.ops.et_vk.apply_rotary_emb_interleaved(x, f),
                                         [rope_inputs(g)], (1e-6, 1e-6), True)
    t["grid_priors"] = ("et_vk.grid_priors(x[1,4,5,6], stride 8, offset 0.5) -> [30, 2] (x, y) centers",
                        lambda x: torch.ops.et_vk.grid_priors(x, 8, 0.5),
                        [(torch.randn(1, 4, 5, 6, generator=g),)], (0, 0), True)
    t["grid_sampler_2d"] = ("grid_sample(x[1,3,6,7], grid[1,4,5,2] in [-1.2,1.2], bilinear, border, align_corners=True)",
                            lambda x, gr: torch.nn.functional.grid_sample(x, gr, mode="bilinear", padding_mode="border", align_corners=True),
                            [grid_inputs(g, (1, 3, 6, 7), (1, 4, 5, 2))], (1e-5, 1e-5), True)
    t["embedding_q4gsw"] = ("et_vk.embedding_q4gsw(weight uint8[16,32], scales[16,2], group 32, idx int64[2,3], is_linear_weight)",
                            EmbeddingQ4gsw(g), [(torch.randint(0, 16, (2, 3), generator=g),)], (1e-6, 1e-6), False)
    t["linear_qcs4w"] = ("linear(x[2,64], dequantize_per_channel(q int8[24,64] in [-8,7], scales[24])) -> et_vk.linear_qcs4w",
                         LinearQcs4w(g), [(torch.randn(2, 64, generator=g),)], (1e-5, 1e-5), False)
    t["linear_dq8ca_q4gsw"] = ("8da4w linear: x[3,64] per-row int8 dynamic quant, q int4[16,64] group 32, bias -> et_vk.linear_dq8ca_q4gsw",
                               Linear8da4w(g), [(torch.randn(3, 64, generator=g),)], (1e-4, 1e-4), False)
    t["update_cache"] = ("llama.update_cache(value[1,3,2,4], zero cache[1,8,2,4] buffer, start_pos 2) -> cache copy",
                         UpdateCache, [(torch.randn(1, 3, 2, 4, generator=g),)], (0, 0), False)
    t["et_vk_sdpa"] = ("et_vk.sdpa(q[1,2,3,8], k[1,2,5,8], v[1,2,5,8], additive mask[1,2,3,5], scale None)",
                       lambda q, k, v, m: torch.ops.et_vk.sdpa(q, k, v, m),
                       [(torch.randn(1, 2, 3, 8, generator=g), torch.randn(1, 2, 5, 8, generator=g),
                         torch.randn(1, 2, 5, 8, generator=g), torch.rand(1, 2, 3, 5, generator=g) * -3)], (1e-5, 1e-5), True)
    # An input whose example tensor was not contiguous (SAM 2.1's decoder takes encoder outputs
    # computed by permutes): the program declares a permuted dim order (here channels-last,
    # [0, 2, 3, 1]; SAM's [2, 0, 3, 1]), yet the delegate
    # reads every input as contiguous in its logical sizes, so a runtime must not rearrange
    # the caller's data into the declared order (the Wasm API did: issue 11's SAM decoder).
    t["input_dim_order"] = ("x[1,4,3,5] * 2 + y[1,4,3,5], x exported from a permuted tensor (declared dim order [0,2,3,1])",
                            lambda x, y: x * 2 + y, [(hnwc_example(g), torch.randn(1, 4, 3, 5, generator=g))],
                            (1e-6, 1e-6), True)
    # Training ops. adamw_step and linear_q4gsw_backward have no fixture: with ExecuTorch 1.5.0 and
    # torch 2.11, torch.export cannot functionalize adamw_step (its schema returns aliased
    # outputs, Tensor(a!)), and VulkanPartitioner 1.5.0 wants every input of
    # linear_q4gsw_backward float, so its uint8 weight keeps it on the CPU, where it has no
    # out variant (export_training.py records both; tests build them as VK00 graphs instead).
    t["fused_ce"] = ("et_vk.fused_ce(logits[6,20], labels int64[6] (last 2 = -1, ignored), n_valid 4) -> (loss, dlogits)",
                     lambda x, y: torch.ops.et_vk.fused_ce(x, y, 4.0), [ce_inputs(g, 6, 20, 2)], (1e-5, 1e-5), True)
    t["linear_dW"] = ("et_vk.linear_dW(d_out[13,10], x[13,18]) -> d_W[10,18] = d_out^T x",
                      lambda d, x: torch.ops.et_vk.linear_dW(d, x),
                      [(torch.randn(13, 10, generator=g), torch.randn(13, 18, generator=g))], (1e-5, 1e-5), True)
    return add_cat_cases(add_q8ta_cases(t))


def as_file(t):
    t = t.detach().contiguous().cpu()
    if t.dtype not in DTYPE_NAMES:
        raise ValueError(f"no fixture dtype for {t.dtype}")
    return (DTYPE_NAMES[t.dtype], list(t.shape), t.numpy().tobytes())


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def op_name(target):
    return getattr(target, "__name__", str(target))


def delegation(edge_program):
    """(ops inside Vulkan delegates, ops outside them with counts) of a lowered program."""
    gm = edge_program.exported_program().graph_module
    inside, outside = {}, {}
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        name = op_name(node.target)
        if "executorch_call_delegate" in name:
            lowered = getattr(gm, node.args[0].target)
            for n in lowered.original_module.graph.nodes:
                if n.op == "call_function" and "getitem" not in op_name(n.target):
                    inside[op_name(n.target)] = inside.get(op_name(n.target), 0) + 1
        elif "getitem" not in name:
            outside[name] = outside.get(name, 0) + 1
    return inside, outside


def fp64_gap(fn, inputs, ref):
    """Largest |fp32 eager - fp64 eager| over the float outputs (None when it does not apply)."""
    try:
        outs64 = as_tuple(fn(*[x.double() if x.is_floating_point() else x for x in inputs]))
    except Exception:  # an op without an fp64 kernel
        return None
    gap = 0.0
    for a, b in zip(ref, outs64):
        if a.is_floating_point():
            gap = max(gap, (a.double() - b.double()).abs().max().item() if a.numel() else 0.0)
        elif not torch.equal(a, b.to(a.dtype)):
            return float("inf")
    return gap


def export_one(name, spec, out_root):
    desc, fn, cases, tol, check64 = spec
    # A module class is built afresh for each reference and for the export (a module that
    # mutates a buffer would otherwise export its state after the references ran).
    # A function without parameters builds the module itself (a PT2E-converted GraphModule,
    # which refuses .eval()).
    if isinstance(fn, type):
        fresh = lambda: fn().eval()  # noqa: E731
    elif not isinstance(fn, torch.nn.Module) and fn.__code__.co_argcount == 0:
        fresh = fn
    else:
        fresh = lambda: (fn if isinstance(fn, torch.nn.Module) else Fn(fn)).eval()  # noqa: E731
    with torch.no_grad():
        refs = [as_tuple(fresh()(*c)) for c in cases]
    model = fresh()
    ep = torch.export.export(model, cases[0])
    lowered = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()])
    inside, outside = delegation(lowered)
    pte = lowered.to_executorch().buffer
    gap = max((fp64_gap(fn, c, r) or 0.0) for c, r in zip(cases, refs)) if check64 else None
    extra = {
        "versions": {"torch": torch.__version__, "executorch": "1.5.0 (cff6f4dd32e6)", "python": sys.version.split()[0]},
        "reference": {"computed_by": "PyTorch eager, fp32, CPU", "seed": "torch.Generator().manual_seed(0), ops in table order",
                      "max_abs_err_fp32_vs_fp64": gap},
        "lowering": {"api": "to_edge_transform_and_lower", "partitioner": "VulkanPartitioner", "compile_options": {}},
        "delegated": bool(inside),
        "fully_delegated": bool(inside) and not outside,
        "vk_ops": sorted(inside),
        "delegated_edge_op_counts": inside,
        "edge_ops_outside_delegates": outside,
        "made_by": "scripts/export_ops/export_ops.py",
    }
    out_dir = os.path.join(out_root, name)
    file_cases = [([as_file(x) for x in c], [as_file(y) for y in r]) for c, r in zip(cases, refs)]
    write_fixture(out_dir, name, desc, pte, file_cases, tol, extra)
    size = dir_bytes(out_dir)
    if size > MAX_FIXTURE_BYTES:
        raise RuntimeError(f"{name}: fixture is {size} bytes, over {MAX_FIXTURE_BYTES}")
    return {"ok": True, "bytes": size, "vk_ops": sorted(inside), "outside": outside, "fp32_vs_fp64": gap}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder (one subfolder per op)")
    ap.add_argument("--only", default="", help="comma-separated fixture names (default: all)")
    a = ap.parse_args()
    table = op_table()
    names = [n for n in a.only.split(",") if n] or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        sys.exit(f"unknown fixture names {unknown}; known: {sorted(table)}")
    os.makedirs(a.out, exist_ok=True)
    summary = {}
    for name in names:
        t0 = time.time()
        try:
            summary[name] = export_one(name, table[name], a.out)
        except Exception as e:  # record and go on: one op's failure must not hide the others
            summary[name] = {"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        s = summary[name]
        line = (f"delegated {s['vk_ops']} outside {s['outside']} {s['bytes']} B" if s["ok"] else "FAILED " + s["error"])
        print(f"{name:30s} {time.time() - t0:5.1f}s  {line}", flush=True)
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    bad = [n for n, s in summary.items() if not s["ok"]]
    print(f"{len(names) - len(bad)}/{len(names)} exported" + (f"; failed: {bad}" if bad else ""))


if __name__ == "__main__":
    main()
