// aten.upsample_nearest2d.vec and aten.upsample_bilinear2d.vec on NCHW float tensors,
// following PyTorch's CPU index rules. The output size comes from output_size (live
// SymInts allowed), else from scale_factors (floor(in * scale)), else from the ratio of
// the serialized output and input bounds.
#include <cmath>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

struct UpsampleParams {
  uint32_t n, in_h, in_w, out_h, out_w, align_corners, pad0, pad1;
  float scale_h, scale_w;
  uint32_t pad2, pad3;
};
// The WGSL Params of the family's module has the same size (generated at configure time).
static_assert(sizeof(UpsampleParams) == gpu::wgsl_size::upsample_params_Params);

constexpr uint32_t kWorkgroup = 256;

// PyTorch's area_pixel_compute_scale<float>.
float compute_scale(int64_t in, int64_t out, bool align_corners, double scale_factor) {
  if (align_corners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  if (scale_factor > 0) return static_cast<float>(1.0 / scale_factor);
  return static_cast<float>(in) / static_cast<float>(out);
}

Status upsample(Graph& g, const std::vector<int32_t>& args, bool bilinear) {
  const char* name = bilinear ? "aten.upsample_bilinear2d.vec" : "aten.upsample_nearest2d.vec";
  const size_t expected = bilinear ? 5 : 4;
  if (args.size() != expected)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected " + std::to_string(expected) +
                                                  " arguments, got " + std::to_string(args.size()));
  WICK_ASSIGN_OR_RETURN(GpuTensor * x, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * y, g.tensor(args.back(), name));
  const int32_t size_id = args[1];
  const int32_t scales_id = bilinear ? args[3] : args[2];
  bool align_corners = false;
  if (bilinear) {
    WICK_ASSIGN_OR_RETURN(align_corners, g.bool_arg(args[2], name));
  }
  if (x->rank() != 4 || y->rank() != 4)
    return Status(ErrorCode::kNotSupported, std::string(name) + ": input rank " + std::to_string(x->rank()) +
                                                ", output rank " + std::to_string(y->rank()) + " (4-D NCHW only)");
  if (!x->is_float() || !y->is_float())
    return Status(ErrorCode::kNotSupported, std::string(name) + ": float tensors only");

  const bool has_size = !g.is_none(size_id);
  if (has_size) {
    WICK_ASSIGN_OR_RETURN(auto probe, g.int_list(size_id, name));
    if (probe.size() != 2)
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": output_size must have 2 entries, got " +
                                                    std::to_string(probe.size()));
  }
  double sf_h = 0, sf_w = 0;
  if (!g.is_none(scales_id)) {
    WICK_ASSIGN_OR_RETURN(GValue * v, g.value(scales_id));
    std::vector<double> s;
    if (v->kind == GValue::kDoubleList) {
      s = v->doubles;
    } else if (v->kind == GValue::kIntList) {
      s.assign(v->ints.begin(), v->ints.end());
    } else {
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": scale_factors is not a float list");
    }
    if (s.size() == 1) s.push_back(s[0]);
    if (s.size() != 2)
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": scale_factors must have 2 entries, got " +
                                                    std::to_string(s.size()));
    if (s[0] <= 0 || s[1] <= 0)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": scale_factors must be positive");
    sf_h = s[0];
    sf_w = s[1];
  }
  if (!has_size && sf_h == 0 && (x->max_dims[2] == 0 || x->max_dims[3] == 0))
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": neither output_size nor scale_factors");

  WICK_ASSIGN_OR_RETURN(const KernelDispatch index_k, add_kernel(g, name, gpu::PipelineKey(bilinear ? gpu::shaders::upsample_bilinear2d : gpu::shaders::upsample_nearest2d).set("wg_size", kWorkgroup), sizeof(UpsampleParams),
      {x->buffer.get(), y->buffer.get(), kParamsSlot}));
  ParamsBlock* params = index_k.params;
  const size_t index = index_k.index;

  return g.add_step([=, &g]() -> Status {
    const int64_t n = x->dims[0], c = x->dims[1], ih = x->dims[2], iw = x->dims[3];
    int64_t oh, ow;
    if (has_size) {
      WICK_ASSIGN_OR_RETURN(auto size, g.int_list(size_id, name));
      oh = size[0];
      ow = size[1];
    } else if (sf_h > 0) {
      oh = static_cast<int64_t>(std::floor(static_cast<double>(ih) * sf_h));
      ow = static_cast<int64_t>(std::floor(static_cast<double>(iw) * sf_w));
    } else {
      oh = ih * y->max_dims[2] / x->max_dims[2];
      ow = iw * y->max_dims[3] / x->max_dims[3];
    }
    if (oh <= 0 || ow <= 0 || ih <= 0 || iw <= 0)
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": input " + shape_to_string(x->dims) +
                                                     " to output size " + std::to_string(oh) + "x" +
                                                     std::to_string(ow));
    const std::vector<int64_t> shape = {n, c, oh, ow};
    if (shape_numel(shape) > y->max_numel())
      return Status(ErrorCode::kInvalidArgument, std::string(name) + ": output " + shape_to_string(shape) +
                                                     " exceeds its bound " + shape_to_string(y->max_dims));
    y->dims = shape;
    UpsampleParams p{};
    p.n = static_cast<uint32_t>(shape_numel(shape));
    p.in_h = static_cast<uint32_t>(ih);
    p.in_w = static_cast<uint32_t>(iw);
    p.out_h = static_cast<uint32_t>(oh);
    p.out_w = static_cast<uint32_t>(ow);
    p.align_corners = align_corners ? 1 : 0;
    p.scale_h = compute_scale(ih, oh, align_corners, sf_h);
    p.scale_w = compute_scale(iw, ow, align_corners, sf_w);
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, p.n, kWorkgroup);
  });
}

Status upsample_nearest2d(Graph& g, const std::vector<int32_t>& args) { return upsample(g, args, false); }
Status upsample_bilinear2d(Graph& g, const std::vector<int32_t>& args) { return upsample(g, args, true); }

}  // namespace

void append_upsample_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.upsample_nearest2d.vec", upsample_nearest2d},
      {"aten.upsample_bilinear2d.vec", upsample_bilinear2d},
  });
}

}  // namespace wick::webgpu
