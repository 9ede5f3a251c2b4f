// et_vk::linear_q4gsw: a linear layer whose weights are 4-bit, symmetric, with one fp32
// scale per group of `group_size` input features (shared/spec/ops.md §5.1):
//   weights uint8 [N, K/2], byte j of row n = (q[n, 2j+1] + 8) << 4 | (q[n, 2j] + 8);
//   scales fp32 [K / group_size, padded N] (transposed), w[n, k] = q[n, k] * scales[k / gs][n].
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/hot_loop.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/q4gsw_linear.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {

// Output features [begin, end). Each feature's row is dequantized once into a small
// buffer and dotted with every input row, so the weights are read once per call whatever
// M is.
static WICK_HOT_LOOP void q4gsw_features(const Q4Linear& q, int64_t begin, int64_t end) {
  std::vector<float> row(static_cast<size_t>(q.k));
  for (int64_t o = begin; o < end; ++o) {
    const uint8_t* wr = q.w + o * q.kp;
    for (int64_t j0 = 0; j0 < q.k; j0 += q.gs) {
      const float scale = q.scales[(j0 / q.gs) * q.padded_n + o];
      const int64_t j1 = std::min(q.k, j0 + q.gs);
      for (int64_t j = j0; j < j1; ++j)
        row[static_cast<size_t>(j)] = static_cast<float>(((wr[j / 2] >> ((j & 1) * 4)) & 0xF) - 8) * scale;
    }
    for (int64_t r = 0; r < q.m; ++r) {
      const float* xr = q.x + r * q.k;
      f32x8 part{}, xv, wv;
      int64_t j = 0;
      for (; j + 8 <= q.k; j += 8) {
        WICK_F32X8_LOAD(xv, xr + j);
        WICK_F32X8_LOAD(wv, row.data() + j);
        part += xv * wv;
      }
      float acc = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
      for (; j < q.k; ++j) acc += xr[j] * row[static_cast<size_t>(j)];
      q.y[r * q.n + o] = acc + (q.bias ? q.bias[o] : 0.0f);
    }
  }
}

void q4gsw_linear(const Q4Linear& q) {
  parallel_for(q.n, std::max<int64_t>(1, 65536 / std::max<int64_t>((q.m + 1) * q.k, 1)),
               [&](int64_t begin, int64_t end) { q4gsw_features(q, begin, end); });
}

Result<Q4Linear> prepare_q4gsw_linear(const char* op, const Tensor& x, const Tensor& w, const Tensor& sc,
                                      const Tensor* bias, int64_t gs, Tensor& out) {
  if (w.dtype != ScalarType::kByte && w.dtype != ScalarType::kChar)
    return invalid_arg(op, "weights must be uint8, got " + dtype_str(w.dtype));
  if (x.dim() < 1 || w.dim() != 2 || sc.dim() != 2)
    return invalid_arg(op, "expected input [..., K], weights [N, K/2], weight_scales [groups, N]; got " + x.shape_string() +
                               ", " + w.shape_string() + ", " + sc.shape_string());
  const int64_t k = x.sizes.back(), n = w.size(0), kp = w.size(1);
  if (kp != (k + 1) / 2) return invalid_arg(op, "weights " + w.shape_string() + " do not hold K = " + std::to_string(k));
  if (gs <= 0) return invalid_arg(op, "group_size " + std::to_string(gs));
  const int64_t groups = sc.size(0), padded_n = sc.size(1);
  if (groups < (k + gs - 1) / gs || padded_n < n)
    return invalid_arg(op, "weight_scales " + sc.shape_string() + " do not cover K = " + std::to_string(k) + ", N = " +
                               std::to_string(n) + " with groups of " + std::to_string(gs));
  if (bias) {
    WICK_RETURN_IF_ERROR(check_tensor(op, *bias, "bias"));
    if (bias->dtype != ScalarType::kFloat || bias->numel() < n)
      return invalid_arg(op, "bias " + bias->shape_string() + " must be float32 with N = " + std::to_string(n) + " values");
  }
  std::vector<int64_t> shape = x.sizes;
  shape.back() = n;
  WICK_RETURN_IF_ERROR(prepare_output(op, out, shape));
  if (out.dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  const int64_t m = k == 0 ? 0 : x.numel() / k;
  return Q4Linear{nullptr, static_cast<const uint8_t*>(w.data), sc.data_as<float>(),
                  bias ? bias->data_as<float>() : nullptr, out.data_as<float>(), m, k, n, kp, gs, padded_n};
}

// linear_q4gsw.out(Tensor self, Tensor weights, Tensor weight_scales, int group_size,
//   Tensor? bias=None, *, Tensor(a!) out)
Status et_vk_linear_q4gsw_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::linear_q4gsw.out";
  Tensor *x{}, *w{}, *sc{}, *bias{}, *out{};
  int64_t gs = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 7, checked_arg(x, "self"), checked_arg(w, "weights"),
                                 checked_arg(sc, "weight_scales"), arg(gs, "group_size"), optional_arg(bias, "bias"),
                                 arg(out, "out")));
  if (x->dtype != ScalarType::kFloat || sc->dtype != ScalarType::kFloat)
    return not_supported(op, "self and weight_scales must be float32");
  WICK_ASSIGN_OR_RETURN(Q4Linear q, prepare_q4gsw_linear(op, *x, *w, *sc, bias, gs, *out));
  q.x = x->data_as<float>();
  q4gsw_linear(q);
  return {};
}

// q4gsw_requant.out(Tensor latent, Tensor scales, int group_size, *, Tensor(a!) out): the
// re-quantization step of 4-bit fine-tuning (ExecuTorch's custom_ops_lib.py): code
// q = clamp(round_half_even(latent / scales[k / gs][n]), -8, 7) + 8 (0 + 8 where the scale is
// 0), packed two per byte with even k in the low nibble, into uint8 [N, (K + 1) / 2].
Status et_vk_q4gsw_requant_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::q4gsw_requant.out";
  Tensor *latent{}, *sc{}, *out{};
  int64_t gs = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(latent, "latent"), checked_arg(sc, "scales"),
                                 arg(gs, "group_size"), arg(out, "out")));
  if (latent->dtype != ScalarType::kFloat || sc->dtype != ScalarType::kFloat)
    return not_supported(op, "latent and scales must be float32");
  if (latent->dim() != 2 || sc->dim() != 2) return invalid_arg(op, "expected latent [N, K] and scales [groups, N]");
  if (gs <= 0) return invalid_arg(op, "group_size " + std::to_string(gs));
  const int64_t n = latent->size(0), k = latent->size(1), kp = (k + 1) / 2;
  if (sc->size(0) < (k + gs - 1) / gs || sc->size(1) < n)
    return invalid_arg(op, "scales " + sc->shape_string() + " do not cover K = " + std::to_string(k) + ", N = " +
                               std::to_string(n) + " with groups of " + std::to_string(gs));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, std::vector<int64_t>{n, kp}));
  if (out->dtype != ScalarType::kByte) return invalid_arg(op, "out must be uint8, got " + dtype_str(out->dtype));
  const float* lp = latent->data_as<float>();
  const float* sp = sc->data_as<float>();
  const int64_t srow = sc->size(1);
  uint8_t* op8 = static_cast<uint8_t*>(out->data);
  auto code = [&](int64_t r, int64_t c) {
    const float s = sp[(c / gs) * srow + r];
    const float q = s != 0.0f ? std::fmin(std::fmax(std::nearbyint(lp[r * k + c] / s), -8.0f), 7.0f) : 0.0f;
    return static_cast<uint8_t>(static_cast<int>(q) + 8);
  };
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < kp; ++j)
      op8[r * kp + j] = static_cast<uint8_t>(code(r, 2 * j) | (2 * j + 1 < k ? code(r, 2 * j + 1) << 4 : 0));
  return {};
}

}  // namespace wick::cpu
