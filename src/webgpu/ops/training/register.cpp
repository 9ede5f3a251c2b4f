// On-device training ops of ExecuTorch's Vulkan / WebGPU backends (shared/spec/ops.md §2.12),
// f32 only, semantics of backends/vulkan/custom_ops_lib.py:
//   et_vk.adamw_step              one AdamW step, param / m / v updated in place  -> adamw_step.wgsl
//   et_vk.fused_ce                softmax cross-entropy loss and its logits gradient -> fused_ce_rows.wgsl,
//                                                                                     fused_ce_sum.wgsl
//   et_vk.linear_dW               d_W = d_out^T x                                 -> linear_dw.wgsl
//   et_vk.linear_q4gsw_backward   d_x = d_out dequant(W) through a 4-bit layer    -> q4gsw_backward.wgsl
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 64;
constexpr uint32_t kRowWorkgroup = 64;  // fused_ce_*.wgsl: fixed workgroup of 64 threads

struct AdamwParams {
  uint32_t numel, p0, p1, p2;
  float lr, beta1, beta2, eps;
  float weight_decay, bias_correction1, bias_correction2, p3;
};
static_assert(sizeof(AdamwParams) == gpu::wgsl_size::training_params_AdamwParams);

struct CeParams {
  uint32_t rows, cols, p0, p1;
  float n_valid, p2, p3, p4;
};
static_assert(sizeof(CeParams) == gpu::wgsl_size::training_params_CeParams);

struct GradParams {
  uint32_t m, n, k, row_bytes;
  uint32_t padded_n, group_size, p0, p1;
};
static_assert(sizeof(GradParams) == gpu::wgsl_size::training_params_GradParams);

// The tensors of the op's returned tuple (argument i, "O"), exactly `expected` of them.
Result<std::vector<GpuTensor*>> output_tensors(const OpArgs& a, size_t i, size_t expected) {
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, a.outputs(i));
  if (outs.size() != expected)
    return a.invalid("expected " + std::to_string(expected) + " outputs, got " + std::to_string(outs.size()));
  for (const GpuTensor* t : outs)
    if (!t) return a.invalid("an output is None");
  return outs;
}

// ---- et_vk.adamw_step(param, m, v, grad, lr, beta1, beta2, eps, weight_decay, bc1, bc2) ----
// param / m / v are written in place (the op's schema marks them mutated, and the exporter's
// unsafe_remove_auto_functionalized_pass makes later readers use them directly). The returned
// tensors, when the plan gives them buffers of their own, get copies after the update.
Status adamw_step(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor* state[4];
  const char* what[4] = {"param", "m", "v", "grad"};
  for (int i = 0; i < 4; ++i) {
    state[i] = a.tensor(static_cast<size_t>(i));
    if (!state[i]->is_float()) return a.unsupported(std::string(what[i]) + " must be a float tensor");
    if (state[i]->max_numel() != state[0]->max_numel())
      return a.invalid(std::string(what[i]) + " " + shape_to_string(state[i]->max_dims) +
                                                        " differs in size from param " + shape_to_string(state[0]->max_dims));
  }
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (state[i]->buffer == state[j]->buffer)
        return a.unsupported(std::string(what[i]) + " and " + what[j] + " share one buffer");
  double s[7];  // lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2
  for (size_t i = 0; i < 7; ++i) s[i] = a.scalar(4 + i);
  if (s[5] == 0.0 || s[6] == 0.0) return a.invalid("bias corrections must be non-zero");
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, output_tensors(a, 11, 3));
  for (int i = 0; i < 3; ++i)
    if (!outs[static_cast<size_t>(i)]->is_float() || outs[static_cast<size_t>(i)]->max_numel() < state[0]->max_numel())
      return a.invalid(std::string("returned ") + what[i] + " cannot hold " + what[i]);

  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::adamw_step).set("wg_size", kWorkgroup), sizeof(AdamwParams),
      {state[0]->buffer.get(), state[1]->buffer.get(), state[2]->buffer.get(), state[3]->buffer.get(), kParamsSlot}));
  const uint64_t bytes = static_cast<uint64_t>(state[0]->max_numel()) * 4;
  for (int i = 0; i < 3; ++i)
    if (outs[static_cast<size_t>(i)]->buffer != state[i]->buffer && bytes > 0)
      WICK_RETURN_IF_ERROR(g.add_copy(*state[i]->buffer, *outs[static_cast<size_t>(i)]->buffer, bytes).status());
  return g.add_step([=, &g]() -> Status {
    const int64_t numel = state[0]->numel();
    for (int i = 1; i < 4; ++i)
      if (state[i]->numel() != numel)
        return op_error(ErrorCode::kInvalidArgument, name, std::string(what[i]) + " " + shape_to_string(state[i]->dims) +
                                                           " differs in size from param " + shape_to_string(state[0]->dims));
    for (int i = 0; i < 3; ++i) outs[static_cast<size_t>(i)]->dims = state[i]->dims;
    AdamwParams p{};
    p.numel = static_cast<uint32_t>(numel);
    p.lr = static_cast<float>(s[0]);
    p.beta1 = static_cast<float>(s[1]);
    p.beta2 = static_cast<float>(s[2]);
    p.eps = static_cast<float>(s[3]);
    p.weight_decay = static_cast<float>(s[4]);
    p.bias_correction1 = static_cast<float>(s[5]);
    p.bias_correction2 = static_cast<float>(s[6]);
    return kernel.launch(g, p, p.numel, kWorkgroup);
  });
}

// ---- et_vk.fused_ce(logits [M, V], labels [M], n_valid) -> (loss [], dlogits [M, V]) ----
// Rows with a negative label are ignored (zero loss and gradient). Labels that are graph
// inputs are range-checked on the host each execution, as PyTorch's gather would raise.
Status fused_ce(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *logits = a.tensor(0), *labels = a.tensor(1);
  const double nv = a.scalar(2);
  if (!(nv > 0)) return a.invalid("n_valid must be positive, got " + std::to_string(nv));
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, output_tensors(a, 3, 2));
  GpuTensor* loss = outs[0];
  GpuTensor* dlogits = outs[1];
  if (!logits->is_float() || !loss->is_float() || !dlogits->is_float())
    return a.unsupported("logits, loss and dlogits must be float tensors");
  if (labels->elem != Elem::kI32) return a.unsupported("labels must be an integer tensor");
  if (logits->rank() != 2 || labels->rank() != 1)
    return a.unsupported("expected logits [M, V] and labels [M], got " + shape_to_string(logits->max_dims) +
                                                    " and " + shape_to_string(labels->max_dims));
  if (loss->max_numel() < 1 || dlogits->max_numel() < logits->max_numel())
    return a.invalid("outputs too small for logits " + shape_to_string(logits->max_dims));
  if (dlogits->buffer == logits->buffer) return a.unsupported("dlogits aliases logits");
  const int64_t max_rows = logits->max_dims[0];
  WICK_ASSIGN_OR_RETURN(gpu::Buffer * row_loss, g.scratch(static_cast<uint64_t>(max_rows) * 4, "fused_ce row losses"));
  WICK_ASSIGN_OR_RETURN(auto rows_pipe, g.pipeline(gpu::PipelineKey(gpu::shaders::fused_ce_rows)));
  WICK_ASSIGN_OR_RETURN(auto sum_pipe, g.pipeline(gpu::PipelineKey(gpu::shaders::fused_ce_sum)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(CeParams), name));
  gpu::Dispatch rows;
  rows.pipeline = rows_pipe;
  rows.bindings = {{0, logits->buffer.get()}, {1, labels->buffer.get()}, {2, dlogits->buffer.get()}, {3, row_loss},
                   {4, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t rows_index, g.add_dispatch(std::move(rows)));
  gpu::Dispatch sum;
  sum.pipeline = sum_pipe;
  sum.bindings = {{0, row_loss}, {1, loss->buffer.get()}, {2, params->buffer()}};
  WICK_RETURN_IF_ERROR(g.add_dispatch(std::move(sum)).status());
  const int32_t labels_id = a.id(1);
  return g.add_step([=, &g]() -> Status {
    const int64_t m = logits->dims[0], v = logits->dims[1];
    if (labels->numel() != m)
      return op_error(ErrorCode::kInvalidArgument, name, "labels " + shape_to_string(labels->dims) + " do not match logits " +
                                                         shape_to_string(logits->dims));
    if (v <= 0) return op_error(ErrorCode::kInvalidArgument, name, "logits " + shape_to_string(logits->dims) + " have no classes");
    if (g.host_input_word(labels_id, 0).ok()) {  // a graph input: its values are known here
      for (int64_t r = 0; r < m; ++r) {
        WICK_ASSIGN_OR_RETURN(int64_t label, g.host_input_word(labels_id, r));
        if (label >= v)
          return op_error(ErrorCode::kInvalidArgument, name, "label " + std::to_string(label) + " of row " + std::to_string(r) +
                                                             " is out of range for " + std::to_string(v) + " classes");
      }
    }
    loss->dims = {};
    dlogits->dims = logits->dims;
    CeParams p{};
    p.rows = static_cast<uint32_t>(m);
    p.cols = static_cast<uint32_t>(v);
    p.n_valid = static_cast<float>(nv);
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(rows_index, static_cast<uint64_t>(m) * kRowWorkgroup, kRowWorkgroup);
  });
}

// ---- et_vk.linear_dW(d_out [..., N], x [..., K]) -> d_W [N, K] ----
Status linear_dw(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *d_out = a.tensor(0), *x = a.tensor(1), *d_w = a.out();
  if (!d_out->is_float() || !x->is_float() || !d_w->is_float())
    return a.unsupported("d_out, x and the result must be float tensors");
  if (d_out->rank() < 1 || x->rank() < 1) return a.invalid("d_out and x need at least one dim");
  const int64_t n = d_out->max_dims.back(), k = x->max_dims.back();
  if (n <= 0 || k <= 0) return a.invalid("d_out and x need a non-empty last dim");
  if (d_w->max_numel() < n * k)
    return a.invalid("result " + shape_to_string(d_w->max_dims) + " cannot hold [" +
                                                      std::to_string(n) + ", " + std::to_string(k) + "]");
  if (d_w->buffer == d_out->buffer || d_w->buffer == x->buffer)
    return a.unsupported("the result aliases an input");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::linear_dw).set("wg_size", kWorkgroup), sizeof(GradParams),
      {d_out->buffer.get(), x->buffer.get(), d_w->buffer.get(), kParamsSlot}));
  return g.add_step([=, &g]() -> Status {
    const int64_t cn = d_out->dims.back(), ck = x->dims.back();
    if (cn != n || ck != k)
      return op_error(ErrorCode::kInvalidArgument, name, "d_out " + shape_to_string(d_out->dims) + " or x " + shape_to_string(x->dims) +
                                                         " changed its last dim");
    const int64_t m = d_out->numel() / cn;
    if (x->numel() / ck != m)
      return op_error(ErrorCode::kInvalidArgument, name, "d_out " + shape_to_string(d_out->dims) + " and x " + shape_to_string(x->dims) +
                                                         " differ in rows");
    d_w->dims = {cn, ck};
    GradParams p{};
    p.m = static_cast<uint32_t>(m);
    p.n = static_cast<uint32_t>(cn);
    p.k = static_cast<uint32_t>(ck);
    return kernel.launch(g, p, static_cast<uint64_t>(cn) * ck, kWorkgroup);
  });
}

// ---- et_vk.linear_q4gsw_backward(d_out [..., N], weights uint8 [N, K/2], scales [groups, padded N],
//      group_size) -> d_x [..., K] with K = 2 * (K/2), as ExecuTorch's reference sizes it ----
Status linear_q4gsw_backward(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *d_out = a.tensor(0), *w = a.tensor(1), *scales = a.tensor(2), *d_x = a.out();
  const int64_t gs = a.integer(3);
  if (!d_out->is_float() || !scales->is_float() || !d_x->is_float())
    return a.unsupported("d_out, weight_scales and the result must be float tensors");
  if (w->elem != Elem::kPackedBytes || w->rank() != 2)
    return a.unsupported("weights must be a uint8 [N, K / 2] tensor");
  if (scales->rank() != 2) return a.invalid("weight_scales must be [groups, padded N]");
  if (d_out->rank() < 1 || d_x->rank() != d_out->rank())
    return a.invalid("d_out and the result differ in rank");
  const int64_t n = w->max_dims[0], row_bytes = w->max_dims[1], k = 2 * row_bytes;
  const int64_t groups = scales->max_dims[0], padded_n = scales->max_dims[1];
  if (gs <= 0) return a.invalid("group_size " + std::to_string(gs));
  if (n <= 0 || row_bytes <= 0) return a.invalid("empty weights " + shape_to_string(w->max_dims));
  if (d_out->max_dims.back() != n)
    return a.invalid("d_out " + shape_to_string(d_out->max_dims) + " does not end in N=" + std::to_string(n));
  if (groups < (k + gs - 1) / gs || padded_n < n)
    return a.invalid("weight_scales " + shape_to_string(scales->max_dims) + " do not cover K=" +
                                                      std::to_string(k) + ", N=" + std::to_string(n) + " in groups of " +
                                                      std::to_string(gs));
  if (d_x->max_dims.back() != k)
    return a.invalid("result " + shape_to_string(d_x->max_dims) + " does not end in K=" + std::to_string(k));
  if (d_x->buffer == d_out->buffer) return a.unsupported("the result aliases d_out");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::q4gsw_backward).set("wg_size", kWorkgroup), sizeof(GradParams),
      {d_out->buffer.get(), w->buffer.get(), scales->buffer.get(), d_x->buffer.get(), kParamsSlot}));
  return g.add_step([=, &g]() -> Status {
    if (d_out->dims.back() != n)
      return op_error(ErrorCode::kInvalidArgument, name, "d_out " + shape_to_string(d_out->dims) + " does not end in N=" + std::to_string(n));
    std::vector<int64_t> shape = d_out->dims;
    shape.back() = k;
    d_x->dims = shape;
    GradParams p{};
    p.m = static_cast<uint32_t>(d_out->numel() / n);
    p.n = static_cast<uint32_t>(n);
    p.k = static_cast<uint32_t>(k);
    p.row_bytes = static_cast<uint32_t>(row_bytes);
    p.padded_n = static_cast<uint32_t>(padded_n);
    p.group_size = static_cast<uint32_t>(gs);
    return kernel.launch(g, p, static_cast<uint64_t>(p.m) * p.k, kWorkgroup);
  });
}

}  // namespace

void append_training_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {{"et_vk.adamw_step.default", "T T T T F F F F F F F -> O", adamw_step},
                         {"et_vk.fused_ce.default", "T T F -> O", fused_ce},
                         {"et_vk.linear_dW.default", "T T -> T", linear_dw},
                         {"et_vk.linear_q4gsw_backward.default", "T T T I -> T", linear_q4gsw_backward}});
}

}  // namespace wick::webgpu
