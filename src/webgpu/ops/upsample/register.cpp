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

// nearest (variant 0): [input, output_size?, scale_factors?, out]
// bilinear (variant 1): [input, output_size?, align_corners, scale_factors?, out]
Status upsample(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const bool bilinear = a.variant() == 1;
  GpuTensor *x = a.tensor(0), *y = a.out();
  const int32_t size_id = a.id(1);
  const size_t scales = bilinear ? 3 : 2;
  const bool align_corners = bilinear && a.flag(2);
  if (x->rank() != 4 || y->rank() != 4)
    return a.unsupported("input rank " + std::to_string(x->rank()) + ", output rank " + std::to_string(y->rank()) +
                         " (4-D NCHW only)");
  WICK_RETURN_IF_ERROR(a.expect_float({x, y}));

  const bool has_size = a.has(1);
  if (has_size && a.ints(1).size() != 2)
    return a.invalid("output_size must have 2 entries, got " + std::to_string(a.ints(1).size()));
  double sf_h = 0, sf_w = 0;
  if (a.has(scales)) {
    WICK_ASSIGN_OR_RETURN(GValue * v, g.value(a.id(scales)));
    std::vector<double> s;
    if (v->kind == GValue::kDoubleList) {
      s = v->doubles;
    } else if (v->kind == GValue::kIntList) {
      s.assign(v->ints.begin(), v->ints.end());
    } else {
      return a.invalid("scale_factors is not a float list");
    }
    if (s.size() == 1) s.push_back(s[0]);
    if (s.size() != 2) return a.invalid("scale_factors must have 2 entries, got " + std::to_string(s.size()));
    if (s[0] <= 0 || s[1] <= 0) return a.bad("scale_factors must be positive");
    sf_h = s[0];
    sf_w = s[1];
  }
  if (!has_size && sf_h == 0 && (x->max_dims[2] == 0 || x->max_dims[3] == 0))
    return a.invalid("neither output_size nor scale_factors");

  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey(bilinear ? gpu::shaders::upsample_bilinear2d : gpu::shaders::upsample_nearest2d).set("wg_size", kWorkgroup), sizeof(UpsampleParams),
      {x->buffer.get(), y->buffer.get(), kParamsSlot}));

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
      return op_error(ErrorCode::kInvalidArgument, name,
                      "input " + shape_to_string(x->dims) + " to output size " + std::to_string(oh) + "x" + std::to_string(ow));
    const std::vector<int64_t> shape = {n, c, oh, ow};
    WICK_RETURN_IF_ERROR(set_output_dims(name, y, shape));
    UpsampleParams p{};
    p.n = static_cast<uint32_t>(shape_numel(shape));
    p.in_h = static_cast<uint32_t>(ih);
    p.in_w = static_cast<uint32_t>(iw);
    p.out_h = static_cast<uint32_t>(oh);
    p.out_w = static_cast<uint32_t>(ow);
    p.align_corners = align_corners ? 1 : 0;
    p.scale_h = compute_scale(ih, oh, align_corners, sf_h);
    p.scale_w = compute_scale(iw, ow, align_corners, sf_w);
    return kernel.launch(g, p, p.n, kWorkgroup);
  });
}

}  // namespace

void append_upsample_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.upsample_nearest2d.vec", "T L? *? -> T", upsample, 0},
      {"aten.upsample_bilinear2d.vec", "T L? B *? -> T", upsample, 1},
  });
}

}  // namespace wick::webgpu
