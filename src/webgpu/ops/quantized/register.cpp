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

Status linear_q4gsw(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "et_vk.linear_q4gsw.default";
  if (args.size() != 6)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected 6 arguments, got " +
                                                  std::to_string(args.size()));
  WICK_ASSIGN_OR_RETURN(GpuTensor * x, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * w, g.tensor(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * scales, g.tensor(args[2], name));
  WICK_ASSIGN_OR_RETURN(int64_t group_size, g.int_arg(args[3], name));
  GpuTensor* bias = nullptr;
  if (!g.is_none(args[4])) {
    WICK_ASSIGN_OR_RETURN(bias, g.tensor(args[4], name));
  }
  WICK_ASSIGN_OR_RETURN(GpuTensor * y, g.tensor(args[5], name));

  if (!x->is_float() || !scales->is_float() || !y->is_float() || (bias && !bias->is_float()))
    return Status(ErrorCode::kNotSupported, std::string(name) + ": input, scales, bias and output must be float");
  if (w->elem != Elem::kPackedBytes || w->rank() != 2)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": weight must be a uint8 [N, K/2] constant");
  if (scales->rank() != 2) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": scales must be 2-D");
  if (x->rank() < 1 || y->rank() != x->rank())
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": input and output ranks differ");
  const int64_t k = x->max_dims.back();
  const int64_t n = y->max_dims.back();
  const int64_t k_packed = w->max_dims[1];
  const int64_t groups = scales->max_dims[0], n_pad = scales->max_dims[1];
  if (group_size <= 0) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": group_size must be positive");
  if (k_packed * 2 < k || w->max_dims[0] < n)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": weight " + shape_to_string(w->max_dims) +
                                                  " does not cover K=" + std::to_string(k) + ", N=" + std::to_string(n));
  if (groups * group_size < k || n_pad < n)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": scales " + shape_to_string(scales->max_dims) +
                                                  " do not cover K=" + std::to_string(k) + ", N=" + std::to_string(n));
  if (bias && bias->max_numel() < n)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": bias shorter than N");
  if (y->buffer == x->buffer) return Status(ErrorCode::kNotSupported, std::string(name) + ": aliased buffers");

  Q4Params base{};
  base.n = static_cast<uint32_t>(n);
  base.k = static_cast<uint32_t>(k);
  base.k_packed = static_cast<uint32_t>(k_packed);
  base.group_size = static_cast<uint32_t>(group_size);
  base.n_pad = static_cast<uint32_t>(n_pad);
  base.has_bias = bias ? 1 : 0;
  base.aligned = (k_packed % 4 == 0 && k % 8 == 0 && group_size % 8 == 0) ? 1 : 0;
  const bool rows_ok = k_packed % 16 == 0 && k % 32 == 0 && group_size % 32 == 0;

  WICK_ASSIGN_OR_RETURN(auto gemv, g.pipeline(gpu::PipelineKey(gpu::shaders::q4gsw_gemv)));
  WICK_ASSIGN_OR_RETURN(auto gemm, g.pipeline(gpu::PipelineKey(gpu::shaders::q4gsw_gemm)));
  WICK_ASSIGN_OR_RETURN(auto gemv_rows, g.pipeline(gpu::PipelineKey(gpu::shaders::q4gsw_gemv_rows)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(Q4Params), name));
  std::vector<gpu::BufferBinding> bindings = {{0, x->buffer.get()},
                                              {1, w->buffer.get()},
                                              {2, scales->buffer.get()},
                                              {3, bias ? bias->buffer.get() : scales->buffer.get()},
                                              {4, y->buffer.get()},
                                              {5, params->buffer()}};
  gpu::Dispatch dv;
  dv.pipeline = gemv;
  dv.bindings = bindings;
  WICK_ASSIGN_OR_RETURN(size_t gemv_index, g.add_dispatch(std::move(dv)));
  gpu::Dispatch dr;
  dr.pipeline = gemv_rows;
  dr.bindings = bindings;
  WICK_ASSIGN_OR_RETURN(size_t rows_index, g.add_dispatch(std::move(dr)));
  gpu::Dispatch dm;
  dm.pipeline = gemm;
  dm.bindings = bindings;
  WICK_ASSIGN_OR_RETURN(size_t gemm_index, g.add_dispatch(std::move(dm)));

  return g.add_step([=, &g]() -> Status {
    if (x->dims.back() != k)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": input " + shape_to_string(x->dims) +
                                                     " does not end in K=" + std::to_string(k));
    const int64_t m = x->numel() / k;
    std::vector<int64_t> shape = x->dims;
    shape.back() = n;
    if (shape_numel(shape) > y->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": output " + shape_to_string(shape) +
                                                     " exceeds its bound " + shape_to_string(y->max_dims));
    y->dims = shape;
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
      {"et_vk.linear_q4gsw.default", linear_q4gsw},
  });
}

}  // namespace wick::webgpu
