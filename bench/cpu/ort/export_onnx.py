"""ONNX twins of the CPU benchmark's models, for onnxruntime (bench/cpu/ort/).

Run where torch 2.x and onnxruntime are (the lent H200 machine; 15 s there): copy this
file into a git-ignored folder of the checkout the device tool sends (e.g. .dev/cpu/),
carry that folder, run
    cd .dev/cpu && python3 export_onnx.py $OUT
and copy the .onnx files it returns into .bench/onnx/ (where native_bench.mjs and
web_bench.mjs look). What it printed on 2026-12-04: bench/results/cpu_ort_onnx_export_h200.log.
Writes, with random weights (the timing needs the architecture and shapes, not the
fixture's weights):
  mobilenet_v3_small.onnx   torchvision mobilenet_v3_small(weights=None), x[1,3,224,224]
                            (the models/mobilenet_v3_small fixture's model)
  esrgan_slim_x4.onnx       the RDN of pretrained/esrgan_slim_x4 (C=1, D=2, G=4, G0=64, x4),
                            as its manifest describes it, x[1,3,64,64] -> [1,3,256,256]
  llama_tiny_decode.onnx    one decode step of the demos' tiny Llama (dim 64, 2 layers,
                            4 heads, 2 KV heads, FFN 128, vocabulary 512, cache of 32
                            positions, interleaved RoPE): token, position and both caches in,
                            logits and the updated caches out
  llama_tiny_decode_q4.onnx the same with every linear as MatMulNBits (4-bit, groups of 32,
                            symmetric), as demos/llama_q4gsw_kv quantizes them
Each file is checked: onnxruntime's output against torch's on one input.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

torch.manual_seed(0)
OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)


class DenseBlock(nn.Module):
    """One residual dense block with C=1 layer: conv3x3 64->G + ReLU, concat, 1x1 back to 64, add."""

    def __init__(self, g0=64, g=4):
        super().__init__()
        self.conv = nn.Conv2d(g0, g, 3, padding=1)
        self.lff = nn.Conv2d(g0 + g, g0, 1)

    def forward(self, x):
        return x + self.lff(torch.cat([x, F.relu(self.conv(x))], 1))


class EsrganSlim(nn.Module):
    def __init__(self, scale=4, g0=64):
        super().__init__()
        self.f_m1 = nn.Conv2d(3, g0, 3, padding=1)
        self.f_0 = nn.Conv2d(g0, g0, 3, padding=1)
        self.blocks = nn.ModuleList([DenseBlock(g0), DenseBlock(g0)])
        self.gff1 = nn.Conv2d(2 * g0, g0, 1)
        self.gff3 = nn.Conv2d(g0, g0, 3, padding=1)
        self.up5 = nn.Conv2d(g0, 64, 5, padding=2)
        self.up3 = nn.Conv2d(64, 32, 3, padding=1)
        self.to_sub = nn.Conv2d(32, 3 * scale * scale, 3, padding=1)
        self.last = nn.Conv2d(3 * scale * scale, 3, 3, padding=1)
        self.scale = scale

    def forward(self, x):
        fm1 = self.f_m1(x)
        h = self.f_0(fm1)
        outs = []
        for b in self.blocks:
            h = b(h)
            outs.append(h)
        h = self.gff3(self.gff1(torch.cat(outs, 1))) + fm1
        h = F.relu(self.up5(h))
        h = F.relu(self.up3(h))
        h = F.interpolate(self.to_sub(h), scale_factor=self.scale, mode="nearest")
        return self.last(h)


class TinyLlamaStep(nn.Module):
    """One decode step with the KV caches as inputs and outputs ([L,1,Hkv,T,D])."""

    def __init__(self, dim=64, layers=2, heads=4, kv_heads=2, hidden=128, vocab=512, seq=32):
        super().__init__()
        self.h, self.kvh, self.d, self.seq = heads, kv_heads, dim // heads, seq
        self.emb = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList()
        for _ in range(layers):
            m = nn.Module()
            m.attn_norm = nn.Parameter(torch.rand(dim) + 0.5)
            m.wq = nn.Linear(dim, heads * self.d, bias=False)
            m.wk = nn.Linear(dim, kv_heads * self.d, bias=False)
            m.wv = nn.Linear(dim, kv_heads * self.d, bias=False)
            m.wo = nn.Linear(heads * self.d, dim, bias=False)
            m.ffn_norm = nn.Parameter(torch.rand(dim) + 0.5)
            m.w1 = nn.Linear(dim, hidden, bias=False)
            m.w3 = nn.Linear(dim, hidden, bias=False)
            m.w2 = nn.Linear(hidden, dim, bias=False)
            self.layers.append(m)
        self.norm = nn.Parameter(torch.rand(dim) + 0.5)
        self.out = nn.Linear(dim, vocab, bias=False)
        freqs = 1.0 / (10000.0 ** (torch.arange(0, self.d, 2).float() / self.d))
        ang = torch.outer(torch.arange(seq).float(), freqs)
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())

    @staticmethod
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w

    def rope(self, x, cos, sin):  # x [1,1,H,D], pairs interleaved as ExecuTorch's apply_rotary_emb
        xr = x.reshape(*x.shape[:-1], -1, 2)
        a, b = xr[..., 0], xr[..., 1]
        return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)

    def forward(self, tokens, pos, k_cache, v_cache):
        x = self.emb(tokens)  # [1,1,dim]
        cos, sin = self.cos[pos], self.sin[pos]  # [1, D/2]
        here = (torch.arange(self.seq) == pos).view(1, 1, self.seq, 1)
        visible = (torch.arange(self.seq) <= pos).view(1, 1, 1, self.seq)
        new_k, new_v = [], []
        for i, m in enumerate(self.layers):
            h = self.rms(x, m.attn_norm)
            q = self.rope(m.wq(h).view(1, 1, self.h, self.d), cos, sin).transpose(1, 2)
            k = self.rope(m.wk(h).view(1, 1, self.kvh, self.d), cos, sin).transpose(1, 2)
            v = m.wv(h).view(1, 1, self.kvh, self.d).transpose(1, 2)
            kc = torch.where(here, k, k_cache[i])
            vc = torch.where(here, v, v_cache[i])
            new_k.append(kc)
            new_v.append(vc)
            rep = self.h // self.kvh
            kk, vv = kc.repeat_interleave(rep, 1), vc.repeat_interleave(rep, 1)
            s = (q @ kk.transpose(-1, -2)) / (self.d ** 0.5)
            s = s.masked_fill(~visible, float("-inf"))
            a = (s.softmax(-1) @ vv).transpose(1, 2).reshape(1, 1, -1)
            x = x + m.wo(a)
            h = self.rms(x, m.ffn_norm)
            x = x + m.w2(F.silu(m.w1(h)) * m.w3(h))
        logits = self.out(self.rms(x, self.norm))[:, -1]
        return logits, torch.stack(new_k), torch.stack(new_v)


def export(model, args, name, inputs, outputs):
    path = os.path.join(OUT, name)
    with torch.no_grad():
        torch.onnx.export(model.eval(), args, path, input_names=inputs, output_names=outputs,
                          opset_version=17, dynamo=False)
    return path


def check(path, model, args, names, atol):
    import onnxruntime as ort
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = sess.run(None, {n: a.numpy() for n, a in zip(names, args)})
    with torch.no_grad():
        want = model(*args)
    want = want if isinstance(want, (tuple, list)) else (want,)
    err = max(float(np.abs(g - w.numpy()).max()) for g, w in zip(got, want))
    print(f"{os.path.basename(path)}: {os.path.getsize(path)} bytes, onnxruntime vs torch max abs {err:.3g}")
    assert err <= atol, err


mnet = torchvision.models.mobilenet_v3_small(weights=None).eval()
x = torch.rand(1, 3, 224, 224)
check(export(mnet, (x,), "mobilenet_v3_small.onnx", ["x"], ["logits"]), mnet, (x,), ["x"], 1e-3)

esr = EsrganSlim().eval()
x = torch.rand(1, 3, 64, 64) * 255
check(export(esr, (x,), "esrgan_slim_x4.onnx", ["x"], ["y"]), esr, (x,), ["x"], 1e-2)

llm = TinyLlamaStep().eval()
names = ["tokens", "input_pos", "k_cache", "v_cache"]
args = (torch.tensor([[17]]), torch.tensor([3]), torch.randn(2, 1, 2, 32, 16), torch.randn(2, 1, 2, 32, 16))
path = export(llm, args, "llama_tiny_decode.onnx", names, ["logits", "k_cache_out", "v_cache_out"])
check(path, llm, args, names, 1e-4)

# 4-bit twin: onnxruntime's own quantizer turns each MatMul with a constant weight into
# MatMulNBits (block 32, symmetric), the format its CPU and wasm EPs run natively.
import onnx
from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
import inspect
kw = {"bits": 4} if "bits" in inspect.signature(MatMulNBitsQuantizer).parameters else {}
q = MatMulNBitsQuantizer(onnx.load(path), block_size=32, is_symmetric=True, **kw)
q.process()
qpath = os.path.join(OUT, "llama_tiny_decode_q4.onnx")
q.model.save_model_to_file(qpath, use_external_data_format=False)
ops = [n.op_type for n in onnx.load(qpath).graph.node]
print(f"llama_tiny_decode_q4.onnx: {ops.count('MatMulNBits')} MatMulNBits, {ops.count('MatMul')} MatMul left")
assert ops.count("MatMulNBits") == 15, ops
check(qpath, llm, args, names, 0.5)  # quantized against fp32 weights: only sanity
