// Tensor creation: full, full_like, zeros/ones(_like), scalar_tensor, arange -> fill.wgsl.
// Shapes and values are read every execution, so SymInt sizes and bounds stay live.
#include <cmath>
#include <functional>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
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

// Current (shape, start, step) of a creation op.
struct Fill {
  std::vector<int64_t> shape;
  double start = 0, step = 0;
};

Status build_fill(Graph& g, GpuTensor* out, const char* name, std::function<Result<Fill>()> current) {
  if (out->elem == Elem::kPackedBytes)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": byte-packed output");
  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(gpu::shaders::fill).set("wg_size", kWorkgroup), sizeof(FillParams),
      {out->buffer.get(), kParamsSlot}));

  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(Fill f, current());
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, f.shape));
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
    return kernel.launch(g, p, p.n, kWorkgroup);
  });
}

// variant = FillForm. Sizes and values are read at each execution (SymInts stay live).
//   full: [size, fill_value, dtype?, layout?, device?, pin_memory?, out]
//   zeros / ones: [size, dtype?, layout?, device?, pin_memory?, out]
//   full_like: [self, fill_value, dtype?, layout?, device?, pin_memory?, memory_format?, out]
//   zeros_like / ones_like: [self, dtype?, layout?, device?, pin_memory?, memory_format?, out]
//   scalar_tensor: [s, dtype?, layout?, device?, pin_memory?, out] -> 0-d tensor
enum class FillForm { kFull, kZeros, kOnes, kFullLike, kZerosLike, kOnesLike, kScalar };
Status fill(Graph& g, const OpArgs& a) {
  const FillForm form = a.variant_as<FillForm>();
  const char* name = a.name();
  const bool like = form == FillForm::kFullLike || form == FillForm::kZerosLike || form == FillForm::kOnesLike;
  const bool reads_value = form == FillForm::kFull || form == FillForm::kFullLike || form == FillForm::kScalar;
  const double constant = form == FillForm::kOnes || form == FillForm::kOnesLike ? 1 : 0;
  GpuTensor* self = like ? a.tensor(0) : nullptr;
  const int32_t size_id = a.id(0), value_id = a.id(form == FillForm::kScalar ? 0 : 1);
  const std::vector<int64_t> fixed = a.out()->max_dims;  // scalar_tensor: 0-d, or [1] if the exporter wrote one
  return build_fill(g, a.out(), name, [=, &g]() -> Result<Fill> {
    Fill f;
    f.start = constant;
    if (like) f.shape = self->dims;
    else if (form == FillForm::kScalar) f.shape = fixed;
    else {
      WICK_ASSIGN_OR_RETURN(f.shape, g.int_list(size_id, name));
    }
    if (reads_value) {
      WICK_ASSIGN_OR_RETURN(f.start, g.scalar_arg(value_id, name));
    }
    return f;
  });
}

// arange.start_step: [start, end, step, dtype?, layout?, device?, pin_memory?, out]
Status arange(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const int32_t start_id = a.id(0), end_id = a.id(1), step_id = a.id(2);
  return build_fill(g, a.out(), name, [=, &g]() -> Result<Fill> {
    Fill f;
    WICK_ASSIGN_OR_RETURN(f.start, g.scalar_arg(start_id, name));
    WICK_ASSIGN_OR_RETURN(double end, g.scalar_arg(end_id, name));
    WICK_ASSIGN_OR_RETURN(f.step, g.scalar_arg(step_id, name));
    if (f.step == 0) return op_error(ErrorCode::kInvalidArgument, name, "step must be nonzero");
    const double len = std::ceil((end - f.start) / f.step);
    f.shape = {len > 0 ? static_cast<int64_t>(len) : 0};
    return f;
  });
}

}  // namespace

void append_creation_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.full.default", "L F * * * * -> T", fill, FillForm::kFull},
      {"aten.full_like.default", "T F * * * * * -> T", fill, FillForm::kFullLike},
      {"aten.zeros.default", "L * * * * -> T", fill, FillForm::kZeros},
      {"aten.ones.default", "L * * * * -> T", fill, FillForm::kOnes},
      {"aten.zeros_like.default", "T * * * * * -> T", fill, FillForm::kZerosLike},
      {"aten.ones_like.default", "T * * * * * -> T", fill, FillForm::kOnesLike},
      {"aten.scalar_tensor.default", "F * * * * -> T", fill, FillForm::kScalar},
      {"aten.arange.start_step", "F F F * * * * -> T", arange},
  });
}

}  // namespace wick::webgpu
