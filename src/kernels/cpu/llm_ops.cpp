// The LLM operators ExecuTorch's Vulkan flow and its llama source transforms emit, which
// have no portable ExecuTorch kernel: et_vk::rms_norm, et_vk::apply_rotary_emb(_hf),
// llama::sdpa_with_kv_cache and llama::update_cache. fp32 only, contiguous tensors.
// Argument lists follow the out-variant convention of kernel.h: schema arguments, the
// outputs, then the returned value once more.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/thread_pool.h"

namespace wick::cpu {
// rms_norm.out(Tensor x, Tensor weight, float eps, *, Tensor(a!) out):
// y = x / sqrt(mean(x^2, last dim) + eps) * weight.
Status et_vk_rms_norm_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::rms_norm.out";
  Tensor *x{}, *w{}, *out{};
  double eps = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(x, "x"), arg(w, "weight"), arg(eps, "eps"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_dtype(op, *x, "x", ScalarType::kFloat));
  WICK_RETURN_IF_ERROR(check_dtype(op, *w, "weight", ScalarType::kFloat));
  if (x->dim() < 1) return invalid_arg(op, "x must have at least one dim");
  const int64_t len = x->sizes.back();
  if (w->numel() != len) return invalid_arg(op, "weight " + w->shape_string() + " does not match x " + x->shape_string());
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, x->sizes));
  WICK_RETURN_IF_ERROR(check_dtype(op, *out, "out", ScalarType::kFloat));
  const int64_t rows = len == 0 ? 0 : x->numel() / len;
  const float* xs = x->data_as<float>();
  const float* ws = w->data_as<float>();
  float* ys = out->data_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = xs + r * len;
    double ss = 0;
    for (int64_t i = 0; i < len; ++i) ss += static_cast<double>(xr[i]) * xr[i];
    const float inv = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(len) + eps));
    for (int64_t i = 0; i < len; ++i) ys[r * len + i] = xr[i] * inv * ws[i];
  }
  return {};
}

namespace {

// Rotary embeddings of q and k ([B, S, H, D]).
//   Llama (interleaved pairs): freqs [S, D/2] (or one row for every position);
//     out[2i] = x[2i] c - x[2i+1] s, out[2i+1] = x[2i] s + x[2i+1] c.
//   HF (rotate half over the first R = freqs width dims): freqs [P, R], row start_pos + s;
//     out[d] = x[d] c[d] - x[d + R/2] s[d] for d < R/2, x[d] c[d] + x[d - R/2] s[d] below R,
//     x[d] beyond.
Status rotary(const char* op, bool hf, ValueTable& values, std::span<const int32_t> args) {
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(hf ? 8 : 7));
  WICK_ASSIGN_OR_RETURN(Tensor * xq, a.tensor(0, "xq"));
  WICK_ASSIGN_OR_RETURN(Tensor * xk, a.tensor(1, "xk"));
  WICK_ASSIGN_OR_RETURN(Tensor * fc, a.tensor(2, "freqs_cos"));
  WICK_ASSIGN_OR_RETURN(Tensor * fs, a.tensor(3, "freqs_sin"));
  int64_t start_pos = 0;
  if (hf) {
    WICK_ASSIGN_OR_RETURN(start_pos, a.int_arg(4, "start_pos"));
  }
  const size_t o = hf ? 5 : 4;
  WICK_ASSIGN_OR_RETURN(Tensor * q_out, a.tensor(o, "xq_out"));
  WICK_ASSIGN_OR_RETURN(Tensor * k_out, a.tensor(o + 1, "xk_out"));
  for (auto [t, name] : {std::pair{xq, "xq"}, {xk, "xk"}, {fc, "freqs_cos"}, {fs, "freqs_sin"}})
    WICK_RETURN_IF_ERROR(check_dtype(op, *t, name, ScalarType::kFloat));
  if (xq->dim() != 4 || xk->dim() != 4) return not_supported(op, "xq and xk must be [B, S, H, D]");
  const int64_t d = xq->size(3), s_len = xq->size(1);
  if (xk->size(3) != d || d % 2 != 0 || xk->size(0) != xq->size(0) || xk->size(1) != s_len)
    return invalid_arg(op, "xq " + xq->shape_string() + " and xk " + xk->shape_string() + " do not agree");
  if (fc->dim() < 1 || !shape_equal(fc->sizes, fs->sizes))
    return invalid_arg(op, "freqs_cos " + fc->shape_string() + " and freqs_sin " + fs->shape_string() + " differ");
  const int64_t width = fc->sizes.back();
  const int64_t rows = width == 0 ? 0 : fc->numel() / width;
  if (hf ? (width > d || width % 2 != 0) : width != d / 2)
    return invalid_arg(op, "freqs width " + std::to_string(width) + " does not fit head dim " + std::to_string(d));
  if (hf && (start_pos < 0 || start_pos + s_len > rows))
    return invalid_arg(op, "positions [" + std::to_string(start_pos) + ", " + std::to_string(start_pos + s_len) +
                               ") beyond the freqs table (" + std::to_string(rows) + " rows)");
  if (!hf && rows != 1 && rows < s_len)
    return invalid_arg(op, "freqs have " + std::to_string(rows) + " rows for " + std::to_string(s_len) + " positions");
  WICK_RETURN_IF_ERROR(prepare_output(op, *q_out, xq->sizes, "xq_out"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *k_out, xk->sizes, "xk_out"));
  WICK_RETURN_IF_ERROR(check_dtype(op, *q_out, "xq_out", ScalarType::kFloat));
  WICK_RETURN_IF_ERROR(check_dtype(op, *k_out, "xk_out", ScalarType::kFloat));
  const float* cs = fc->data_as<float>();
  const float* sn = fs->data_as<float>();
  for (auto [in, out] : {std::pair{xq, q_out}, {xk, k_out}}) {
    const int64_t heads = in->size(2), batch = in->size(0);
    const float* x = in->data_as<float>();
    float* y = out->data_as<float>();
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s < s_len; ++s) {
        const int64_t row = hf ? start_pos + s : (rows == 1 ? 0 : s);
        const float* c = cs + row * width;
        const float* si = sn + row * width;
        for (int64_t h = 0; h < heads; ++h) {
          const int64_t base = ((b * s_len + s) * heads + h) * d;
          const float* xr = x + base;
          float* yr = y + base;
          if (!hf) {
            for (int64_t i = 0; i < d / 2; ++i) {
              const float re = xr[2 * i], im = xr[2 * i + 1];
              yr[2 * i] = re * c[i] - im * si[i];
              yr[2 * i + 1] = re * si[i] + im * c[i];
            }
          } else {
            const int64_t half = width / 2;
            for (int64_t i = 0; i < half; ++i) yr[i] = xr[i] * c[i] - xr[i + half] * si[i];
            for (int64_t i = half; i < width; ++i) yr[i] = xr[i] * c[i] + xr[i - half] * si[i];
            for (int64_t i = width; i < d; ++i) yr[i] = xr[i];
          }
        }
      }
  }
  return {};
}

// Copies `value` [1, S, H, D] into `cache` [1, C, H, D] at row start_pos.
Status write_cache(const char* op, const Tensor& value, Tensor& cache, int64_t start_pos, const char* what) {
  if (value.dim() != 4 || cache.dim() != 4 || value.size(0) != 1 || cache.size(0) != 1)
    return not_supported(op, std::string(what) + ": expected [1, S, H, D] and a cache [1, C, H, D], got " +
                                 value.shape_string() + " and " + cache.shape_string());
  if (value.size(2) != cache.size(2) || value.size(3) != cache.size(3))
    return invalid_arg(op, std::string(what) + " " + value.shape_string() + " does not fit the cache " + cache.shape_string());
  const int64_t s = value.size(1), c = cache.size(1);
  if (start_pos < 0 || start_pos + s > c)
    return invalid_arg(op, "positions [" + std::to_string(start_pos) + ", " + std::to_string(start_pos + s) +
                               ") exceed the cache length " + std::to_string(c));
  const int64_t row = value.size(2) * value.size(3);
  std::copy(value.data_as<float>(), value.data_as<float>() + s * row, cache.data_as<float>() + start_pos * row);
  return {};
}

}  // namespace

Status et_vk_apply_rotary_emb_out(ValueTable& v, std::span<const int32_t> a) {
  return rotary("et_vk::apply_rotary_emb.out", false, v, a);
}
Status et_vk_apply_rotary_emb_hf_out(ValueTable& v, std::span<const int32_t> a) {
  return rotary("et_vk::apply_rotary_emb_hf.out", true, v, a);
}

// sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache,
//   Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None,
//   float drpout_p=0.0, bool is_causal=False, float? scale=None, *, Tensor(c!) out)
// q [1, S, Hq, D], k/v [1, S, Hkv, D], caches [1, C, Hkv, D]. Writes k and v into the caches
// at start_pos, then attends each query row s over cache rows [0, start_pos + s] (causal,
// as with is_causal None or true) or [0, start_pos + S); grouped heads share kv head
// h / (Hq / Hkv). out is q's shape, or [1, S, Hq * D].
Status llama_sdpa_with_kv_cache_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "llama::sdpa_with_kv_cache.out";
  Tensor *q{}, *k{}, *v{}, *kc{}, *vc{}, *mask{};
  int64_t start_pos = 0;
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.read(13, arg(q, "query"), arg(k, "key"), arg(v, "value"), arg(kc, "key_cache"),
                       arg(vc, "value_cache"), arg(start_pos, "start_pos"), skip(), optional_arg(mask, "attn_mask")));
  if (mask) return not_supported(op, "attn_mask must be None");
  WICK_ASSIGN_OR_RETURN(auto dropout, a.optional_scalar(8, "dropout_p"));
  if (dropout && dropout->to_double() != 0) return not_supported(op, "dropout_p must be 0");
  bool causal = true;
  {
    WICK_ASSIGN_OR_RETURN(Value * c, values.at(args[9]));
    if (!c->is_none()) {
      WICK_ASSIGN_OR_RETURN(causal, a.bool_arg(9, "is_causal"));
    }
  }
  WICK_ASSIGN_OR_RETURN(auto scale_arg, a.optional_scalar(10, "scale"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(11, "out"));
  for (auto [t, name] : {std::pair{q, "query"}, {k, "key"}, {v, "value"}, {kc, "key_cache"}, {vc, "value_cache"}})
    WICK_RETURN_IF_ERROR(check_dtype(op, *t, name, ScalarType::kFloat));
  if (q->dim() != 4 || q->size(0) != 1) return not_supported(op, "query must be [1, S, H, D], got " + q->shape_string());
  if (!shape_equal(kc->sizes, vc->sizes))
    return invalid_arg(op, "key cache " + kc->shape_string() + " and value cache " + vc->shape_string() + " differ");
  WICK_RETURN_IF_ERROR(write_cache(op, *k, *kc, start_pos, "key"));
  WICK_RETURN_IF_ERROR(write_cache(op, *v, *vc, start_pos, "value"));
  const int64_t s_len = q->size(1), hq = q->size(2), d = q->size(3), hkv = kc->size(2);
  if (k->size(1) != s_len || v->size(1) != s_len) return invalid_arg(op, "key/value length differs from the query's");
  if (kc->size(3) != d || hkv <= 0 || hq % hkv != 0)
    return invalid_arg(op, "query " + q->shape_string() + " does not fit the cache " + kc->shape_string());
  std::vector<int64_t> out_shape = {1, s_len, hq, d};
  if (out->dim() == 3) out_shape = {1, s_len, hq * d};
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, out_shape));
  WICK_RETURN_IF_ERROR(check_dtype(op, *out, "out", ScalarType::kFloat));
  const float scale = scale_arg ? static_cast<float>(scale_arg->to_double()) : static_cast<float>(1.0 / std::sqrt(double(d)));
  const float* qs = q->data_as<float>();
  const float* ks = kc->data_as<float>();
  const float* vs = vc->data_as<float>();
  float* ys = out->data_as<float>();
  const int64_t group = hq / hkv, row = hkv * d;
  const int64_t head_cost = std::max<int64_t>(1, 2 * (start_pos + s_len) * d);
  parallel_for(s_len * hq, std::max<int64_t>(1, 65536 / head_cost), [&](int64_t begin, int64_t end) {
    std::vector<float> p(static_cast<size_t>(start_pos + s_len));
    for (int64_t t = begin; t < end; ++t) {
      const int64_t s = t / hq, h = t % hq, kvh = h / group;
      const float* qr = qs + (s * hq + h) * d;
      const int64_t len = causal ? start_pos + s + 1 : start_pos + s_len;
      float m = -INFINITY;
      for (int64_t j = 0; j < len; ++j) {
        const float* kr = ks + j * row + kvh * d;
        float dot = 0;
        for (int64_t i = 0; i < d; ++i) dot += qr[i] * kr[i];
        p[static_cast<size_t>(j)] = dot * scale;
        m = std::max(m, p[static_cast<size_t>(j)]);
      }
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) {
        p[static_cast<size_t>(j)] = std::exp(p[static_cast<size_t>(j)] - m);
        sum += p[static_cast<size_t>(j)];
      }
      float* yr = ys + (s * hq + h) * d;
      std::fill(yr, yr + d, 0.0f);
      const float inv = static_cast<float>(1.0 / sum);
      for (int64_t j = 0; j < len; ++j) {
        const float w = p[static_cast<size_t>(j)] * inv;
        const float* vr = vs + j * row + kvh * d;
        for (int64_t i = 0; i < d; ++i) yr[i] += w * vr[i];
      }
    }
  });
  return {};
}

// update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out):
// writes value [1, S, H, D] into cache [1, C, H, D] at start_pos; out is a placeholder.
Status llama_update_cache_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "llama::update_cache.out";
  Tensor *value{}, *cache{};
  int64_t start_pos = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 5, arg(value, "value"), arg(cache, "cache"),
                                 arg(start_pos, "start_pos")));
  WICK_RETURN_IF_ERROR(check_dtype(op, *value, "value", ScalarType::kFloat));
  WICK_RETURN_IF_ERROR(check_dtype(op, *cache, "cache", ScalarType::kFloat));
  return write_cache(op, *value, *cache, start_pos, "value");
}

}  // namespace wick::cpu
