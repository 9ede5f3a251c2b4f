#!/usr/bin/env python3
"""Fixtures of operators that VulkanPartitioner leaves on the CPU between two delegates, which
Wick's WebGPU backend fuses into one graph (kHostOps in src/vkgraph/merge_plans.cpp): small
programs in the shape of D-FINE's deformable attention and query selection and of
nn.InstanceNorm2d, in the layout of tests/fixtures/ops (export_ops.export_one: model.pte,
PyTorch eager references, manifest with the ops left outside the delegates).

Run on the device machine, with ExecuTorch's toolchain copied to .et (shared/executorch):

  . .et/env.sh && python3 scripts/export_ops/export_fused_runs.py --out OUTDIR
"""

import argparse
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

from export_ops import export_one  # noqa: E402


def gen():
    return torch.Generator().manual_seed(0)


def grid_sampler_between(x, grid):
    """Delegate (x * 2 + 1, grid * 1.1), grid_sample with zeros padding and
    align_corners=False as D-FINE's deformable attention (left out: "op args not supported"),
    delegate (* 3 - 1)."""
    a = x * 2.0 + 1.0
    s = torch.nn.functional.grid_sample(a, grid * 1.1, mode="bilinear", padding_mode="zeros", align_corners=False)
    return s * 3.0 - 1.0


def query_select(logits):
    """D-FINE's query selection and box-head ops between delegates: max over classes,
    top-k anchors (int64 indices returned), a log, and a top-k along the last dim."""
    l = logits * 1.5 + 0.25
    v, cls = l.max(-1)                     # aten.max.dim: [1, 64]
    tv, ti = v.topk(12, dim=1)             # aten.topk: [1, 12]
    p = torch.sigmoid(tv) * 0.9 + 0.05
    lg = torch.log(p)                      # aten.log
    sm = torch.softmax(l, -1)
    pv, _ = sm.topk(3, dim=-1)             # aten.topk on the last dim: [1, 64, 3]
    q = pv.sum(-1) * 2.0
    return lg * 2.0 - 1.0, ti, cls, q


class IBNorm(torch.nn.Module):
    """MODNet's IBNorm (bench/vision/modnet.py): BatchNorm on the first half of the channels,
    InstanceNorm2d on the rest, concatenated."""

    def __init__(self, c, affine):
        super().__init__()
        self.half = c // 2
        self.bn = torch.nn.BatchNorm2d(self.half)
        self.inorm = torch.nn.InstanceNorm2d(c - self.half, affine=affine)
        with torch.no_grad():  # statistics and affines that are not PyTorch's identities
            self.bn.running_mean.copy_(torch.linspace(-0.5, 0.5, self.half))
            self.bn.running_var.copy_(torch.linspace(0.5, 2.0, self.half))
            if affine:
                self.inorm.weight.copy_(torch.linspace(0.5, 1.5, c - self.half))
                self.inorm.bias.copy_(torch.linspace(-0.3, 0.4, c - self.half))

    def forward(self, x):
        return torch.cat([self.bn(x[:, :self.half]), self.inorm(x[:, self.half:])], 1)


class InstanceNormNet(torch.nn.Module):
    """conv -> IBNorm (InstanceNorm2d affine) -> relu -> conv -> IBNorm (no affine) -> relu ->
    conv 1x1 -> InstanceNorm2d -> * 2, at batch 1 (the Vulkan partitioner keeps a batch-2
    convolution on the CPU). nn.InstanceNorm2d exports as aten._native_batch_norm_legit.no_stats,
    left on the CPU between delegates, as in MODNet; 24x20 rows are longer than one workgroup."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c1 = torch.nn.Conv2d(4, 8, 3, padding=1)
        self.n1 = IBNorm(8, True)
        self.c2 = torch.nn.Conv2d(8, 6, 3, padding=1)
        self.n2 = IBNorm(6, False)
        self.c3 = torch.nn.Conv2d(6, 3, 1)
        self.n3 = torch.nn.InstanceNorm2d(3)

    def forward(self, x):
        y = torch.relu(self.n1(self.c1(x)))
        y = torch.relu(self.n2(self.c2(y)))
        return self.n3(self.c3(y)) * 2.0


def table():
    g = gen()
    t = {}
    t["fused_grid_sampler_2d"] = (
        "x[1,4,6,7] * 2 + 1 -> grid_sample(grid[1,5,6,2] * 1.1 in [-1.3,1.3], bilinear, zeros, align_corners=False) -> * 3 - 1",
        grid_sampler_between,
        [(torch.randn(1, 4, 6, 7, generator=g), (torch.rand(1, 5, 6, 2, generator=g) * 2.4 - 1.2))],
        (1e-5, 1e-5), True)
    t["fused_query_select"] = (
        "logits[1,64,5]: max.dim(-1), topk(12, dim=1), log(sigmoid), softmax topk(3, dim=-1) between delegates",
        query_select, [(torch.randn(1, 64, 5, generator=g) * 2,)], (1e-5, 1e-5), True)
    t["fused_instance_norm"] = (
        "x[1,4,24,20] -> conv3x3 -> IBNorm(8, InstanceNorm affine) -> relu -> conv3x3 -> IBNorm(6) -> relu -> conv1x1 -> InstanceNorm2d(3) -> * 2",
        InstanceNormNet, [(torch.randn(1, 4, 24, 20, generator=g) * 3 + 1,)], (1e-4, 1e-4), True)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="one fixture name (default: all)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    summary = {}
    for name, spec in table().items():
        if a.only and name != a.only:
            continue
        t0 = time.time()
        try:
            summary[name] = export_one(name, spec, a.out)
        except Exception as e:  # record and go on
            summary[name] = {"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        s = summary[name]
        line = f"delegated {s['vk_ops']} outside {s['outside']} {s['bytes']} B" if s["ok"] else "FAILED " + s["error"]
        print(f"{name:24s} {time.time() - t0:5.1f}s  {line}", flush=True)
    with open(os.path.join(a.out, f"summary{'_' + a.only if a.only else ''}.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
