// Tensor creation: full, full_like, zeros/ones(_like), scalar_tensor, arange -> fill.wgsl.
// Shapes and values are read every execution, so SymInt sizes and bounds stay live.
#include <cmath>
#include <functional>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

struct FillParams {
  uint32_t n, out_int;
  int32_t start_i, step_i;
  float start_f, step_f;
  uint32_t pad0, pad1;
};
static_assert(sizeof(FillParams) == 32);

constexpr uint32_t kWorkgroup = 256;

Status arg_count(const std::vector<int32_t>& args, size_t expected, const char* name) {
  if (args.size() != expected)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected " + std::to_string(expected) +
                                                  " arguments, got " + std::to_string(args.size()));
  return {};
}

// Current (shape, start, step) of a creation op.
struct Fill {
  std::vector<int64_t> shape;
  double start = 0, step = 0;
};

Status build_fill(Graph& g, int32_t out_id, const char* name, std::function<Result<Fill>()> current) {
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(out_id, name));
  if (out->elem == Elem::kPackedBytes)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": byte-packed output");
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey(gpu::shaders::fill).set("wg_size", kWorkgroup)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(FillParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, out->buffer.get()}, {1, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));

  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(Fill f, current());
    for (int64_t s : f.shape)
      if (s < 0) return Status(ErrorCode::kInvalidArgument, std::string(name) + ": negative size in " + shape_to_string(f.shape));
    if (f.shape.size() != out->max_dims.size() || shape_numel(f.shape) > out->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": result shape " + shape_to_string(f.shape) +
                                                     " does not fit the output " + shape_to_string(out->max_dims));
    out->dims = f.shape;
    FillParams p{};
    p.n = static_cast<uint32_t>(shape_numel(f.shape));
    p.out_int = out->elem == Elem::kI32 ? 1 : 0;
    if (out->vk_dtype == vk::VkDataType::BOOL) {
      p.start_i = f.start != 0 ? 1 : 0;
      p.step_i = 0;
    } else if (p.out_int) {
      if (!std::isfinite(f.start) || !std::isfinite(f.step))
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": non-finite value for an integer tensor");
      p.start_i = static_cast<int32_t>(f.start);
      p.step_i = static_cast<int32_t>(f.step);
    }
    p.start_f = static_cast<float>(f.start);
    p.step_f = static_cast<float>(f.step);
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, p.n, kWorkgroup);
  });
}

// full: [size, fill_value, dtype?, layout?, device?, pin_memory?, out]
Status full(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.full.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 7, name));
  return build_fill(g, args.back(), name, [&g, args, name]() -> Result<Fill> {
    Fill f;
    WICK_ASSIGN_OR_RETURN(f.shape, g.int_list(args[0], name));
    WICK_ASSIGN_OR_RETURN(f.start, g.scalar_arg(args[1], name));
    return f;
  });
}

// zeros / ones: [size, dtype?, layout?, device?, pin_memory?, out]
Status constant_of_size(Graph& g, const std::vector<int32_t>& args, double value, const char* name) {
  WICK_RETURN_IF_ERROR(arg_count(args, 6, name));
  return build_fill(g, args.back(), name, [&g, args, name, value]() -> Result<Fill> {
    Fill f;
    WICK_ASSIGN_OR_RETURN(f.shape, g.int_list(args[0], name));
    f.start = value;
    return f;
  });
}
Status zeros(Graph& g, const std::vector<int32_t>& a) { return constant_of_size(g, a, 0, "aten.zeros.default"); }
Status ones(Graph& g, const std::vector<int32_t>& a) { return constant_of_size(g, a, 1, "aten.ones.default"); }

// full_like: [self, fill_value, dtype?, layout?, device?, pin_memory?, memory_format?, out]
Status full_like(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.full_like.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 8, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * self, g.tensor(args[0], name));
  return build_fill(g, args.back(), name, [&g, args, name, self]() -> Result<Fill> {
    Fill f;
    f.shape = self->dims;
    WICK_ASSIGN_OR_RETURN(f.start, g.scalar_arg(args[1], name));
    return f;
  });
}

// zeros_like / ones_like: [self, dtype?, layout?, device?, pin_memory?, memory_format?, out]
Status constant_like(Graph& g, const std::vector<int32_t>& args, double value, const char* name) {
  WICK_RETURN_IF_ERROR(arg_count(args, 7, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * self, g.tensor(args[0], name));
  return build_fill(g, args.back(), name, [self, value]() -> Result<Fill> {
    Fill f;
    f.shape = self->dims;
    f.start = value;
    return f;
  });
}
Status zeros_like(Graph& g, const std::vector<int32_t>& a) { return constant_like(g, a, 0, "aten.zeros_like.default"); }
Status ones_like(Graph& g, const std::vector<int32_t>& a) { return constant_like(g, a, 1, "aten.ones_like.default"); }

// scalar_tensor: [s, dtype?, layout?, device?, pin_memory?, out] -> 0-d tensor
Status scalar_tensor(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.scalar_tensor.default";
  WICK_RETURN_IF_ERROR(arg_count(args, 6, name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args.back(), name));
  const std::vector<int64_t> shape = out->max_dims;  // 0-d, or [1] if the exporter wrote one
  return build_fill(g, args.back(), name, [&g, args, name, shape]() -> Result<Fill> {
    Fill f;
    f.shape = shape;
    WICK_ASSIGN_OR_RETURN(f.start, g.scalar_arg(args[0], name));
    return f;
  });
}

// arange.start_step: [start, end, step, dtype?, layout?, device?, pin_memory?, out]
Status arange(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "aten.arange.start_step";
  WICK_RETURN_IF_ERROR(arg_count(args, 8, name));
  return build_fill(g, args.back(), name, [&g, args, name]() -> Result<Fill> {
    Fill f;
    WICK_ASSIGN_OR_RETURN(f.start, g.scalar_arg(args[0], name));
    WICK_ASSIGN_OR_RETURN(double end, g.scalar_arg(args[1], name));
    WICK_ASSIGN_OR_RETURN(f.step, g.scalar_arg(args[2], name));
    if (f.step == 0) return Status(ErrorCode::kInvalidArgument, std::string(name) + ": step must be nonzero");
    const double len = std::ceil((end - f.start) / f.step);
    f.shape = {len > 0 ? static_cast<int64_t>(len) : 0};
    return f;
  });
}

}  // namespace

void append_creation_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.full.default", full},
      {"aten.full_like.default", full_like},
      {"aten.zeros.default", zeros},
      {"aten.ones.default", ones},
      {"aten.zeros_like.default", zeros_like},
      {"aten.ones_like.default", ones_like},
      {"aten.scalar_tensor.default", scalar_tensor},
      {"aten.arange.start_step", arange},
  });
}

}  // namespace wick::webgpu
