// The on-device training ops of ExecuTorch's Vulkan flow (backends/vulkan/custom_ops_lib.py,
// shared/spec/ops.md §2.12), fp32, for the CPU executor of VK00 graphs (vkcpu/). They are
// custom ops without out-variants in ExecuTorch; the names here follow this registry's
// out-variant convention (schema arguments, then the outputs).
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {

// adamw_step.out(Tensor(a!) param, Tensor(b!) m, Tensor(c!) v, Tensor grad, float lr, float beta1,
//   float beta2, float eps, float weight_decay, float bias_correction1, float bias_correction2,
//   *, Tensor out0, Tensor out1, Tensor out2): param, m and v are updated in place (the schema
// mutates them), then copied into the returned tensors where those have storage of their own.
// Computed in fp32 in the order of adamw_step_impl (decay, moments, bias-corrected update).
Status et_vk_adamw_step_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::adamw_step.out";
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(15));
  Tensor* t[4];
  const char* names[4] = {"param", "m", "v", "grad"};
  for (size_t i = 0; i < 4; ++i) {
    WICK_ASSIGN_OR_RETURN(t[i], a.tensor(i, names[i]));
    WICK_RETURN_IF_ERROR(check_dtype(op, *t[i], names[i], ScalarType::kFloat));
    if (t[i]->numel() != t[0]->numel())
      return invalid_arg(op, std::string(names[i]) + " " + t[i]->shape_string() + " differs in size from param " +
                                 t[0]->shape_string());
  }
  float h[7];
  const char* hnames[7] = {"lr", "beta1", "beta2", "eps", "weight_decay", "bias_correction1", "bias_correction2"};
  for (size_t i = 0; i < 7; ++i) {
    WICK_ASSIGN_OR_RETURN(double d, a.double_arg(4 + i, hnames[i]));
    h[i] = static_cast<float>(d);
  }
  if (h[5] == 0.0f || h[6] == 0.0f) return invalid_arg(op, "bias corrections must be non-zero");
  const float lr = h[0], b1 = h[1], b2 = h[2], eps = h[3], wd = h[4], bc1 = h[5], bc2 = h[6];
  float* p = t[0]->data_as<float>();
  float* m = t[1]->data_as<float>();
  float* v = t[2]->data_as<float>();
  const float* g = t[3]->data_as<float>();
  const int64_t n = t[0]->numel();
  for (int64_t i = 0; i < n; ++i) {
    const float decayed = p[i] * (1.0f - lr * wd);
    m[i] = b1 * m[i] + (1.0f - b1) * g[i];
    v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
    p[i] = decayed - lr * (m[i] / bc1) / (std::sqrt(v[i] / bc2) + eps);
  }
  for (size_t i = 0; i < 3; ++i) {
    WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(11 + i, "out"));
    if (out->data == t[i]->data) continue;
    WICK_RETURN_IF_ERROR(prepare_output(op, *out, t[i]->sizes));
    if (out->dtype != ScalarType::kFloat) return not_supported(op, "outputs must be float32");
    if (n > 0) std::memcpy(out->data, t[i]->data, static_cast<size_t>(n) * sizeof(float));
  }
  return {};
}

// fused_ce.out(Tensor logits, Tensor labels, float n_valid, *, Tensor loss, Tensor dlogits):
// with lse the logsumexp of a row and y its label, loss = sum over rows with y >= 0 of
// (lse - logits[y]) / n_valid and dlogits = (softmax - onehot(y)) / n_valid (zero rows for
// y < 0), as fused_ce_impl. A label past the last class is an error, as in PyTorch's gather.
Status et_vk_fused_ce_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::fused_ce.out";
  Tensor *logits{}, *labels{}, *loss{}, *dlogits{};
  double n_valid = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, arg(logits, "logits"), arg(labels, "labels"),
                                 arg(n_valid, "n_valid"), arg(loss, "loss"), arg(dlogits, "dlogits")));
  WICK_RETURN_IF_ERROR(check_dtype(op, *logits, "logits", ScalarType::kFloat));
  WICK_RETURN_IF_ERROR(check_tensor(op, *labels, "labels"));
  if (labels->dtype != ScalarType::kLong && labels->dtype != ScalarType::kInt)
    return not_supported(op, "labels must be int64 or int32, got " + dtype_str(labels->dtype));
  if (logits->dim() != 2 || labels->dim() != 1 || labels->size(0) != logits->size(0))
    return invalid_arg(op, "expected logits [M, V] and labels [M], got " + logits->shape_string() + " and " + labels->shape_string());
  if (!(n_valid > 0)) return invalid_arg(op, "n_valid must be positive, got " + std::to_string(n_valid));
  const int64_t rows = logits->size(0), cols = logits->size(1);
  if (rows > 0 && cols == 0) return invalid_arg(op, "logits " + logits->shape_string() + " have no classes");
  WICK_RETURN_IF_ERROR(prepare_output(op, *loss, std::vector<int64_t>{}, "loss"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *dlogits, logits->sizes, "dlogits"));
  if (loss->dtype != ScalarType::kFloat || dlogits->dtype != ScalarType::kFloat) return not_supported(op, "outputs must be float32");
  const float nv = static_cast<float>(n_valid);
  const float* x = logits->data_as<float>();
  float* d = dlogits->data_as<float>();
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t y = labels->dtype == ScalarType::kLong ? labels->data_as<int64_t>()[r] : labels->data_as<int32_t>()[r];
    const float* xr = x + r * cols;
    float* dr = d + r * cols;
    if (y < 0) {
      std::fill(dr, dr + cols, 0.0f);
      continue;
    }
    if (y >= cols)
      return invalid_arg(op, "label " + std::to_string(y) + " of row " + std::to_string(r) + " is out of range for " +
                                 std::to_string(cols) + " classes");
    float mx = xr[0];
    for (int64_t j = 1; j < cols; ++j) mx = std::max(mx, xr[j]);
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(static_cast<double>(xr[j] - mx));
    const double lse = mx + std::log(sum);
    total += (lse - xr[y]) / nv;
    for (int64_t j = 0; j < cols; ++j)
      dr[j] = (static_cast<float>(std::exp(static_cast<double>(xr[j] - mx)) / sum) - (j == y ? 1.0f : 0.0f)) / nv;
  }
  loss->data_as<float>()[0] = static_cast<float>(total);
  return {};
}

// linear_dW.out(Tensor d_out, Tensor x, *, Tensor out): out[n, k] = sum_m d_out[m, n] x[m, k],
// leading dims of d_out [..., N] and x [..., K] flattened into M.
Status et_vk_linear_dw_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::linear_dW.out";
  Tensor *d_out{}, *x{}, *out{};
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 4, arg(d_out, "d_out"), arg(x, "x"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_dtype(op, *d_out, "d_out", ScalarType::kFloat));
  WICK_RETURN_IF_ERROR(check_dtype(op, *x, "x", ScalarType::kFloat));
  if (d_out->dim() < 1 || x->dim() < 1) return invalid_arg(op, "d_out and x need at least one dim");
  const int64_t n = d_out->sizes.back(), k = x->sizes.back();
  const int64_t m = n == 0 ? 0 : d_out->numel() / n;
  if ((k == 0 ? 0 : x->numel() / k) != m && n > 0 && k > 0)
    return invalid_arg(op, "d_out " + d_out->shape_string() + " and x " + x->shape_string() + " differ in rows");
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, std::vector<int64_t>{n, k}));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  const float* g = d_out->data_as<float>();
  const float* xs = x->data_as<float>();
  float* o = out->data_as<float>();
  std::vector<double> acc(static_cast<size_t>(k));
  for (int64_t j = 0; j < n; ++j) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t r = 0; r < m; ++r) {
      const double gv = g[r * n + j];
      const float* xr = xs + r * k;
      for (int64_t c = 0; c < k; ++c) acc[static_cast<size_t>(c)] += gv * xr[c];
    }
    for (int64_t c = 0; c < k; ++c) o[j * k + c] = static_cast<float>(acc[static_cast<size_t>(c)]);
  }
  return {};
}

// linear_q4gsw_backward.out(Tensor d_out, Tensor weights, Tensor weight_scales, int group_size,
//   *, Tensor out): out[m, k] = sum_n d_out[m, n] w[n, k] with the q4gsw weight of
// linear_q4gsw (§5.1: weights uint8 [N, K/2], even k in the low nibble, +8 offset; scales
// [groups, padded N]); K = 2 * (K/2), the width ExecuTorch's reference gives the result.
Status et_vk_linear_q4gsw_backward_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::linear_q4gsw_backward.out";
  Tensor *d_out{}, *w{}, *sc{}, *out{};
  int64_t gs = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 6, arg(d_out, "d_out"), arg(w, "weights"), arg(sc, "weight_scales"),
                                 arg(gs, "group_size"), arg(out, "out")));
  WICK_RETURN_IF_ERROR(check_dtype(op, *d_out, "d_out", ScalarType::kFloat));
  WICK_RETURN_IF_ERROR(check_dtype(op, *sc, "weight_scales", ScalarType::kFloat));
  WICK_RETURN_IF_ERROR(check_tensor(op, *w, "weights"));
  if (w->dtype != ScalarType::kByte && w->dtype != ScalarType::kChar)
    return invalid_arg(op, "weights must be uint8, got " + dtype_str(w->dtype));
  if (d_out->dim() < 1 || w->dim() != 2 || sc->dim() != 2)
    return invalid_arg(op, "expected d_out [..., N], weights [N, K/2], scales [groups, N]; got " + d_out->shape_string() + ", " +
                               w->shape_string() + ", " + sc->shape_string());
  const int64_t n = w->size(0), kp = w->size(1), k = 2 * kp;
  if (d_out->sizes.back() != n) return invalid_arg(op, "d_out " + d_out->shape_string() + " does not end in N = " + std::to_string(n));
  if (gs <= 0) return invalid_arg(op, "group_size " + std::to_string(gs));
  const int64_t groups = sc->size(0), padded_n = sc->size(1);
  if (groups < (k + gs - 1) / gs || padded_n < n)
    return invalid_arg(op, "scales " + sc->shape_string() + " do not cover K = " + std::to_string(k) + ", N = " + std::to_string(n) +
                               " with groups of " + std::to_string(gs));
  std::vector<int64_t> shape = d_out->sizes;
  shape.back() = k;
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  const int64_t m = n == 0 ? 0 : d_out->numel() / n;
  const uint8_t* ws = static_cast<const uint8_t*>(w->data);
  const float* ss = sc->data_as<float>();
  const float* g = d_out->data_as<float>();
  float* o = out->data_as<float>();
  // The dequantized weight, once: [N, K].
  std::vector<float> deq(static_cast<size_t>(n * k));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c)
      deq[static_cast<size_t>(r * k + c)] =
          static_cast<float>(((ws[r * kp + c / 2] >> ((c & 1) * 4)) & 0xF) - 8) * ss[(c / gs) * padded_n + r];
  std::vector<double> acc(static_cast<size_t>(k));
  for (int64_t r = 0; r < m; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t j = 0; j < n; ++j) {
      const double gv = g[r * n + j];
      const float* wr = deq.data() + j * k;
      for (int64_t c = 0; c < k; ++c) acc[static_cast<size_t>(c)] += gv * wr[c];
    }
    for (int64_t c = 0; c < k; ++c) o[r * k + c] = static_cast<float>(acc[static_cast<size_t>(c)]);
  }
  return {};
}

}  // namespace wick::cpu
