// Broadcasting binary operators (arithmetic, comparisons, logical) -> binary.wgsl.
#include "webgpu/ops/elementwise/binary.h"

#include "webgpu/graph.h"
#include "webgpu/ops/elementwise/broadcast.h"
#include "webgpu/ops/op_kit.h"
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

Status build_binary(Graph& g, const OpArgs& args) {
  const bool scalar_other = !args.is_tensor(1);
  const double alpha = args.num_inputs() == 3 ? args.scalar(2) : 1.0;
  return add_binary(g, args.name(), args.variant_as<BinaryOp>(), args.tensor(0), scalar_other ? nullptr : args.tensor(1),
                    scalar_other ? args.scalar(1) : 0.0, alpha, args.out());
}

Status add_binary(Graph& g, const char* name, BinaryOp op, GpuTensor* a, GpuTensor* b, double scalar, double alpha,
                  GpuTensor* out) {
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
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
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
