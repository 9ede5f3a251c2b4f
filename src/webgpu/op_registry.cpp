#include "webgpu/op_registry.h"

#include "webgpu/ops/families.h"

namespace wick::webgpu {

const std::vector<OpEntry>& all_ops() {
  static const std::vector<OpEntry> ops = [] {
    std::vector<OpEntry> v;
    // Each family lists its own operators (ops/<family>/register.cpp).
    append_graph_ops(v);
    append_elementwise_ops(v);
    append_reduce_ops(v);
    append_norm_ops(v);
    append_matmul_ops(v);
    append_conv_ops(v);
    append_pool_ops(v);
    append_shape_ops(v);
    append_indexing_ops(v);
    append_upsample_ops(v);
    append_attention_ops(v);
    append_quantized_ops(v);
    append_creation_ops(v);
    append_qdq_ops(v);
    append_positional_ops(v);
    append_sampling_ops(v);
    append_embedding_q4gsw_ops(v);
    append_linear_qcs4w_ops(v);
    append_linear_dq8ca_q4gsw_ops(v);
    append_training_ops(v);
    append_q4gsw_requant_ops(v);
    append_q8ta_elementwise_ops(v);
    append_q8ta_conv_ops(v);
    append_q8ta_linear_ops(v);
    return v;
  }();
  return ops;
}

OpBuilder find_op(std::string_view name) {
  for (const OpEntry& e : all_ops())
    if (name == e.name) return OpBuilder(&e);
  return nullptr;
}

}  // namespace wick::webgpu
