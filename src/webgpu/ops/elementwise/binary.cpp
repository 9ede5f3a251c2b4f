// Broadcasting binary operators (arithmetic, comparisons, logical) -> binary.wgsl.
#include "webgpu/ops/elementwise/binary.h"

#include "webgpu/graph.h"
#include "webgpu/ops/elementwise/broadcast.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

struct BinaryParams {
  uint32_t n, rank, op, flags;
  float alpha, scalar_b;
  uint32_t pad0, pad1;
  std::array<uint32_t, kMaxElementwiseRank> out_dims, a_strides, b_strides;
};

constexpr uint32_t kWorkgroup = 256;

}  // namespace

Status build_binary(Graph& g, const std::vector<int32_t>& args, BinaryOp op, const char* name, bool has_alpha,
                    bool scalar_other) {
  const size_t expected = has_alpha ? 4 : 3;
  if (args.size() != expected)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected " + std::to_string(expected) +
                                                  " arguments, got " + std::to_string(args.size()));
  WICK_ASSIGN_OR_RETURN(GpuTensor * a, g.tensor(args[0], name));
  GpuTensor* b = nullptr;
  double scalar = 0;
  if (scalar_other) {
    WICK_ASSIGN_OR_RETURN(scalar, g.scalar_arg(args[1], name));
  } else {
    WICK_ASSIGN_OR_RETURN(b, g.tensor(args[1], name));
  }
  double alpha = 1;
  if (has_alpha) {
    WICK_ASSIGN_OR_RETURN(alpha, g.scalar_arg(args[2], name));
  }
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args.back(), name));
  if (a->elem == Elem::kPackedBytes || (b && b->elem == Elem::kPackedBytes))
    return Status(ErrorCode::kNotSupported, std::string(name) + ": byte-packed operands");
  if (out->rank() > kMaxElementwiseRank)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": rank above 8");

  const uint32_t flags = (a->elem == Elem::kI32 ? 1u : 0u) | (b && b->elem == Elem::kI32 ? 2u : 0u) |
                         (out->elem == Elem::kI32 ? 4u : 0u) | (b ? 0u : 8u);
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey(gpu::shaders::binary)
                                                       .set("wg_size", kWorkgroup)
                                                       .set("per", kElementsPerThread)
                                                       .set("op_code", static_cast<uint32_t>(op))
                                                       .set("kind_flags", flags)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(BinaryParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  // With a scalar operand the shader never reads binding 1; bind `a` there to keep it valid.
  d.bindings = {{0, a->buffer.get()}, {1, b ? b->buffer.get() : a->buffer.get()}, {2, out->buffer.get()},
                {3, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));

  return g.add_step([=, &g]() -> Status {
    std::vector<int64_t> shape = a->dims;
    if (b) {
      WICK_ASSIGN_OR_RETURN(shape, broadcast_shapes(a->dims, b->dims));
    }
    if (shape.size() != out->max_dims.size() || shape_numel(shape) > out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": result shape " + shape_to_string(shape) +
                                                     " does not fit the output " + shape_to_string(out->max_dims));
    out->dims = shape;
    BinaryParams p{};
    p.n = static_cast<uint32_t>(shape_numel(shape));
    p.rank = static_cast<uint32_t>(shape.size());
    p.op = static_cast<uint32_t>(op);
    p.flags = flags;
    p.alpha = static_cast<float>(alpha);
    p.scalar_b = static_cast<float>(scalar);
    p.out_dims = dims_array(shape);
    p.a_strides = broadcast_strides(a->dims, shape);
    if (b) p.b_strides = broadcast_strides(b->dims, shape);
    p.rank = coalesce_dims(p.rank, p.out_dims, {&p.a_strides, &p.b_strides});
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, elementwise_threads(p.n), kWorkgroup);
  });
}

}  // namespace wick::webgpu
