// 2-D resampling of [N, C, H, W]: nearest and bilinear, with PyTorch's source-index rules
// (UpSample.h: compute_scales_value, area_pixel_compute_source_index, nearest_idx).
#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

struct Resize {
  int64_t planes, in_h, in_w, out_h, out_w;
  std::optional<double> scale_h, scale_w;  // user scale factors, when given
};

// (input, output_size?, ..., scale_factors?): exactly one of the two must be given.
Result<Resize> resize_geometry(const char* op, const Tensor& in, const std::optional<std::vector<int64_t>>& size,
                               const std::optional<std::vector<double>>& scales) {
  WICK_RETURN_IF_ERROR(check_floating(op, in, "input"));
  if (in.dim() != 4) return invalid_arg(op, "input rank " + std::to_string(in.dim()) + ", expected 4");
  Resize r{};
  r.in_h = in.size(2);
  r.in_w = in.size(3);
  r.planes = in.size(0) * in.size(1);
  if (size.has_value() == scales.has_value()) return invalid_arg(op, "give exactly one of output_size and scale_factors");
  if (size) {
    if (size->size() != 2) return invalid_arg(op, "output_size must have 2 values, got " + shape_to_string(*size));
    r.out_h = (*size)[0];
    r.out_w = (*size)[1];
  } else {
    if (scales->size() != 2) return invalid_arg(op, "scale_factors must have 2 values");
    if (!((*scales)[0] > 0) || !((*scales)[1] > 0)) return invalid_arg(op, "scale_factors must be positive");
    r.scale_h = (*scales)[0];
    r.scale_w = (*scales)[1];
    // Sizes beyond int64 (a huge or infinite scale from the file) become INT64_MIN: empty.
    r.out_h = double_to_int64(static_cast<double>(r.in_h) * *r.scale_h);
    r.out_w = double_to_int64(static_cast<double>(r.in_w) * *r.scale_w);
  }
  if (r.out_h <= 0 || r.out_w <= 0 || r.in_h <= 0 || r.in_w <= 0)
    return invalid_arg(op, "input " + in.shape_string() + " and output " + std::to_string(r.out_h) + "x" +
                               std::to_string(r.out_w) + " must be non-empty");
  return r;
}

// Output-to-input step: 1/scale when the user gave one, else in/out.
float scale_value(const std::optional<double>& user, int64_t in, int64_t out) {
  return user ? static_cast<float>(1.0 / *user) : static_cast<float>(in) / static_cast<float>(out);
}

int64_t nearest_index(int64_t dst, int64_t in, int64_t out, float scale) {
  if (in == out) return dst;
  if (out == 2 * in) return dst >> 1;
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale)), in - 1);
}

float bilinear_scale(const std::optional<double>& user, int64_t in, int64_t out, bool align_corners) {
  if (align_corners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
  return scale_value(user, in, out);
}

float source_index(float scale, int64_t dst, bool align_corners) {
  if (align_corners) return scale * static_cast<float>(dst);
  const float src = scale * (static_cast<float>(dst) + 0.5f) - 0.5f;
  return src < 0 ? 0.f : src;
}

}  // namespace

// upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *, Tensor(a!) out)
Status upsample_nearest2d_vec_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::upsample_nearest2d.vec_out";
  Tensor *in{}, *out{};
  std::optional<std::vector<int64_t>> size;
  std::optional<std::vector<double>> scales;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(in, "input"), arg(size, "output_size"),
                                 arg(scales, "scale_factors"), arg(out, "out")));
  WICK_ASSIGN_OR_RETURN(Resize r, resize_geometry(op, *in, size, scales));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *in, "input", *out, "out"));
  const std::vector<int64_t> shape = {in->size(0), in->size(1), r.out_h, r.out_w};
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  const float sh = scale_value(r.scale_h, r.in_h, r.out_h), sw = scale_value(r.scale_w, r.in_w, r.out_w);
  std::vector<int64_t> src_w(static_cast<size_t>(r.out_w));
  for (int64_t j = 0; j < r.out_w; ++j) src_w[static_cast<size_t>(j)] = nearest_index(j, r.in_w, r.out_w, sw);
  const size_t es = element_size(in->dtype);
  const uint8_t* x = static_cast<const uint8_t*>(in->data);
  uint8_t* y = static_cast<uint8_t*>(out->data);
  const size_t row_bytes = static_cast<size_t>(r.out_w) * es;
  for (int64_t p = 0; p < r.planes; ++p)
    for (int64_t i = 0, prev = -1; i < r.out_h; ++i) {
      const int64_t si = nearest_index(i, r.in_h, r.out_h, sh);
      uint8_t* yrow = y + static_cast<size_t>(p * r.out_h + i) * row_bytes;
      // An upscaled row repeats the one above it: copy that whole.
      if (si == prev) {
        std::memcpy(yrow, yrow - row_bytes, row_bytes);
        continue;
      }
      prev = si;
      const uint8_t* xrow = x + static_cast<size_t>((p * r.in_h + si) * r.in_w) * es;
      if (es == 4) {  // a constant-size copy: one move
        for (int64_t j = 0; j < r.out_w; ++j)
          std::memcpy(yrow + static_cast<size_t>(j) * 4, xrow + static_cast<size_t>(src_w[static_cast<size_t>(j)]) * 4, 4);
      } else {
        for (int64_t j = 0; j < r.out_w; ++j)
          std::memcpy(yrow + static_cast<size_t>(j) * es, xrow + static_cast<size_t>(src_w[static_cast<size_t>(j)]) * es, es);
      }
    }
  return {};
}

// upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
//   float[]? scale_factors, *, Tensor(a!) out)
Status upsample_bilinear2d_vec_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::upsample_bilinear2d.vec_out";
  Tensor *in{}, *out{};
  std::optional<std::vector<int64_t>> size;
  bool align_corners = false;
  std::optional<std::vector<double>> scales;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, arg(in, "input"), arg(size, "output_size"),
                                 arg(align_corners, "align_corners"), arg(scales, "scale_factors"), arg(out, "out")));
  WICK_ASSIGN_OR_RETURN(Resize r, resize_geometry(op, *in, size, scales));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *in, "input", *out, "out"));
  const std::vector<int64_t> shape = {in->size(0), in->size(1), r.out_h, r.out_w};
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  const float sh = bilinear_scale(r.scale_h, r.in_h, r.out_h, align_corners);
  const float sw = bilinear_scale(r.scale_w, r.in_w, r.out_w, align_corners);
  // Per output column: the two source columns and their weights.
  struct Tap {
    int64_t i0, i1;
    float l0, l1;
  };
  auto taps = [&](int64_t out_n, int64_t in_n, float scale) {
    std::vector<Tap> t(static_cast<size_t>(out_n));
    for (int64_t d = 0; d < out_n; ++d) {
      if (out_n == in_n) {  // same size: a copy, as PyTorch special-cases it
        t[static_cast<size_t>(d)] = {d, d, 1.f, 0.f};
        continue;
      }
      const float src = source_index(scale, d, align_corners);
      const int64_t i0 = std::min(static_cast<int64_t>(src), in_n - 1);
      const int64_t i1 = i0 + (i0 < in_n - 1 ? 1 : 0);
      const float l1 = std::min(std::max(src - static_cast<float>(i0), 0.f), 1.f);
      t[static_cast<size_t>(d)] = {i0, i1, 1.f - l1, l1};
    }
    return t;
  };
  const std::vector<Tap> th = taps(r.out_h, r.in_h, sh), tw = taps(r.out_w, r.in_w, sw);
  return compute_in_out(*in, *out, [&](const auto* x, auto* y) {
    using CT = std::remove_pointer_t<decltype(y)>;
    for (int64_t p = 0; p < r.planes; ++p) {
      const CT* plane = x + p * r.in_h * r.in_w;
      for (int64_t i = 0; i < r.out_h; ++i) {
        const Tap& v = th[static_cast<size_t>(i)];
        for (int64_t j = 0; j < r.out_w; ++j) {
          const Tap& u = tw[static_cast<size_t>(j)];
          const CT top = static_cast<CT>(u.l0) * plane[v.i0 * r.in_w + u.i0] + static_cast<CT>(u.l1) * plane[v.i0 * r.in_w + u.i1];
          const CT bot = static_cast<CT>(u.l0) * plane[v.i1 * r.in_w + u.i0] + static_cast<CT>(u.l1) * plane[v.i1 * r.in_w + u.i1];
          y[(p * r.out_h + i) * r.out_w + j] = static_cast<CT>(v.l0) * top + static_cast<CT>(v.l1) * bot;
        }
      }
    }
  });
}

}  // namespace wick::cpu
