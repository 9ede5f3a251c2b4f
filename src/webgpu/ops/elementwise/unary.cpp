// Elementwise unary operators -> unary.wgsl (one shader, an op code per operator), and
// aten.where.self (three-way broadcast) -> where.wgsl.
#include "webgpu/ops/elementwise/unary.h"

#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/elementwise/broadcast.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

// Operation codes of unary.wgsl.
enum class UnaryOp : uint32_t {
  kRelu = 0, kSigmoid = 1, kTanh = 2, kExp = 3, kSqrt = 4, kRsqrt = 5, kNeg = 6, kAbs = 7, kSin = 8, kCos = 9,
  kGeluErf = 10, kGeluTanh = 11, kHardswish = 12, kClamp = 13, kLeakyRelu = 14, kPowScalar = 15,
  kLogicalNot = 16, kRound = 17, kSilu = 18,
};

struct UnaryParams {
  uint32_t n, op, flags, pad0;
  float lo, hi, s;
  uint32_t pad1;
};
static_assert(sizeof(UnaryParams) == 32);

constexpr uint32_t kWorkgroup = 256;

Status arg_count(const std::vector<int32_t>& args, size_t expected, const char* name) {
  if (args.size() != expected)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected " + std::to_string(expected) +
                                                  " arguments, got " + std::to_string(args.size()));
  return {};
}

// Optional scalars (clamp bounds) are read once at build: they are literals in the graph.
struct UnaryConfig {
  UnaryOp op;
  bool has_lo = false, has_hi = false;
  float lo = 0, hi = 0, s = 0;
};

Status build_unary(Graph& g, int32_t in_id, int32_t out_id, const UnaryConfig& cfg, const char* name) {
  WICK_ASSIGN_OR_RETURN(GpuTensor * a, g.tensor(in_id, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(out_id, name));
  if (a->elem == Elem::kPackedBytes || out->elem == Elem::kPackedBytes)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": byte-packed operands");

  const uint32_t flags = (a->elem == Elem::kI32 ? 1u : 0u) | (out->elem == Elem::kI32 ? 4u : 0u) |
                         (cfg.has_lo ? 16u : 0u) | (cfg.has_hi ? 32u : 0u);
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey(gpu::shaders::unary)
                                                       .set("wg_size", kWorkgroup)
                                                       .set("per", kElementsPerThread)
                                                       .set("op_code", static_cast<uint32_t>(cfg.op))
                                                       .set("kind_flags", flags)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(UnaryParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, a->buffer.get()}, {1, out->buffer.get()}, {2, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));

  return g.add_step([=, &g]() -> Status {
    if (a->dims.size() != out->max_dims.size() || a->numel() > out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": input shape " + shape_to_string(a->dims) +
                                                     " does not fit the output " + shape_to_string(out->max_dims));
    out->dims = a->dims;
    UnaryParams p{};
    p.n = static_cast<uint32_t>(a->numel());
    p.op = static_cast<uint32_t>(cfg.op);
    p.flags = flags;
    p.lo = cfg.lo;
    p.hi = cfg.hi;
    p.s = cfg.s;
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, elementwise_threads(p.n), kWorkgroup);
  });
}

// [self, out]
template <UnaryOp kOp>
Status simple(Graph& g, const std::vector<int32_t>& args, const char* name) {
  WICK_RETURN_IF_ERROR(arg_count(args, 2, name));
  return build_unary(g, args[0], args[1], UnaryConfig{kOp}, name);
}

#define WICK_UNARY(fn, op, name) \
  Status fn(Graph& g, const std::vector<int32_t>& a) { return simple<UnaryOp::op>(g, a, name); }
WICK_UNARY(relu, kRelu, "aten.relu.default")
WICK_UNARY(sigmoid, kSigmoid, "aten.sigmoid.default")
WICK_UNARY(tanh_op, kTanh, "aten.tanh.default")
WICK_UNARY(exp_op, kExp, "aten.exp.default")
WICK_UNARY(sqrt_op, kSqrt, "aten.sqrt.default")
WICK_UNARY(rsqrt, kRsqrt, "aten.rsqrt.default")
WICK_UNARY(neg, kNeg, "aten.neg.default")
WICK_UNARY(abs_op, kAbs, "aten.abs.default")
WICK_UNARY(sin_op, kSin, "aten.sin.default")
WICK_UNARY(cos_op, kCos, "aten.cos.default")
WICK_UNARY(hardswish, kHardswish, "aten.hardswish.default")
WICK_UNARY(logical_not, kLogicalNot, "aten.logical_not.default")
WICK_UNARY(round_op, kRound, "aten.round.default")
WICK_UNARY(silu, kSilu, "aten.silu.default")
#undef WICK_UNARY

// [self, approximate(String 'none'|'tanh'), out]
Status gelu(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.gelu.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 3, name));
  UnaryConfig cfg{UnaryOp::kGeluErf};
  if (!g.is_none(args[1])) {
    WICK_ASSIGN_OR_RETURN(GValue * v, g.value(args[1]));
    if (v->kind != GValue::kString)
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": approximate is not a string");
    if (v->s == "tanh") cfg.op = UnaryOp::kGeluTanh;
    else if (v->s != "none")
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": unknown approximate '" + v->s + "'");
  }
  return build_unary(g, args[0], args[2], cfg, name);
}

// [self, min_val, max_val, out]
Status hardtanh(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.hardtanh.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  UnaryConfig cfg{UnaryOp::kClamp, true, true};
  WICK_ASSIGN_OR_RETURN(double lo, g.scalar_arg(args[1], name));
  WICK_ASSIGN_OR_RETURN(double hi, g.scalar_arg(args[2], name));
  cfg.lo = static_cast<float>(lo);
  cfg.hi = static_cast<float>(hi);
  return build_unary(g, args[0], args[3], cfg, name);
}

// [self, min?, max?, out]
Status clamp(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.clamp.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  UnaryConfig cfg{UnaryOp::kClamp};
  if (!g.is_none(args[1])) {
    WICK_ASSIGN_OR_RETURN(double lo, g.scalar_arg(args[1], name));
    cfg.has_lo = true;
    cfg.lo = static_cast<float>(lo);
  }
  if (!g.is_none(args[2])) {
    WICK_ASSIGN_OR_RETURN(double hi, g.scalar_arg(args[2], name));
    cfg.has_hi = true;
    cfg.hi = static_cast<float>(hi);
  }
  return build_unary(g, args[0], args[3], cfg, name);
}

// [self, negative_slope, out]
Status leaky_relu(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.leaky_relu.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 3, name));
  UnaryConfig cfg{UnaryOp::kLeakyRelu};
  double slope = 0.01;
  if (!g.is_none(args[1])) {
    WICK_ASSIGN_OR_RETURN(slope, g.scalar_arg(args[1], name));
  }
  cfg.s = static_cast<float>(slope);
  return build_unary(g, args[0], args[2], cfg, name);
}

// [self, exponent, out]
Status pow_scalar(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.pow.Tensor_Scalar";
  WICK_RETURN_IF_ERROR(arg_count(args, 3, name));
  UnaryConfig cfg{UnaryOp::kPowScalar};
  WICK_ASSIGN_OR_RETURN(double e, g.scalar_arg(args[1], name));
  cfg.s = static_cast<float>(e);
  return build_unary(g, args[0], args[2], cfg, name);
}

// bitwise_not on bools is logical_not; integer tensors are not supported.
Status bitwise_not(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.bitwise_not.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 2, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * a, g.tensor(args[0], name));
  if (a->vk_dtype != vk::VkDataType::BOOL)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": bool tensors only");
  return build_unary(g, args[0], args[1], UnaryConfig{UnaryOp::kLogicalNot}, name);
}

// ---- where ----

struct WhereParams {
  uint32_t n, rank, flags, pad0;
  std::array<uint32_t, kMaxElementwiseRank> out_dims, c_strides, a_strides, b_strides;
};

// [condition, self, other, out]
Status where_self(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.where.self";
  WICK_RETURN_IF_ERROR(arg_count(args, 4, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * c, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * a, g.tensor(args[1], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * b, g.tensor(args[2], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[3], name));
  for (const GpuTensor* t : {c, a, b, out})
    if (t->elem == Elem::kPackedBytes) return Status(ErrorCode::kNotSupported, std::string(name) + ": byte-packed operands");
  if (out->max_dims.size() > kMaxElementwiseRank)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": rank above 8");

  const uint32_t flags = (c->elem == Elem::kI32 ? 1u : 0u) | (a->elem == Elem::kI32 ? 2u : 0u) |
                         (b->elem == Elem::kI32 ? 4u : 0u) | (out->elem == Elem::kI32 ? 8u : 0u);
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey(gpu::shaders::where)
                                                       .set("wg_size", kWorkgroup)
                                                       .set("per", kElementsPerThread)
                                                       .set("kind_flags", flags)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(WhereParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, c->buffer.get()}, {1, a->buffer.get()}, {2, b->buffer.get()}, {3, out->buffer.get()},
                {4, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));

  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(auto ca, broadcast_shapes(c->dims, a->dims));
    WICK_ASSIGN_OR_RETURN(auto shape, broadcast_shapes(ca, b->dims));
    if (shape.size() != out->max_dims.size() || shape_numel(shape) > out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": result shape " + shape_to_string(shape) +
                                                     " does not fit the output " + shape_to_string(out->max_dims));
    out->dims = shape;
    WhereParams p{};
    p.n = static_cast<uint32_t>(shape_numel(shape));
    p.rank = static_cast<uint32_t>(shape.size());
    p.flags = flags;
    p.out_dims = dims_array(shape);
    p.c_strides = broadcast_strides(c->dims, shape);
    p.a_strides = broadcast_strides(a->dims, shape);
    p.b_strides = broadcast_strides(b->dims, shape);
    p.rank = coalesce_dims(p.rank, p.out_dims, {&p.c_strides, &p.a_strides, &p.b_strides});
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, elementwise_threads(p.n), kWorkgroup);
  });
}

}  // namespace

void append_unary_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.relu.default", relu},
      {"aten.sigmoid.default", sigmoid},
      {"aten.tanh.default", tanh_op},
      {"aten.exp.default", exp_op},
      {"aten.sqrt.default", sqrt_op},
      {"aten.rsqrt.default", rsqrt},
      {"aten.neg.default", neg},
      {"aten.abs.default", abs_op},
      {"aten.sin.default", sin_op},
      {"aten.cos.default", cos_op},
      {"aten.round.default", round_op},
      {"aten.silu.default", silu},
      {"aten.gelu.default", gelu},
      {"aten.hardswish.default", hardswish},
      {"aten.hardtanh.default", hardtanh},
      {"aten.leaky_relu.default", leaky_relu},
      {"aten.clamp.default", clamp},
      {"aten.pow.Tensor_Scalar", pow_scalar},
      {"aten.logical_not.default", logical_not},
      {"aten.bitwise_not.default", bitwise_not},
      {"aten.where.self", where_self},
  });
}

}  // namespace wick::webgpu
