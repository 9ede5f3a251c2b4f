// Elementwise unary operators -> unary.wgsl (one shader, an op code per operator), and
// aten.where.self (three-way broadcast) -> where.wgsl.
#include "webgpu/ops/elementwise/unary.h"

#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/elementwise/broadcast.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

// Operation codes of unary.wgsl.
enum class UnaryOp : uint32_t {
  kRelu = 0, kSigmoid = 1, kTanh = 2, kExp = 3, kSqrt = 4, kRsqrt = 5, kNeg = 6, kAbs = 7, kSin = 8, kCos = 9,
  kGeluErf = 10, kGeluTanh = 11, kHardswish = 12, kClamp = 13, kLeakyRelu = 14, kPowScalar = 15,
  kLogicalNot = 16, kRound = 17, kSilu = 18, kLog = 19,
};

struct UnaryParams {
  uint32_t n, op, flags, pad0;
  float lo, hi, s;
  uint32_t pad1;
};
static_assert(sizeof(UnaryParams) == 32);

constexpr uint32_t kWorkgroup = 256;

// Optional scalars (clamp bounds) are read once at build: they are literals in the graph.
struct UnaryConfig {
  UnaryOp op;
  bool has_lo = false, has_hi = false;
  float lo = 0, hi = 0, s = 0;
};

Status add_unary(Graph& g, GpuTensor* a, GpuTensor* out, const UnaryConfig& cfg, const char* name) {
  if (a->elem == Elem::kPackedBytes || out->elem == Elem::kPackedBytes)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": byte-packed operands");

  const uint32_t flags = (a->elem == Elem::kI32 ? 1u : 0u) | (out->elem == Elem::kI32 ? 4u : 0u) |
                         (cfg.has_lo ? 16u : 0u) | (cfg.has_hi ? 32u : 0u);
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::unary).set("wg_size", kWorkgroup).set("per", kElementsPerThread).set("op_code", static_cast<uint32_t>(cfg.op)).set("kind_flags", flags), sizeof(UnaryParams),
      {a->buffer.get(), out->buffer.get(), kParamsSlot}));

  return g.add_step([=, &g]() -> Status {
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, a->dims));
    UnaryParams p{};
    p.n = static_cast<uint32_t>(a->numel());
    p.op = static_cast<uint32_t>(cfg.op);
    p.flags = flags;
    p.lo = cfg.lo;
    p.hi = cfg.hi;
    p.s = cfg.s;
    return kernel.launch(g, p, elementwise_threads(p.n), kWorkgroup);
  });
}

// variant = UnaryOp. [self, out], or with the op's scalars: gelu [self, approximate
// ('none' | 'tanh'), out], hardtanh / clamp [self, min, max, out] (clamp's may be None),
// leaky_relu [self, negative_slope?, out], pow.Tensor_Scalar [self, exponent, out].
Status unary(Graph& g, const OpArgs& a) {
  UnaryConfig cfg{a.variant_as<UnaryOp>()};
  switch (cfg.op) {
    case UnaryOp::kGeluErf:
      if (a.str(1) == "tanh") cfg.op = UnaryOp::kGeluTanh;
      else if (a.has(1) && a.str(1) != "none") return a.invalid("unknown approximate '" + a.str(1) + "'");
      break;
    case UnaryOp::kClamp:
      cfg.has_lo = a.has(1);
      cfg.has_hi = a.has(2);
      cfg.lo = static_cast<float>(a.scalar(1));
      cfg.hi = static_cast<float>(a.scalar(2));
      break;
    case UnaryOp::kLeakyRelu: cfg.s = static_cast<float>(a.scalar_or(1, 0.01)); break;
    case UnaryOp::kPowScalar: cfg.s = static_cast<float>(a.scalar(1)); break;
    default: break;
  }
  return add_unary(g, a.tensor(0), a.out(), cfg, a.name());
}

// bitwise_not on bools is logical_not; integer tensors are not supported.
Status bitwise_not(Graph& g, const OpArgs& a) {
  if (a.tensor(0)->vk_dtype != vk::VkDataType::BOOL) return a.unsupported("bool tensors only");
  return add_unary(g, a.tensor(0), a.out(), UnaryConfig{UnaryOp::kLogicalNot}, a.name());
}

// ---- where ----

struct WhereParams {
  uint32_t n, rank, flags, pad0;
  std::array<uint32_t, kMaxElementwiseRank> out_dims, c_strides, a_strides, b_strides;
};

// [condition, self, other, out]
Status where_self(Graph& g, const OpArgs& args) {
  const char* name = args.name();
  GpuTensor *c = args.tensor(0), *a = args.tensor(1), *b = args.tensor(2), *out = args.out();
  for (const GpuTensor* t : {c, a, b, out})
    if (t->elem == Elem::kPackedBytes) return Status(ErrorCode::kNotSupported, std::string(name) + ": byte-packed operands");
  if (out->max_dims.size() > kMaxElementwiseRank)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": rank above 8");

  const uint32_t flags = (c->elem == Elem::kI32 ? 1u : 0u) | (a->elem == Elem::kI32 ? 2u : 0u) |
                         (b->elem == Elem::kI32 ? 4u : 0u) | (out->elem == Elem::kI32 ? 8u : 0u);
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::where).set("wg_size", kWorkgroup).set("per", kElementsPerThread).set("kind_flags", flags), sizeof(WhereParams),
      {c->buffer.get(), a->buffer.get(), b->buffer.get(), out->buffer.get(), kParamsSlot}));

  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(auto ca, broadcast_shapes(c->dims, a->dims));
    WICK_ASSIGN_OR_RETURN(auto shape, broadcast_shapes(ca, b->dims));
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
    WhereParams p{};
    p.n = static_cast<uint32_t>(shape_numel(shape));
    p.rank = static_cast<uint32_t>(shape.size());
    p.flags = flags;
    p.out_dims = dims_array(shape);
    p.c_strides = broadcast_strides(c->dims, shape);
    p.a_strides = broadcast_strides(a->dims, shape);
    p.b_strides = broadcast_strides(b->dims, shape);
    p.rank = coalesce_dims(p.rank, p.out_dims, {&p.c_strides, &p.a_strides, &p.b_strides});
    return kernel.launch(g, p, elementwise_threads(p.n), kWorkgroup);
  });
}

}  // namespace

void append_unary_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.relu.default", "T -> T", unary, UnaryOp::kRelu},
      {"aten.sigmoid.default", "T -> T", unary, UnaryOp::kSigmoid},
      {"aten.tanh.default", "T -> T", unary, UnaryOp::kTanh},
      {"aten.exp.default", "T -> T", unary, UnaryOp::kExp},
      {"aten.log.default", "T -> T", unary, UnaryOp::kLog},
      {"aten.sqrt.default", "T -> T", unary, UnaryOp::kSqrt},
      {"aten.rsqrt.default", "T -> T", unary, UnaryOp::kRsqrt},
      {"aten.neg.default", "T -> T", unary, UnaryOp::kNeg},
      {"aten.abs.default", "T -> T", unary, UnaryOp::kAbs},
      {"aten.sin.default", "T -> T", unary, UnaryOp::kSin},
      {"aten.cos.default", "T -> T", unary, UnaryOp::kCos},
      {"aten.round.default", "T -> T", unary, UnaryOp::kRound},
      {"aten.silu.default", "T -> T", unary, UnaryOp::kSilu},
      {"aten.gelu.default", "T S? -> T", unary, UnaryOp::kGeluErf},
      {"aten.hardswish.default", "T -> T", unary, UnaryOp::kHardswish},
      {"aten.hardtanh.default", "T F F -> T", unary, UnaryOp::kClamp},
      {"aten.leaky_relu.default", "T F? -> T", unary, UnaryOp::kLeakyRelu},
      {"aten.clamp.default", "T F? F? -> T", unary, UnaryOp::kClamp},
      {"aten.pow.Tensor_Scalar", "T F -> T", unary, UnaryOp::kPowScalar},
      {"aten.logical_not.default", "T -> T", unary, UnaryOp::kLogicalNot},
      {"aten.bitwise_not.default", "T -> T", bitwise_not},
      {"aten.where.self", "T T T -> T", where_self},
  });
}

}  // namespace wick::webgpu
