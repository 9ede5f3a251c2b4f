// One function per operator family; each appends its operators to the registry.
#pragma once

#include <vector>

#include "webgpu/op_registry.h"

namespace wick::webgpu {

void append_graph_ops(std::vector<OpEntry>& ops);        // ops/graph: prepack, SymInt ops
void append_elementwise_ops(std::vector<OpEntry>& ops);  // ops/elementwise: binary, unary, compare, where, clamp
void append_reduce_ops(std::vector<OpEntry>& ops);       // ops/reduce: sum, mean, amax, argmax, softmax
void append_norm_ops(std::vector<OpEntry>& ops);         // ops/norm: layer, group, batch, rms norm
void append_matmul_ops(std::vector<OpEntry>& ops);       // ops/matmul: linear, mm, bmm
void append_conv_ops(std::vector<OpEntry>& ops);         // ops/conv: convolution, conv_with_clamp, transposed
void append_pool_ops(std::vector<OpEntry>& ops);         // ops/pool: avg/max pool
void append_shape_ops(std::vector<OpEntry>& ops);        // ops/shape: view, permute, cat, slice, select, expand...
void append_indexing_ops(std::vector<OpEntry>& ops);     // ops/indexing: embedding, index, index_select, gather
void append_upsample_ops(std::vector<OpEntry>& ops);     // ops/upsample: nearest, bilinear
void append_attention_ops(std::vector<OpEntry>& ops);    // ops/attention: sdpa_with_kv_cache, rotary embeddings
void append_quantized_ops(std::vector<OpEntry>& ops);    // ops/quantized: linear_q4gsw
void append_embedding_q4gsw_ops(std::vector<OpEntry>& ops);  // ops/quantized: embedding_q4gsw
void append_linear_qcs4w_ops(std::vector<OpEntry>& ops);     // ops/quantized: linear_qcs4w
void append_linear_dq8ca_q4gsw_ops(std::vector<OpEntry>& ops);  // ops/quantized: linear_dq8ca_q4gsw (8da4w)
void append_q4gsw_requant_ops(std::vector<OpEntry>& ops);        // ops/quantized: q4gsw_requant
void append_q8ta_elementwise_ops(std::vector<OpEntry>& ops);     // ops/q8ta: q8ta_add, q8ta_relu, q8ta_pixel_shuffle
void append_q8ta_conv_ops(std::vector<OpEntry>& ops);            // ops/q8ta: q8ta_conv2d{,_pw,_dw,_transposed}
void append_q8ta_linear_ops(std::vector<OpEntry>& ops);          // ops/q8ta: q8ta_linear{,_gemv}, linear_q8ta_q8csw
void append_creation_ops(std::vector<OpEntry>& ops);     // ops/creation: full, full_like, arange
void append_positional_ops(std::vector<OpEntry>& ops);   // ops/positional: interleaved RoPE, grid_priors
void append_sampling_ops(std::vector<OpEntry>& ops);     // ops/sampling: grid_sampler_2d
void append_qdq_ops(std::vector<OpEntry>& ops);          // ops/qdq: quantize/dequantize per tensor, choose_qparams
void append_training_ops(std::vector<OpEntry>& ops);     // ops/training: adamw_step, fused_ce, linear_dW, q4gsw backward

}  // namespace wick::webgpu
