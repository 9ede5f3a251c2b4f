// et_vk.linear_q4gsw: fp32 activations x 4-bit groupwise-symmetric weights (ops.md §5.1),
// dequantized on the fly. Routed per execution on the live row count M:
//   M == 1 -> q4gsw_gemv_rows (4 output rows per workgroup, coalesced 16-byte weight loads)
//             when K % 32 == 0, k_packed % 16 == 0 and group_size % 32 == 0 (every real
//             LLM shape); else q4gsw_gemv (cooperative over K, one workgroup per column)
//   M > 1  -> q4gsw_gemm (64x64 tiles, 4x4 outputs per thread, the weight tile dequantized
//             into workgroup memory)
// All kernels share one params block; the unused ones get a zero grid (skipped).
#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

struct Q4Params {
  uint32_t m, n, k, k_packed;
  uint32_t group_size, n_pad, has_bias, aligned;
};
// The WGSL Params of the family's module has the same size (generated at configure time).
static_assert(sizeof(Q4Params) == gpu::wgsl_size::q4gsw_params_Params);

// [x, weight, weight_scales, group_size, bias?, out]
Status linear_q4gsw(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *w = a.tensor(1), *scales = a.tensor(2), *bias = a.tensor(4), *y = a.out();
  const int64_t group_size = a.integer(3);
  WICK_RETURN_IF_ERROR(a.expect_float({x, scales, y, bias}, "input, scales, bias and output must be float"));
  if (w->elem != Elem::kPackedBytes || w->rank() != 2)
    return a.unsupported("weight must be a uint8 [N, K/2] constant");
  if (scales->rank() != 2) return a.invalid("scales must be 2-D");
  if (x->rank() < 1 || y->rank() != x->rank())
    return a.invalid("input and output ranks differ");
  const int64_t k = x->max_dims.back();
  const int64_t n = y->max_dims.back();
  const int64_t k_packed = w->max_dims[1];
  const int64_t groups = scales->max_dims[0], n_pad = scales->max_dims[1];
  if (group_size <= 0) return a.invalid("group_size must be positive");
  if (k_packed * 2 < k || w->max_dims[0] < n)
    return a.invalid("weight " + shape_to_string(w->max_dims) +
                                                  " does not cover K=" + std::to_string(k) + ", N=" + std::to_string(n));
  if (groups * group_size < k || n_pad < n)
    return a.invalid("scales " + shape_to_string(scales->max_dims) +
                                                  " do not cover K=" + std::to_string(k) + ", N=" + std::to_string(n));
  if (bias && bias->max_numel() < n)
    return a.invalid("bias shorter than N");
  if (y->buffer == x->buffer) return a.unsupported("aliased buffers");

  Q4Params base{};
  base.n = static_cast<uint32_t>(n);
  base.k = static_cast<uint32_t>(k);
  base.k_packed = static_cast<uint32_t>(k_packed);
  base.group_size = static_cast<uint32_t>(group_size);
  base.n_pad = static_cast<uint32_t>(n_pad);
  base.has_bias = bias ? 1 : 0;
  base.aligned = (k_packed % 4 == 0 && k % 8 == 0 && group_size % 8 == 0) ? 1 : 0;
  const bool rows_ok = k_packed % 16 == 0 && k % 32 == 0 && group_size % 32 == 0;

  // The three kernels share the bindings and one params block.
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(Q4Params), name));
  const std::vector<gpu::BufferBinding> bindings = {{0, x->buffer.get()},
                                                    {1, w->buffer.get()},
                                                    {2, scales->buffer.get()},
                                                    {3, bias ? bias->buffer.get() : scales->buffer.get()},
                                                    {4, y->buffer.get()},
                                                    {5, params->buffer()}};
  size_t indices[3];  // gemv, gemv_rows, gemm
  const gpu::ShaderName shaders[3] = {gpu::shaders::q4gsw_gemv, gpu::shaders::q4gsw_gemv_rows, gpu::shaders::q4gsw_gemm};
  for (size_t i = 0; i < 3; ++i) {
    gpu::Dispatch d;
    WICK_ASSIGN_OR_RETURN(d.pipeline, g.pipeline(gpu::PipelineKey(shaders[i])));
    d.bindings = bindings;
    WICK_ASSIGN_OR_RETURN(indices[i], g.add_dispatch(std::move(d)));
  }
  const size_t gemv_index = indices[0], rows_index = indices[1], gemm_index = indices[2];

  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(const int64_t m, set_linear_output(name, x, k, n, y));
    Q4Params p = base;
    p.m = static_cast<uint32_t>(m);
    WICK_RETURN_IF_ERROR(params->write(p));
    if (m == 1) {
      WICK_RETURN_IF_ERROR(g.set_workgroups(gemm_index, 0, 0, 0));
      if (rows_ok) {
        WICK_RETURN_IF_ERROR(g.set_workgroups(gemv_index, 0, 0, 0));
        return g.set_grid(rows_index, ceil_div(static_cast<uint64_t>(n), 4) * 64, 64);
      }
      WICK_RETURN_IF_ERROR(g.set_workgroups(rows_index, 0, 0, 0));
      return g.set_grid(gemv_index, static_cast<uint64_t>(n) * 64, 64);
    }
    WICK_RETURN_IF_ERROR(g.set_workgroups(gemv_index, 0, 0, 0));
    WICK_RETURN_IF_ERROR(g.set_workgroups(rows_index, 0, 0, 0));
    if (m == 0) return g.set_workgroups(gemm_index, 0, 0, 0);
    return g.set_workgroups(gemm_index, ceil_div(static_cast<uint64_t>(n), 64), ceil_div(static_cast<uint64_t>(m), 64));
  });
}

}  // namespace

void append_quantized_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"et_vk.linear_q4gsw.default", "T T T I T? -> T", linear_q4gsw},
  });
}

}  // namespace wick::webgpu
