// et_vk.q8ta_linear, et_vk.q8ta_linear_gemv (int8 out) and et_vk.linear_q8ta_q8csw (f32 out)
// -> q8ta_linear.wgsl. Arguments as quantized_linear.py emits them (ops.md §2.11):
//   q8ta_linear(_gemv): [x, input_scale, input_zero_point, weights [N, K] int8, weight_sums,
//                        weight_scales [N_pad], output_scale, output_zero_point, bias?,
//                        activation, out]
//   linear_q8ta_q8csw:  [x, input_scale, input_zero_point, weights, weight_sums,
//                        weight_scales, bias?, out]
// weight_sums is not read (each product subtracts the input zero point itself).
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "webgpu/ops/q8ta/q8ta_args.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

using q8ta::fail;

constexpr uint32_t kWorkgroup = 64;

struct Q8LinearParams {
  uint32_t m, n, k, w_row;
  int32_t in_zp, out_zp;
  float in_scale, out_inv_scale;
  uint32_t has_bias, relu, pad0, pad1;
};
static_assert(sizeof(Q8LinearParams) == gpu::wgsl_size::q8ta_params_LinearParams);

// variant 1 (int8 output): [x, in_scale, in_zp, weight, weight_sums, weight_scales,
// out_scale, out_zp, bias?, activation?, out]; variant 0 (float output, linear_q8ta_q8csw):
// [x, in_scale, in_zp, weight, weight_sums, weight_scales, bias?, out].
Status build_linear(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const bool int8_out = a.variant() == 1;
  GpuTensor *x = a.tensor(0), *w = a.tensor(3), *scales = a.tensor(5), *bias = a.tensor(int8_out ? 8 : 6), *y = a.out();
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qi, q8ta::read_qparams(g, a.id(1), a.id(2), name, "input"));
  q8ta::QParams qo;
  bool relu = false;
  if (int8_out) {
    WICK_ASSIGN_OR_RETURN(qo, q8ta::read_qparams(g, a.id(6), a.id(7), name, "output"));
    relu = a.str(9) == "relu";
    if (a.has(9) && !relu && a.str(9) != "none") return a.unsupported("activation \"" + a.str(9) + "\"");
  }
  WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*x, name, "input"));
  if (int8_out) {
    WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*y, name, "output"));
  } else if (!y->is_float()) {
    return fail(ErrorCode::kNotSupported, name, "output must be float");
  }
  WICK_RETURN_IF_ERROR(q8ta::check_int8_weight(*w, name));
  if (x->rank() < 1 || y->rank() != x->rank()) return fail(ErrorCode::kInvalidProgram, name, "input and output ranks differ");
  const int64_t k = x->max_dims.back(), n = y->max_dims.back();
  if (k <= 0 || n <= 0 || w->rank() != 2 || w->max_dims[0] < n || w->max_dims[1] < k)
    return fail(ErrorCode::kInvalidProgram, name, "weights " + shape_to_string(w->max_dims) + " do not hold [N, K] = [" +
                                                      std::to_string(n) + ", " + std::to_string(k) + "]");
  WICK_RETURN_IF_ERROR(q8ta::check_channel_vector(scales, n, name, "weight_scales"));
  WICK_RETURN_IF_ERROR(q8ta::check_channel_vector(bias, n, name, "bias"));
  if (y->buffer == x->buffer) return fail(ErrorCode::kNotSupported, name, "output aliases the input");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::q8ta_linear).set("wg_size", kWorkgroup).set("float_out", int8_out ? 0u : 1u), sizeof(Q8LinearParams),
      {x->buffer.get(), w->buffer.get(), scales->buffer.get(), bias ? bias->buffer.get() : scales->buffer.get(), y->buffer.get(), kParamsSlot}));
  Q8LinearParams base{0, static_cast<uint32_t>(n), static_cast<uint32_t>(k), static_cast<uint32_t>(w->max_dims[1]),
                      qi.zp, qo.zp, qi.scale, qo.inv_scale, bias ? 1u : 0u, relu ? 1u : 0u, 0, 0};
  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(const int64_t m, set_linear_output(name, x, k, n, y));
    Q8LinearParams p = base;
    p.m = static_cast<uint32_t>(m);
    return kernel.launch(g, p, static_cast<uint64_t>(p.m) * p.n, kWorkgroup);
  });
}

}  // namespace

void append_q8ta_linear_ops(std::vector<OpEntry>& ops) {
  // The scale and zero-point arguments are checked by q8ta::read_qparams.
  ops.insert(ops.end(), {
      {"et_vk.q8ta_linear.default", "T * * T * T * * T? S? -> T", build_linear, 1},
      {"et_vk.q8ta_linear_gemv.default", "T * * T * T * * T? S? -> T", build_linear, 1},
      {"et_vk.linear_q8ta_q8csw.default", "T * * T * T T? -> T", build_linear, 0},
  });
}

}  // namespace wick::webgpu
