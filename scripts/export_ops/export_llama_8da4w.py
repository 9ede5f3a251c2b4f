"""The tiny Llama of shared/fixtures/demos/llama_q4gsw_kv, quantized as ExecuTorch's LLM flow
does for "8da4w" with a 4-bit embedding: every nn.Linear through torchao's
Int8DynamicActivationIntxWeightConfig(int4, PerGroup(32)) (8-bit dynamic activations, 4-bit
group-wise weights -> et_vk.linear_dq8ca_q4gsw) and the token embedding through
IntxWeightOnlyConfig(int4, PerGroup(32)) (-> et_vk.embedding_q4gsw), then the custom SDPA and
KV-cache source transforms, strict export, VulkanPartitioner. Issue 14's "4-bit Llama with
4-bit embeddings and 8da4w linears". References: eager outputs of the same quantized module
on 3 decode steps (the cases run in order on one loaded method: the KV cache carries over).

Run on the device machine: `. .et/env.sh && python3 scripts/export_ops/export_llama_8da4w.py --out DIR`
"""
import argparse
import copy
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "llm"))
import export_llama  # noqa: E402  (defines the llama:: ops in Python; static programs keep ExecuTorch's rope)
from fixture_files import write_fixture  # noqa: E402
from export_ops import delegation  # noqa: E402

from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner  # noqa: E402
from executorch.examples.models.llama.llama_transformer import construct_transformer  # noqa: E402
from executorch.examples.models.llama.model_args import ModelArgs  # noqa: E402
from executorch.examples.models.llama.source_transformation.custom_kv_cache import (  # noqa: E402
    replace_kv_cache_with_custom_kv_cache)
from executorch.examples.models.llama.source_transformation.sdpa import replace_sdpa_with_custom_op  # noqa: E402
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower  # noqa: E402
from executorch.extension.llm.export.export_passes import RemoveRedundantTransposes  # noqa: E402
from torchao.quantization import Int8DynamicActivationIntxWeightConfig, IntxWeightOnlyConfig, quantize_  # noqa: E402
from torchao.quantization.granularity import PerGroup  # noqa: E402
from torchao.utils import unwrap_tensor_subclass  # noqa: E402

GROUP = 32


def build():
    torch.manual_seed(0)
    args = ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=512, hidden_dim=128, multiple_of=32,
                     max_batch_size=1, max_seq_len=32, max_context_len=32, use_kv_cache=True,
                     enable_dynamic_shape=False, generate_full_logits=False)
    model = construct_transformer(args).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.2)
    quantize_(model, IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(GROUP)),
              filter_fn=lambda m, fqn: isinstance(m, torch.nn.Embedding))
    quantize_(model, Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(GROUP)),
              filter_fn=lambda m, fqn: isinstance(m, torch.nn.Linear) and m.weight.shape[1] % GROUP == 0)
    model = unwrap_tensor_subclass(model)
    model = replace_sdpa_with_custom_op(model)
    model = replace_kv_cache_with_custom_kv_cache(model)
    return args, model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="parent folder; the fixture goes to OUT/llama_8da4w_q4emb")
    a = ap.parse_args()
    args, model = build()
    eager = copy.deepcopy(model)
    example = (torch.tensor([[2]], dtype=torch.long), {"input_pos": torch.tensor([0], dtype=torch.long)})
    # As export_llama.py (LLMEdgeManager's order): export, decompose, drop redundant
    # transposes, export again; the Vulkan SDPA pattern needs the update_cache nodes it leaves.
    with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]), torch.no_grad():
        ep = torch.export.export(model, example, strict=True).run_decompositions({})
        gm = RemoveRedundantTransposes()(ep.module()).graph_module
        ep = torch.export.export(gm, example, strict=True)
    lowered = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner({})],
                                          compile_config=EdgeCompileConfig(_check_ir_validity=False))
    vk_ops, outside = delegation(lowered)
    pte = lowered.to_executorch().buffer
    print("outside delegates:", outside, flush=True)
    print("delegated ops:", vk_ops, flush=True)

    g = torch.Generator().manual_seed(1)
    cases = []
    with torch.no_grad():
        for pos in range(3):
            tok = torch.randint(0, args.vocab_size, (1, 1), generator=g)
            pos_t = torch.tensor([pos], dtype=torch.long)
            logits = eager(tok, {"input_pos": pos_t})
            logits = logits[0] if isinstance(logits, tuple) else logits
            f = lambda t, name: (name, list(t.shape), t.contiguous().numpy().tobytes())  # noqa: E731
            cases.append(([f(tok, "int64"), f(pos_t, "int64")], [f(logits.float(), "float32")]))
            print(f"step {pos}: max|logits| {logits.abs().max().item():.4f}", flush=True)
    extra = {
        "versions": {"torch": torch.__version__, "executorch": "1.5.0 (cff6f4dd32e6)", "python": sys.version.split()[0]},
        "reference": {"computed_by": "PyTorch eager of the quantized, transformed module, fp32, CPU",
                      "note": "cases are decode steps at input_pos 0, 1, 2 on one loaded method"},
        "lowering": {"api": "to_edge_transform_and_lower", "partitioner": "VulkanPartitioner", "compile_options": {}},
        "delegated_edge_op_counts": vk_ops,
        "edge_ops_outside_delegates": outside,
        "made_by": "scripts/export_ops/export_llama_8da4w.py",
    }
    desc = ("tiny Llama (dim 64, 2 layers, vocab 512, KV cache 32) with torchao 8da4w linears "
            "(Int8DynamicActivationIntxWeightConfig int4 PerGroup(32)) and a 4-bit PerGroup(32) token embedding, "
            "3 decode steps")
    write_fixture(os.path.join(a.out, "llama_8da4w_q4emb"), "llama_8da4w_q4emb", desc, pte, cases, (1e-4, 1e-4), extra)
    print("wrote", os.path.join(a.out, "llama_8da4w_q4emb"), len(pte), "bytes")


if __name__ == "__main__":
    main()
