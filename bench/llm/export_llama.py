"""Exports a Llama-3.2-1B-shaped (or Qwen3-0.6B-shaped) 4-bit program with random weights.

ExecuTorch 1.5.0's LLM flow, as `export_llama` / LLMEdgeManager run it: the Transformer of
executorch.examples.models.llama, torchao 4-bit group-wise weight-only quantization of every
nn.Linear (-> et_vk.linear_q4gsw), the custom SDPA and custom KV-cache source transforms,
strict torch.export with LLMEdgeManager's dynamic token dimension, run_decompositions({}),
RemoveRedundantTransposes, export again, VulkanPartitioner, the LLM metadata methods.
Run on the H200 machine after `. .et/env.sh` (shared/executorch/README.md).

It also runs the same quantized, transformed module eagerly on a prefill chunk and one
decode step and writes those inputs and logits under --ref-dir, so that bench/llm/bench.sh
can check Wick's logits against PyTorch eager in the same call.
"""
import argparse
import copy
import json
import math
import os
import re
import time

import torch

# --- the llama:: custom ops, defined in Python (the C++ AOT library is not available) ----
# Schemas are read from ExecuTorch's op_sdpa_aot.cpp so they match what the runtime expects;
# custom_ops.py then adds its Meta kernels to them.


def _define_llama_ops():
    src = open(os.environ["ET_LLAMA_OPS_CPP"]).read()
    lib = torch.library.Library("llama", "FRAGMENT")  # op_fallback.py defines more in "llama"
    for m in re.finditer(r'm\.def\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', src):
        lib.define("".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))))
    # custom_ops.py asserts these two exist (other C++ files define them upstream).
    lib.define("fast_hadamard_transform(Tensor mat) -> Tensor")
    lib.define("quantized_moe_ffn(Tensor x, Tensor gate_weight, Tensor? expert_bias, Tensor packed_w13, "
               "Tensor packed_w2, int num_activated_experts, int num_experts, int hidden_dim, int dim, "
               "int group_size, int weight_nbit, str score_func, float route_scale) -> Tensor")
    impl = torch.library.Library("llama", "IMPL")

    def update_cache(value, cache, start_pos):
        # cache [B, S, H, D]; value [B, s, H, D] lands at rows start_pos..start_pos+s-1.
        cache[:, start_pos:start_pos + value.shape[1]] = value
        return torch.empty(0)

    def custom_sdpa(q, k, v, start_pos, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
        # q [B, s, Hq, D]; k, v: the whole caches [B, S, Hkv, D]; causal over start_pos + i.
        s, hq, d = q.shape[1], q.shape[2], q.shape[3]
        hkv = k.shape[2]
        kv_len = start_pos + s
        kk = k[:, :kv_len].repeat_interleave(hq // hkv, dim=2).transpose(1, 2)
        vv = v[:, :kv_len].repeat_interleave(hq // hkv, dim=2).transpose(1, 2)
        qq = q.transpose(1, 2)
        att = (qq @ kk.transpose(-1, -2)) * (scale if scale is not None else 1.0 / math.sqrt(d))
        if attn_mask is not None:
            att = att + attn_mask[..., :kv_len]
        elif is_causal:
            qpos = torch.arange(s).unsqueeze(1) + start_pos
            att = att.masked_fill(torch.arange(kv_len).unsqueeze(0) > qpos, float("-inf"))
        return (att.softmax(-1) @ vv).transpose(1, 2).contiguous()

    impl.impl("update_cache", update_cache, "CPU")
    impl.impl("custom_sdpa", custom_sdpa, "CPU")
    return lib, impl


import executorch.exir  # noqa: E402,F401  (its op_fallback.py owns the "llama" DEF library)

_LIBS = _define_llama_ops()

from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner  # noqa: E402
from executorch.examples.models.llama.llama_transformer import construct_transformer  # noqa: E402
from executorch.examples.models.llama.model_args import ModelArgs  # noqa: E402
from executorch.examples.models.llama.source_transformation.custom_kv_cache import (  # noqa: E402
    replace_kv_cache_with_custom_kv_cache)
from executorch.examples.models.llama.source_transformation.sdpa import replace_sdpa_with_custom_op  # noqa: E402
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower  # noqa: E402
from executorch.extension.llm.export.export_passes import RemoveRedundantTransposes  # noqa: E402
from torchao.quantization import IntxWeightOnlyConfig, quantize_  # noqa: E402
from torchao.quantization.granularity import PerGroup  # noqa: E402
from torchao.utils import unwrap_tensor_subclass  # noqa: E402
from executorch.examples.models.llama import rope as _rope  # noqa: E402

_orig_get_freqs = _rope.Rope.get_freqs
ROPE = {"mode": "narrow"}


def _get_freqs_dynamic(self, input_pos, seq_len):
    """Rope.get_freqs of the dynamic-shape KV-cache program, in one of three forms (--rope).

    narrow:   ExecuTorch's own: narrow the tables at `input_pos[-1].item()`. On torch 2.11
              (ExecuTorch 1.5 pins 2.13) the Vulkan preprocess re-traces the delegated
              subgraph without the exported program's runtime asserts, and the slice's
              bounds check cannot be decided ("Could not guard on data-dependent expression
              u + s11 > 2048").
    gather:   rows input_pos + arange(seq_len) by index_select: no unbacked symbol, but the
              partitioner left the int64 arange/index_select outside, split the graph into
              3 delegates and its memory planning asserted.
    narrow2x: ExecuTorch's narrow on tables of 2 * max_context_len rows, as ExecuTorch
              itself builds them whenever ffn_dim_multiplier is set (Qwen3, the tiny
              fixture that exports): then u < max_context and seq_len < max_context decide
              the bounds check. The first max_context_len rows are the same values.
    compute:  cos/sin of (input_pos + arange(seq_len)) * inv_freq, all in float: no table
              lookup and no integer op for the partitioner to reject. The tables hold
              cos/sin(outer(t, inv_freq)) in float32, so the values are the same products.
    """
    if not (self.params.use_kv_cache and self.params.enable_dynamic_shape) or ROPE["mode"] in ("narrow", "narrow2x"):
        return _orig_get_freqs(self, input_pos, seq_len)
    if ROPE["mode"] == "gather":
        pos = input_pos[-1:] + torch.arange(seq_len, dtype=input_pos.dtype)
        return self.freqs_cos.index_select(0, pos), self.freqs_sin.index_select(0, pos)
    t = input_pos[-1:].to(torch.float32) + torch.arange(seq_len, dtype=torch.float32)
    ang = t[:, None] * self.inv_freq_for_compute[None, :]
    if self.params.use_hf_rope:  # HF layout: the half-table repeated
        ang = torch.cat([ang, ang], dim=-1)
    return torch.cos(ang), torch.sin(ang)


_rope.Rope.get_freqs = _get_freqs_dynamic


def _prepare_rope(model, mode):
    """narrow2x: tables of twice the rows. compute: the inverse frequencies behind the
    tables (table row 1 holds cos/sin(1 * inv_freq), and angle(row 1) recovers inv_freq to
    float precision for whatever scaling the model's rope used)."""
    for m in model.modules():
        if not isinstance(m, _rope.Rope):
            continue
        p = m.params
        if mode == "narrow2x" and m.freqs_cos.shape[0] < 2 * p.max_context_len:
            cos, sin = m.precompute_freqs_cis(p.head_dim, 2 * p.max_context_len, p.rope_freq_base)
            assert torch.equal(cos[:m.freqs_cos.shape[0]], m.freqs_cos)
            m.register_buffer("freqs_cos", cos, persistent=False)
            m.register_buffer("freqs_sin", sin, persistent=False)
        if mode == "compute":
            half = m.freqs_cos.shape[-1] // (2 if p.use_hf_rope else 1)
            inv = torch.atan2(m.freqs_sin[1, :half].double(), m.freqs_cos[1, :half].double()).float()
            m.register_buffer("inv_freq_for_compute", inv, persistent=False)

SHAPES = {
    # meta-llama/Llama-3.2-1B config.json
    "llama3_2_1b": dict(dim=2048, n_layers=16, n_heads=32, n_kv_heads=8, vocab_size=128256, hidden_dim=8192,
                        norm_eps=1e-5, rope_freq_base=500000.0, use_scaled_rope=True, rope_scale_factor=32),
    # Qwen/Qwen3-0.6B config.json
    "qwen3_0_6b": dict(dim=1024, n_layers=28, n_heads=16, n_kv_heads=8, head_dim=128, vocab_size=151936,
                       hidden_dim=3072, norm_eps=1e-6, rope_freq_base=1000000.0, use_qk_norm=True,
                       qk_norm_before_rope=True, use_hf_rope=True),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=sorted(SHAPES), default="llama3_2_1b")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ref-dir", required=True)
    ap.add_argument("--group-size", type=int, default=64)
    ap.add_argument("--max-context", type=int, default=2048)
    ap.add_argument("--prefill", type=int, default=7, help="tokens in the reference prefill chunk")
    ap.add_argument("--n-layers", type=int, default=0, help="override the layer count (a quick trial export)")
    ap.add_argument("--rope", choices=["narrow", "narrow2x", "gather", "compute"], default="narrow2x",
                    help="how the dynamic program looks up its rope frequencies (see _get_freqs_dynamic)")
    ap.add_argument("--static", action="store_true",
                    help="tokens [1, 1] (no dynamic prefill; the runner feeds prompts one token at a time)")
    a = ap.parse_args()
    ROPE["mode"] = a.rope
    torch.manual_seed(0)
    t0 = time.time()
    shape = dict(SHAPES[a.shape])
    if a.n_layers:
        shape["n_layers"] = a.n_layers
    args = ModelArgs(**shape, max_batch_size=1, max_seq_len=a.max_context, max_context_len=a.max_context,
                     use_kv_cache=True, enable_dynamic_shape=not a.static, generate_full_logits=False)
    model = construct_transformer(args).eval()
    _prepare_rope(model, a.rope)
    # Tied embeddings (both shapes tie them): the LM head shares the embedding's weights.
    model.output.weight = model.tok_embeddings.weight
    with torch.no_grad():  # random weights at a realistic scale
        model.tok_embeddings.weight.normal_(0.0, 0.02)
    quantize_(model, IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(a.group_size)))
    model = unwrap_tensor_subclass(model)
    model = replace_sdpa_with_custom_op(model)
    model = replace_kv_cache_with_custom_kv_cache(model)
    eager = copy.deepcopy(model)
    print(f"built and quantized in {time.time() - t0:.1f} s", flush=True)

    tokens = torch.tensor([[2]] if a.static else [[2, 3, 4]], dtype=torch.long)
    example = (tokens, {"input_pos": torch.tensor([0], dtype=torch.long)})
    dyn = None if a.static else ({1: torch.export.Dim("token_dim", max=a.max_context - 1)}, {"input_pos": {0: 1}})
    t0 = time.time()
    with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]), torch.no_grad():
        ep = torch.export.export(model, example, dynamic_shapes=dyn, strict=True).run_decompositions({})
        gm = RemoveRedundantTransposes()(ep.module()).graph_module
        ep = torch.export.export(gm, example, dynamic_shapes=dyn, strict=True)
    print(f"exported in {time.time() - t0:.1f} s", flush=True)
    metadata = {"get_max_seq_len": a.max_context, "get_max_context_len": a.max_context,
                "get_n_layers": args.n_layers, "get_vocab_size": args.vocab_size, "use_kv_cache": True,
                "use_sdpa_with_kv_cache": False, "enable_dynamic_shape": not a.static, "get_bos_id": 1,
                "get_eos_ids": [2]}
    t0 = time.time()
    lowered = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner({} if a.static else {"require_dynamic_shapes": True})],
                                          constant_methods=metadata,
                                          # as LLMEdgeManager._get_edge_config: the IR check
                                          # cannot guard the rope narrow on input_pos
                                          compile_config=EdgeCompileConfig(_check_ir_validity=False))
    prog = lowered.to_executorch()
    with open(a.out, "wb") as f:
        prog.write_to_file(f)
    print(f"lowered and written in {time.time() - t0:.1f} s: {a.out} {os.path.getsize(a.out)} bytes", flush=True)
    ops = {}
    for n in lowered.exported_program().graph.nodes:
        if n.op == "call_function":
            ops[str(n.target)] = ops.get(str(n.target), 0) + 1
    print("top-level ops:", json.dumps(ops))

    # Eager references: a prefill chunk at position 0, then one decode token after it.
    os.makedirs(a.ref_dir, exist_ok=True)
    g = torch.Generator().manual_seed(1)
    steps = [(torch.randint(0, args.vocab_size, (1, a.prefill), generator=g), 0),
             (torch.randint(0, args.vocab_size, (1, 1), generator=g), a.prefill)]
    with torch.no_grad():
        for i, (tok, pos) in enumerate(steps):
            pos_t = torch.tensor([pos], dtype=torch.long)
            logits = eager(tok, {"input_pos": pos_t})
            if isinstance(logits, tuple):
                logits = logits[0]
            tok.numpy().tofile(f"{a.ref_dir}/step{i}_tokens.bin")
            pos_t.numpy().tofile(f"{a.ref_dir}/step{i}_pos.bin")
            logits.float().contiguous().numpy().tofile(f"{a.ref_dir}/step{i}_logits.bin")
            print(f"step {i}: tokens {list(tok.shape)} pos {pos} logits {list(logits.shape)} "
                  f"max|.| {logits.abs().max().item():.4f}", flush=True)


if __name__ == "__main__":
    main()
