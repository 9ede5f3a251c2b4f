// Smaller ops of ExecuTorch's Vulkan flow, with the WebGPU kernels' semantics (shared/spec/ops.md
// §2.10, §2.11, §5.3; src/webgpu/ops/attention, positional, quantized):
//   et_vk::sdpa                          softmax(q k^T * scale + mask) v over [B, H, S, D]
//   et_vk::apply_rotary_emb_interleaved  EdgeTAM's pair-interleaved complex RoPE
//   et_vk::grid_priors                   anchor centers of a feature map
//   et_vk::linear_qcs4w                  4-bit per-channel symmetric linear
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {

// sdpa.out(Tensor q, Tensor k, Tensor v, Tensor? attn_mask=None, float? scale=None, *,
//   Tensor(a!) out): q [B, H, Sq, D]; k and v [Bk, Hk, Skv, D] with Bk, Hk equal to q's or 1
// (torch.matmul's broadcast); an additive mask [Sq, Skv] or [B, H, Sq, Skv] (by element
// count); scale None is 1 / sqrt(D). Scores in f32, max-subtracted before exp.
Status et_vk_sdpa_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::sdpa.out";
  Tensor *q, *k, *v, *mask, *out;
  std::optional<Scalar> scale_arg;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 7, checked_arg(q, "q"), checked_arg(k, "k"), checked_arg(v, "v"),
                                 optional_arg(mask, "attn_mask"), arg(scale_arg, "scale"), arg(out, "out")));
  for (auto [t, name] : {std::pair{q, "q"}, {k, "k"}, {v, "v"}}) {
    if (t->dtype != ScalarType::kFloat) return not_supported(op, std::string(name) + " must be float32");
    if (t->dim() != 4) return not_supported(op, std::string(name) + " must be [B, H, S, D], got " + t->shape_string());
  }
  if (mask) {
    WICK_RETURN_IF_ERROR(check_tensor(op, *mask, "attn_mask"));
    if (mask->dtype != ScalarType::kFloat) return not_supported(op, "attn_mask must be float32");
  }
  const int64_t b = q->size(0), h = q->size(1), sq = q->size(2), d = q->size(3), skv = k->size(2);
  if (v->sizes != k->sizes || k->size(3) != d)
    return invalid_arg(op, "k " + k->shape_string() + " and v " + v->shape_string() + " must agree with q " + q->shape_string());
  if ((k->size(0) != b && k->size(0) != 1) || (k->size(1) != h && k->size(1) != 1))
    return invalid_arg(op, "k's batch and heads must equal q's or be 1: q " + q->shape_string() + ", k " + k->shape_string());
  bool per_head_mask = false;
  if (mask) {
    if (mask->numel() == b * h * sq * skv && !(mask->numel() == sq * skv)) per_head_mask = true;
    else if (mask->numel() != sq * skv)
      return invalid_arg(op, "attn_mask " + mask->shape_string() + " is neither [Sq, Skv] nor [B, H, Sq, Skv]");
  }
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, q->sizes));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  const float scale = scale_arg ? static_cast<float>(scale_arg->to_double()) : static_cast<float>(1.0 / std::sqrt(double(d)));
  const float *qs = q->data_as<float>(), *ks = k->data_as<float>(), *vs = v->data_as<float>();
  const float* ms = mask ? mask->data_as<float>() : nullptr;
  float* ys = out->data_as<float>();
  const int64_t hk = k->size(1);
  parallel_for(b * h * sq, std::max<int64_t>(1, 16384 / std::max<int64_t>(skv * d, 1)), [&](int64_t begin, int64_t end) {
    std::vector<float> p(static_cast<size_t>(skv));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t i = row % sq, bh = row / sq, bi = bh / h, hi = bh % h;
      const int64_t kvbh = (k->size(0) == 1 ? 0 : bi) * hk + (hk == 1 ? 0 : hi);
      const float* qr = qs + row * d;
      const float* kb = ks + kvbh * skv * d;
      const float* vb = vs + kvbh * skv * d;
      const float* mr = ms ? ms + (per_head_mask ? row : i) * skv : nullptr;
      float mx = -INFINITY;
      for (int64_t j = 0; j < skv; ++j) {
        float s = 0;
        for (int64_t e = 0; e < d; ++e) s += qr[e] * kb[j * d + e];
        s = s * scale + (mr ? mr[j] : 0.0f);
        p[static_cast<size_t>(j)] = s;
        mx = std::max(mx, s);
      }
      float sum = 0;
      for (int64_t j = 0; j < skv; ++j) sum += p[static_cast<size_t>(j)] = std::exp(p[static_cast<size_t>(j)] - mx);
      float* yr = ys + row * d;
      std::fill(yr, yr + d, 0.0f);
      for (int64_t j = 0; j < skv; ++j) {
        const float w = p[static_cast<size_t>(j)] / sum;
        for (int64_t e = 0; e < d; ++e) yr[e] += w * vb[j * d + e];
      }
    }
  });
  return {};
}

// apply_rotary_emb_interleaved.out(Tensor x, Tensor freqs_cis, *, Tensor(a!) out): x [B, N, C]
// with (real, imag) pairs along C, freqs_cis N x C values of (cos, sin) pairs (any rank):
//   out[2k] = x[2k] cos_k - x[2k+1] sin_k,  out[2k+1] = x[2k] sin_k + x[2k+1] cos_k
Status et_vk_apply_rotary_emb_interleaved_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::apply_rotary_emb_interleaved.out";
  Tensor *x, *f, *out;
  WICK_RETURN_IF_ERROR(
      read_args(op, values, args, 4, checked_arg(x, "x"), checked_arg(f, "freqs_cis"), arg(out, "out")));
  if (x->dtype != ScalarType::kFloat || f->dtype != ScalarType::kFloat) return not_supported(op, "x and freqs_cis must be float32");
  if (x->dim() != 3) return not_supported(op, "x must be [B, N, C], got " + x->shape_string());
  const int64_t nc = x->size(1) * x->size(2);
  if (x->size(2) % 2 != 0) return invalid_arg(op, "C = " + std::to_string(x->size(2)) + " is odd");
  if (f->numel() != nc)
    return invalid_arg(op, "freqs_cis " + f->shape_string() + " does not hold N x C values of x " + x->shape_string());
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, x->sizes));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  const float *xs = x->data_as<float>(), *fs = f->data_as<float>();
  float* ys = out->data_as<float>();
  for (int64_t e = 0; e < x->numel(); e += 2) {
    const int64_t fi = e % nc;
    const float xr = xs[e], xi = xs[e + 1], c = fs[fi], s = fs[fi + 1];
    ys[e] = xr * c - xi * s;
    ys[e + 1] = xr * s + xi * c;
  }
  return {};
}

// grid_priors.out(Tensor self, int stride, float offset, *, Tensor(a!) out): for self's last
// two dims H x W, out [H * W, 2] with out[h * W + w] = ((w + offset) * stride, (h + offset) * stride).
Status et_vk_grid_priors_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::grid_priors.out";
  Tensor *x, *out;
  double stride, offset;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(x, "self"), arg(stride, "stride"), arg(offset, "offset"),
                                 arg(out, "out")));
  if (x->dim() < 2) return invalid_arg(op, "self must have at least 2 dims, got " + x->shape_string());
  const int64_t h = x->sizes[x->sizes.size() - 2], w = x->sizes.back();
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, std::vector<int64_t>{h * w, 2}));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  float* ys = out->data_as<float>();
  const float s = static_cast<float>(stride), o = static_cast<float>(offset);
  for (int64_t i = 0; i < h * w; ++i) {
    ys[2 * i] = (static_cast<float>(i % w) + o) * s;
    ys[2 * i + 1] = (static_cast<float>(i / w) + o) * s;
  }
  return {};
}

// linear_qcs4w.out(Tensor self, Tensor weight, Tensor scales, *, Tensor(a!) out):
// y[m, n] = sum_k x[m, k] * (q[n, k] - 8) * scales[n], weight uint8 [N, ceil(K / 2)] with even k
// in the HIGH nibble (§5.3), no bias.
Status et_vk_linear_qcs4w_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::linear_qcs4w.out";
  Tensor *x, *w, *sc, *out;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, checked_arg(x, "self"), checked_arg(w, "weight"),
                                 checked_arg(sc, "scales"), arg(out, "out")));
  if (x->dtype != ScalarType::kFloat || sc->dtype != ScalarType::kFloat) return not_supported(op, "self and scales must be float32");
  if (w->dtype != ScalarType::kByte && w->dtype != ScalarType::kChar)
    return invalid_arg(op, "weight must be uint8, got " + dtype_str(w->dtype));
  if (x->dim() < 1 || w->dim() != 2) return invalid_arg(op, "expected self [..., K] and weight [N, K / 2]");
  const int64_t k = x->sizes.back(), n = w->size(0), kp = w->size(1);
  if (k <= 0 || kp != (k + 1) / 2) return invalid_arg(op, "weight " + w->shape_string() + " does not hold K = " + std::to_string(k));
  if (sc->numel() < n) return invalid_arg(op, "scales " + sc->shape_string() + " shorter than N = " + std::to_string(n));
  std::vector<int64_t> shape = x->sizes;
  shape.back() = n;
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  const int64_t m = x->numel() / k;
  const float *xs = x->data_as<float>(), *ss = sc->data_as<float>();
  const uint8_t* wb = static_cast<const uint8_t*>(w->data);
  float* ys = out->data_as<float>();
  parallel_for(n, std::max<int64_t>(1, 65536 / std::max<int64_t>((m + 1) * k, 1)), [&](int64_t begin, int64_t end) {
    std::vector<float> row(static_cast<size_t>(k));
    for (int64_t o = begin; o < end; ++o) {
      for (int64_t j = 0; j < k; ++j)
        row[static_cast<size_t>(j)] = static_cast<float>(((wb[o * kp + j / 2] >> ((j & 1) ? 0 : 4)) & 0xF) - 8);
      for (int64_t r = 0; r < m; ++r) {
        float acc = 0;
        for (int64_t j = 0; j < k; ++j) acc += xs[r * k + j] * row[static_cast<size_t>(j)];
        ys[r * n + o] = acc * ss[o];
      }
    }
  });
  return {};
}

}  // namespace wick::cpu
