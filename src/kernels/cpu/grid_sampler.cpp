// aten::grid_sampler_2d.out, following PyTorch's CPU reference implementation
// (GridSampler.cpp / GridSampler.h): bilinear, nearest and bicubic sampling with zeros,
// border and reflection padding, both align_corners conventions.
#include <climits>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

constexpr const char* kOp = "aten::grid_sampler_2d.out";

enum class Interp { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class Padding { kZeros = 0, kBorder = 1, kReflection = 2 };

// [-1, 1] -> pixel coordinates: corner pixel centres (align_corners) or corner pixel edges.
template <class T>
T unnormalize(T coord, int64_t size, bool align_corners) {
  if (align_corners) return ((coord + 1) / 2) * static_cast<T>(size - 1);
  return ((coord + 1) * static_cast<T>(size) - 1) / 2;
}

template <class T>
T clip(T in, int64_t size) {
  return std::min(static_cast<T>(size - 1), std::max(in, static_cast<T>(0)));
}

// Reflects into [twice_low/2, twice_high/2]; bounds come doubled so that half-integers are exact.
template <class T>
T reflect(T in, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return static_cast<T>(0);
  const T min = static_cast<T>(twice_low) / 2;
  const T span = static_cast<T>(twice_high - twice_low) / 2;
  in = std::fabs(in - min);
  const T extra = std::fmod(in, span);
  // The parity of the number of flips, kept in T: `in` is data, possibly huge or NaN, and
  // converting that to an integer is undefined.
  const bool even = std::fmod(std::floor(in / span), static_cast<T>(2)) == 0;
  return even ? extra + min : span - extra + min;
}

// Non-finite or huge coordinates become -100: out of bounds, and safe to convert to int.
template <class T>
T safe_downgrade(T x) {
  if (!std::isfinite(static_cast<double>(x)) || x > static_cast<T>(INT_MAX - 1) || x < static_cast<T>(INT_MIN))
    return static_cast<T>(-100.0);
  return x;
}

template <class T>
T apply_padding(T coord, int64_t size, Padding padding, bool align_corners) {
  if (padding == Padding::kBorder) {
    coord = clip(coord, size);
  } else if (padding == Padding::kReflection) {
    coord = align_corners ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    coord = clip(coord, size);
  }
  return safe_downgrade(coord);
}

template <class T>
T source_index(T coord, int64_t size, Padding padding, bool align_corners) {
  return apply_padding(unnormalize(coord, size, align_corners), size, padding, align_corners);
}

inline bool in_bounds(int64_t h, int64_t w, int64_t H, int64_t W) { return h >= 0 && h < H && w >= 0 && w < W; }

template <class T>
T cubic1(T x, T A) { return ((A + 2) * x - (A + 3)) * x * x + 1; }
template <class T>
T cubic2(T x, T A) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; }
template <class T>
T cubic_interp(T x0, T x1, T x2, T x3, T t) {
  const T A = static_cast<T>(-0.75);
  const T c0 = cubic2(t + 1, A), c1 = cubic1(t, A), c2 = cubic1(1 - t, A), c3 = cubic2(2 - t, A);
  return x0 * c0 + x1 * c1 + x2 * c2 + x3 * c3;
}

template <class T>
void sample(const T* in, const T* grid, T* out, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW,
            Interp interp, Padding padding, bool align_corners) {
  const int64_t plane = H * W, out_plane = OH * OW;
  for (int64_t n = 0; n < N; ++n) {
    const T* img = in + n * C * plane;
    for (int64_t p = 0; p < out_plane; ++p) {
      const T gx = grid[(n * out_plane + p) * 2], gy = grid[(n * out_plane + p) * 2 + 1];
      T* o = out + n * C * out_plane + p;
      if (interp == Interp::kBilinear) {
        const T ix = source_index(gx, W, padding, align_corners);
        const T iy = source_index(gy, H, padding, align_corners);
        const int64_t x0 = static_cast<int64_t>(std::floor(ix)), y0 = static_cast<int64_t>(std::floor(iy));
        const int64_t x1 = x0 + 1, y1 = y0 + 1;
        const T tx = ix - static_cast<T>(x0), ty = iy - static_cast<T>(y0);
        const T w_nw = (1 - tx) * (1 - ty), w_ne = tx * (1 - ty), w_sw = (1 - tx) * ty, w_se = tx * ty;
        const bool nw = in_bounds(y0, x0, H, W), ne = in_bounds(y0, x1, H, W);
        const bool sw = in_bounds(y1, x0, H, W), se = in_bounds(y1, x1, H, W);
        for (int64_t c = 0; c < C; ++c) {
          const T* ch = img + c * plane;
          T acc = 0;
          if (nw) acc += ch[y0 * W + x0] * w_nw;
          if (ne) acc += ch[y0 * W + x1] * w_ne;
          if (sw) acc += ch[y1 * W + x0] * w_sw;
          if (se) acc += ch[y1 * W + x1] * w_se;
          o[c * out_plane] = acc;
        }
      } else if (interp == Interp::kNearest) {
        const T ix = source_index(gx, W, padding, align_corners);
        const T iy = source_index(gy, H, padding, align_corners);
        const int64_t xn = static_cast<int64_t>(std::nearbyint(ix)), yn = static_cast<int64_t>(std::nearbyint(iy));
        const bool ok = in_bounds(yn, xn, H, W);
        for (int64_t c = 0; c < C; ++c) o[c * out_plane] = ok ? img[c * plane + yn * W + xn] : T(0);
      } else {
        // Bicubic pads each of the 4x4 taps separately, after unnormalising without padding.
        const T ix = unnormalize(gx, W, align_corners), iy = unnormalize(gy, H, align_corners);
        const T fx = std::floor(ix), fy = std::floor(iy);
        const T tx = ix - fx, ty = iy - fy;
        for (int64_t c = 0; c < C; ++c) {
          const T* ch = img + c * plane;
          auto tap = [&](T x, T y) -> T {
            const int64_t xi = static_cast<int64_t>(apply_padding(x, W, padding, align_corners));
            const int64_t yi = static_cast<int64_t>(apply_padding(y, H, padding, align_corners));
            return in_bounds(yi, xi, H, W) ? ch[yi * W + xi] : T(0);
          };
          T rows[4];
          for (int i = 0; i < 4; ++i) {
            const T y = fy - 1 + static_cast<T>(i);
            rows[i] = cubic_interp(tap(fx - 1, y), tap(fx, y), tap(fx + 1, y), tap(fx + 2, y), tx);
          }
          o[c * out_plane] = cubic_interp(rows[0], rows[1], rows[2], rows[3], ty);
        }
      }
    }
  }
}

}  // namespace

// grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//   bool align_corners, *, Tensor(a!) out)
Status grid_sampler_2d_out(ValueTable& values, std::span<const int32_t> args) {
  Tensor *input{}, *grid{}, *out{};
  int64_t interp = 0, padding = 0;
  bool align_corners = false;
  WICK_RETURN_IF_ERROR(read_args(kOp, values, args, 7, floating_arg(input, "input"), checked_arg(grid, "grid"),
                                 arg(interp, "interpolation_mode"), arg(padding, "padding_mode"),
                                 arg(align_corners, "align_corners"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_same_dtype(kOp, *input, "input", *grid, "grid"));
  WICK_RETURN_IF_ERROR(check_same_dtype(kOp, *input, "input", *out, "out"));
  if (input->dim() != 4) return invalid_arg(kOp, "input rank " + std::to_string(input->dim()) + ", expected 4");
  if (grid->dim() != 4 || grid->size(3) != 2)
    return invalid_arg(kOp, "grid " + grid->shape_string() + ", expected [N, H_out, W_out, 2]");
  if (grid->size(0) != input->size(0))
    return invalid_arg(kOp, "grid batch " + std::to_string(grid->size(0)) + " differs from input batch " +
                                std::to_string(input->size(0)));
  if (interp < 0 || interp > 2)
    return invalid_arg(kOp, "interpolation_mode " + std::to_string(interp) + ", expected 0 (bilinear), 1 (nearest) or 2 (bicubic)");
  if (padding < 0 || padding > 2)
    return invalid_arg(kOp, "padding_mode " + std::to_string(padding) + ", expected 0 (zeros), 1 (border) or 2 (reflection)");
  const int64_t N = input->size(0), C = input->size(1), H = input->size(2), W = input->size(3);
  const int64_t OH = grid->size(1), OW = grid->size(2);
  if ((H == 0 || W == 0) && N * C * OH * OW > 0)
    return invalid_arg(kOp, "input " + input->shape_string() + " has an empty spatial dim");
  const std::vector<int64_t> shape = {N, C, OH, OW};
  WICK_RETURN_IF_ERROR(prepare_output(kOp, *out, shape));
  if (out->numel() == 0) return {};
  return visit_compute(compute_type_for(input->dtype), [&](auto tag) -> Status {
    using CT = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<CT>) {
      return not_supported(kOp, "integer input");
    } else {
      std::vector<CT> si, sg, so;
      const CT* x = elements_as<CT>(*input, si);
      const CT* g = elements_as<CT>(*grid, sg);
      CT* y = output_as<CT>(*out, so);
      sample(x, g, y, N, C, H, W, OH, OW, static_cast<Interp>(interp), static_cast<Padding>(padding), align_corners);
      finish_output(*out, so);
      return {};
    }
  });
}

}  // namespace wick::cpu
