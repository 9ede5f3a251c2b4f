// et_vk.q8ta_add, et_vk.q8ta_relu -> q8ta_binary.wgsl; et_vk.q8ta_pixel_shuffle ->
// q8ta_pixel_shuffle.wgsl. int8 in, int8 out (ops.md §2.11):
//   q8ta_add(a, b, a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, alpha, out)
//   q8ta_relu(x, in_scale, in_zp, out_scale, out_zp, out)
//   q8ta_pixel_shuffle(x, in_scale, in_zp, out_inv_scale, out_zp, upscale_factor, out)
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

struct EltParams {
  uint32_t n;
  int32_t a_zp, b_zp, out_zp;
  float a_scale, b_scale, alpha, out_inv_scale;
};
static_assert(sizeof(EltParams) == gpu::wgsl_size::q8ta_params_EltParams);

struct ShuffleParams {
  uint32_t n, c, oh, ow, r;
  int32_t in_zp, out_zp;
  uint32_t requant;
  float in_scale, out_inv_scale;
  uint32_t pad0, pad1;
};
static_assert(sizeof(ShuffleParams) == gpu::wgsl_size::q8ta_params_ShuffleParams);

// Shared by add (b != nullptr) and relu: same-shape elementwise, output shape = input shape.
Status build_binary(Graph& g, const char* name, GpuTensor* a, GpuTensor* b, GpuTensor* y, EltParams base) {
  WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*a, name, "input"));
  if (b) WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*b, name, "input_b"));
  WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*y, name, "output"));
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::q8ta_binary).set("wg_size", kWorkgroup).set("mode", b ? 1u : 0u), sizeof(EltParams),
      {a->buffer.get(), (b ? b : a)->buffer.get(), y->buffer.get(), kParamsSlot}));
  return g.add_step([=, &g]() -> Status {
    if (b && b->dims != a->dims)
      return fail(ErrorCode::kNotSupported, name, "inputs " + shape_to_string(a->dims) + " and " + shape_to_string(b->dims) +
                                                      " differ (no broadcasting)");
    if (a->numel() > y->max_numel())
      return fail(ErrorCode::kInvalidArgument, name, "input " + shape_to_string(a->dims) + " exceeds the output bound " +
                                                         shape_to_string(y->max_dims));
    y->dims = a->dims;
    EltParams p = base;
    p.n = static_cast<uint32_t>(a->numel());
    return kernel.launch(g, p, p.n, kWorkgroup);
  });
}

// [a, b, a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, alpha, out]
Status q8ta_add(Graph& g, const OpArgs& args) {
  const char* name = args.name();
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qa, q8ta::read_qparams(g, args.id(2), args.id(3), name, "input_a"));
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qb, q8ta::read_qparams(g, args.id(4), args.id(5), name, "input_b"));
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qo, q8ta::read_qparams(g, args.id(6), args.id(7), name, "output"));
  EltParams p{0, qa.zp, qb.zp, qo.zp, qa.scale, qb.scale, static_cast<float>(args.scalar(8)), qo.inv_scale};
  return build_binary(g, name, args.tensor(0), args.tensor(1), args.out(), p);
}

// [x, in_scale, in_zp, out_scale, out_zp, out]
Status q8ta_relu(Graph& g, const OpArgs& a) {
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qi, q8ta::read_qparams(g, a.id(1), a.id(2), a.name(), "input"));
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qo, q8ta::read_qparams(g, a.id(3), a.id(4), a.name(), "output"));
  EltParams p{0, qi.zp, 0, qo.zp, qi.scale, 1, 1, qo.inv_scale};
  return build_binary(g, a.name(), a.tensor(0), nullptr, a.out(), p);
}

// [x, in_scale, in_zp, out_inv_scale, out_zp, upscale_factor, out]
Status q8ta_pixel_shuffle(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *y = a.out();
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qi, q8ta::read_qparams(g, a.id(1), a.id(2), name, "input"));
  WICK_ASSIGN_OR_RETURN(q8ta::QParams qo, q8ta::read_qparams(g, a.id(3), a.id(4), name, "output", /*inverse=*/true));
  const int64_t r = a.integer(5);
  WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*x, name, "input"));
  WICK_RETURN_IF_ERROR(q8ta::check_int8_activation(*y, name, "output"));
  if (r <= 0 || r > 64) return fail(ErrorCode::kInvalidProgram, name, "upscale_factor " + std::to_string(r));
  if (x->rank() < 3 || y->rank() != x->rank())
    return fail(ErrorCode::kInvalidProgram, name, "expected [..., C*r*r, H, W] in and [..., C, H*r, W*r] out");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::q8ta_pixel_shuffle).set("wg_size", kWorkgroup), sizeof(ShuffleParams),
      {x->buffer.get(), y->buffer.get(), kParamsSlot}));
  ShuffleParams base{};
  base.r = static_cast<uint32_t>(r);
  base.in_zp = qi.zp;
  base.out_zp = qo.zp;
  base.in_scale = qi.scale;
  base.out_inv_scale = qo.inv_scale;
  // Equal parameters make the requantization the identity: the bytes are copied.
  base.requant = (qi.zp == qo.zp && qi.inv_scale == qo.inv_scale) ? 0u : 1u;
  return g.add_step([=, &g]() -> Status {
    const int rank = x->rank();
    const int64_t c_in = x->dims[rank - 3], h = x->dims[rank - 2], w = x->dims[rank - 1];
    if (c_in % (r * r) != 0)
      return fail(ErrorCode::kInvalidArgument, name, "input channels " + std::to_string(c_in) + " not divisible by " +
                                                         std::to_string(r * r));
    std::vector<int64_t> shape = x->dims;
    shape[rank - 3] = c_in / (r * r);
    shape[rank - 2] = h * r;
    shape[rank - 1] = w * r;
    if (shape_numel(shape) > y->max_numel())
      return fail(ErrorCode::kInvalidArgument, name, "output " + shape_to_string(shape) + " exceeds its bound " +
                                                         shape_to_string(y->max_dims));
    y->dims = shape;
    ShuffleParams p = base;
    p.n = static_cast<uint32_t>(shape_numel(shape));
    p.c = static_cast<uint32_t>(shape[rank - 3]);
    p.oh = static_cast<uint32_t>(shape[rank - 2]);
    p.ow = static_cast<uint32_t>(shape[rank - 1]);
    return kernel.launch(g, p, p.n, kWorkgroup);
  });
}

}  // namespace

void append_q8ta_elementwise_ops(std::vector<OpEntry>& ops) {
  // The scale and zero-point arguments are checked by q8ta::read_qparams.
  ops.insert(ops.end(), {
      {"et_vk.q8ta_add.default", "T T * * * * * * F -> T", q8ta_add},
      {"et_vk.q8ta_relu.default", "T * * * * -> T", q8ta_relu},
      {"et_vk.q8ta_pixel_shuffle.default", "T * * * * I -> T", q8ta_pixel_shuffle},
  });
}

}  // namespace wick::webgpu
