#include "webgpu/ops/norm/norm_into_splitk.h"

#include <algorithm>
#include <string>

#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

// matmul_splitk_reduce_ln.wgsl's NormParams.
struct NormParams {
  float eps;
  uint32_t flags, pad0, pad1;  // flags: 1 weight, 2 bias
};

constexpr uint32_t kMaxWorkgroup = 256;
constexpr uint32_t kMaxVec4PerThread = 4;

}  // namespace

Result<NormIntoSplitk> plan_norm_into_splitk(Graph& g, const char* name, const GpuTensor* x, const GpuTensor* weight,
                                             const GpuTensor* bias, const GpuTensor* out, int32_t mean_id,
                                             int32_t rstd_id) {
  NormIntoSplitk f;
  const Graph::SplitReduceNote* note = g.split_reduce_note();
  if (!g.options().norm_into_splitk || !note || note->out != x || x->max_dims.empty()) return f;
  // The fused kernel writes neither statistic.
  if ((mean_id >= 0 && g.value_read_elsewhere(mean_id)) || (rstd_id >= 0 && g.value_read_elsewhere(rstd_id))) return f;
  const int64_t n = x->max_dims.back();
  if (n <= 0 || n % 4 != 0) return f;
  const uint64_t n4 = static_cast<uint64_t>(n) / 4;
  uint32_t wg = 32;
  while (wg < n4 && wg < kMaxWorkgroup) wg *= 2;
  const uint64_t vpt = (n4 + wg - 1) / wg;
  if (vpt > kMaxVec4PerThread) return f;
  // Bindings 0, 2-9 take eight storage buffers, WebGPU's default limit.
  if (g.device().limits().max_storage_buffers_per_shader_stage < 8) return f;
  // The norm's output is written by this dispatch beside c: no other binding may share its
  // buffer (a read-only binding of a written buffer, or two writable ones, is refused).
  // But the residual's (binding 5) where it is the very same words: the memory plan reuses
  // the residual's buffer for the norm's output when the sum is the residual's last reader,
  // and the kernel then reads the residual from ln_out (RES_IN_LN).
  const gpu::Buffer* partial = note->bindings.front().buffer;  // binding 0: read-only, stands in for absent ones
  const WGPUBuffer out_handle = out->buffer->handle();
  bool res_in_ln = false;
  std::vector<gpu::BufferBinding> bindings = note->bindings;
  for (gpu::BufferBinding& b : bindings) {
    if (!b.buffer || b.buffer->handle() != out_handle) continue;
    if (b.binding != 5 || b.buffer->offset() != out->buffer->offset()) return f;
    res_in_ln = true;
    b.buffer = partial;
  }
  for (const GpuTensor* t : {weight, bias})
    if (t && t->buffer->handle() == out_handle) return f;

  gpu::PipelineKey key(gpu::shaders::matmul_splitk_reduce_ln);
  key.set("KS", note->splits).set("WG", wg).set("VPT", static_cast<uint32_t>(vpt)).set("RES_IN_LN", res_in_ln ? 1 : 0);
  if (note->specialize) key.set("EPI", note->epi_codes);
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(key));
  WICK_ASSIGN_OR_RETURN(f.params, g.params(sizeof(NormParams), std::string(name) + " in the split-K reduce"));
  gpu::Dispatch d;
  d.pipeline = std::move(pipeline);
  d.label = g.current_op() + " matmul_splitk_reduce_ln";
  d.bindings = std::move(bindings);
  d.bindings.push_back({7, weight ? weight->buffer.get() : partial});
  d.bindings.push_back({8, bias ? bias->buffer.get() : partial});
  d.bindings.push_back({9, out->buffer.get()});
  d.bindings.push_back({10, f.params->buffer()});
  f.reduce_index = note->reduce_index;
  f.wg = wg;
  f.vpt = static_cast<uint32_t>(vpt);
  f.b = note->b;
  f.trans_b = note->trans_b;
  WICK_ASSIGN_OR_RETURN(f.index, g.add_dispatch(std::move(d)));
  // Profiles count it with the product (a conservative TFLOP/s: the norm's work included).
  g.profile_with(f.index, f.reduce_index);
  return f;
}

Result<bool> use_norm_into_splitk(Graph& g, const NormIntoSplitk& f, int64_t rows, int64_t inner, float eps,
                                  bool weight, bool bias) {
  if (f.index == SIZE_MAX) return false;
  // The product's N this call: the rows it finished must be the norm's rows.
  const auto& bd = f.b->dims;
  const int64_t n = bd.empty() ? -1 : f.trans_b ? bd.front() : bd.back();
  const bool use = g.commands().active(f.reduce_index) && inner == n && inner % 4 == 0 && rows > 0 &&
                   static_cast<uint64_t>(inner) <= uint64_t{4} * f.wg * f.vpt;
  if (!use) {
    WICK_RETURN_IF_ERROR(g.set_workgroups(f.index, 0, 0, 0));
    return false;
  }
  WICK_RETURN_IF_ERROR(f.params->write(NormParams{eps, (weight ? 1u : 0u) | (bias ? 2u : 0u), 0, 0}));
  WICK_RETURN_IF_ERROR(g.set_workgroups(f.reduce_index, 0, 0, 0));
  WICK_RETURN_IF_ERROR(g.set_grid(f.index, static_cast<uint64_t>(rows) * f.wg, f.wg));
  return true;
}

}  // namespace wick::webgpu
