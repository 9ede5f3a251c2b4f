// Normalisations: batch norm (inference, and with batch statistics), layer norm, group norm.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {
namespace {

// Optional per-channel parameter: nullptr or a 1-D tensor of `n` elements.
Status check_param(const char* op, const Tensor* t, const Tensor& input, int64_t n, const char* name) {
  if (!t) return {};
  WICK_RETURN_IF_ERROR(check_tensor(op, *t, name));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, input, "input", *t, name));
  if (t->numel() != n)
    return invalid_arg(op, std::string(name) + " " + t->shape_string() + ", expected " + std::to_string(n) + " elements");
  return {};
}

std::vector<double> param_values(const Tensor* t, int64_t n, double fallback) {
  std::vector<double> v(static_cast<size_t>(n), fallback);
  if (t) convert_elements(t->data, t->dtype, v.data(), ScalarType::kDouble, n);
  return v;
}

// out = x * scale[c] + shift[c] over (outer, channel, inner) blocks.
template <class CT>
void affine_per_channel(const CT* x, CT* y, int64_t outer, int64_t channels, int64_t inner,
                        const std::vector<double>& scale, const std::vector<double>& shift) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const CT a = static_cast<CT>(scale[static_cast<size_t>(c)]);
      const CT b = static_cast<CT>(shift[static_cast<size_t>(c)]);
      const int64_t base = (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) y[base + i] = x[base + i] * a + b;
    }
  }
}

// Mean and 1/sqrt(var + eps) (biased variance) of each of `groups` contiguous runs of
// `len` elements, in double.
void group_stats(const Tensor& x, int64_t groups, int64_t len, double eps, std::vector<double>& mean,
                 std::vector<double>& rstd) {
  mean.assign(static_cast<size_t>(groups), 0.0);
  rstd.assign(static_cast<size_t>(groups), 0.0);
  visit_dtype(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data_as<T>();
    for (int64_t g = 0; g < groups; ++g) {
      const T* run = p + g * len;
      double sum = 0;
      for (int64_t i = 0; i < len; ++i) sum += convert<double>(run[i]);
      const double m = len > 0 ? sum / static_cast<double>(len) : 0.0;
      double sq = 0;
      for (int64_t i = 0; i < len; ++i) {
        const double d = convert<double>(run[i]) - m;
        sq += d * d;
      }
      const double var = len > 0 ? sq / static_cast<double>(len) : 0.0;
      mean[static_cast<size_t>(g)] = m;
      rstd[static_cast<size_t>(g)] = 1.0 / std::sqrt(var + eps);
    }
  });
}

Status write_stats(const char* op, Tensor& t, const std::vector<int64_t>& shape, const std::vector<double>& v,
                   const char* name) {
  WICK_RETURN_IF_ERROR(prepare_output(op, t, shape, name));
  if (!is_floating(t.dtype)) return invalid_arg(op, std::string(name) + " must be floating, got " + dtype_str(t.dtype));
  convert_elements(v.data(), ScalarType::kDouble, t.data, t.dtype, static_cast<int64_t>(v.size()));
  return {};
}

}  // namespace

// _native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//   Tensor running_mean, Tensor running_var, float momentum, float eps, *,
//   Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
Status native_batch_norm_legit_no_training_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::_native_batch_norm_legit_no_training.out";
  Tensor *input{}, *weight{}, *bias{}, *mean{}, *var{}, *out0{}, *out1{}, *out2{};
  double momentum = 0, eps = 0;  // momentum only matters when training
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 11, floating_arg(input, "input"), optional_arg(weight, "weight"),
                                 optional_arg(bias, "bias"), arg(mean, "running_mean"), arg(var, "running_var"),
                                 arg(momentum, "momentum"), arg(eps, "eps"), arg(out0, "out0"), arg(out1, "out1"),
                                 arg(out2, "out2")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *input, "input", *out0, "out0"));
  if (input->dim() < 2) return invalid_arg(op, "input rank " + std::to_string(input->dim()) + ", expected at least 2");
  const int64_t channels = input->size(1);
  WICK_RETURN_IF_ERROR(check_param(op, weight, *input, channels, "weight"));
  WICK_RETURN_IF_ERROR(check_param(op, bias, *input, channels, "bias"));
  WICK_RETURN_IF_ERROR(check_param(op, mean, *input, channels, "running_mean"));
  WICK_RETURN_IF_ERROR(check_param(op, var, *input, channels, "running_var"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out0, input->sizes, "out0"));
  // Inference returns empty save_mean / save_invstd, as PyTorch does.
  const int64_t empty[] = {0};
  WICK_RETURN_IF_ERROR(resize_output(op, *out1, empty, "out1"));
  WICK_RETURN_IF_ERROR(resize_output(op, *out2, empty, "out2"));

  std::vector<double> w = param_values(weight, channels, 1.0), b = param_values(bias, channels, 0.0);
  std::vector<double> m = param_values(mean, channels, 0.0), v = param_values(var, channels, 1.0);
  std::vector<double> scale(static_cast<size_t>(channels)), shift(static_cast<size_t>(channels));
  for (size_t c = 0; c < scale.size(); ++c) {
    scale[c] = w[c] / std::sqrt(v[c] + eps);
    shift[c] = b[c] - m[c] * scale[c];
  }
  const int64_t outer = input->size(0);
  const int64_t inner = channels * outer == 0 ? 0 : input->numel() / (channels * outer);
  return compute_in_out(*input, *out0, [&](const auto* x, auto* y) {
    affine_per_channel(x, y, outer, channels, inner, scale, shift);
  });
}

// _native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
//   bool training, float momentum, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
// Batch norm with the batch's own statistics (no running ones to read or update): per channel,
// mean and biased variance over N and the spatial dims; out1 / out2 are the mean and
// 1/sqrt(var + eps) shaped [C], as PyTorch returns them. nn.InstanceNorm2d exports as this op
// on its input viewed as [1, N*C, H, W].
Status native_batch_norm_legit_no_stats_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::_native_batch_norm_legit.no_stats_out";
  Tensor *input{}, *weight{}, *bias{}, *out0{}, *out1{}, *out2{};
  bool training = true;  // no running statistics: batch statistics either way
  double momentum = 0, eps = 0;
  // 9 arguments and the returned (out0, out1, out2) list.
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 10, floating_arg(input, "input"), optional_arg(weight, "weight"),
                                 optional_arg(bias, "bias"), arg(training, "training"), arg(momentum, "momentum"),
                                 arg(eps, "eps"), arg(out0, "out0"), arg(out1, "out1"), arg(out2, "out2")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *input, "input", *out0, "out0"));
  if (input->dim() < 2) return invalid_arg(op, "input rank " + std::to_string(input->dim()) + ", expected at least 2");
  const int64_t outer = input->size(0), channels = input->size(1);
  const int64_t inner = outer * channels == 0 ? 0 : input->numel() / (outer * channels);
  WICK_RETURN_IF_ERROR(check_param(op, weight, *input, channels, "weight"));
  WICK_RETURN_IF_ERROR(check_param(op, bias, *input, channels, "bias"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out0, input->sizes, "out0"));
  std::vector<double> mean(static_cast<size_t>(channels), 0.0), rstd(static_cast<size_t>(channels), 0.0);
  const double count = static_cast<double>(outer * inner);
  visit_dtype(input->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = input->data_as<T>();
    for (int64_t c = 0; c < channels; ++c) {
      double sum = 0;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) sum += convert<double>(x[(o * channels + c) * inner + i]);
      const double m = count > 0 ? sum / count : 0.0;
      double sq = 0;  // two passes: accurate for large means
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const double d = convert<double>(x[(o * channels + c) * inner + i]) - m;
          sq += d * d;
        }
      mean[static_cast<size_t>(c)] = m;
      rstd[static_cast<size_t>(c)] = 1.0 / std::sqrt((count > 0 ? sq / count : 0.0) + eps);
    }
  });
  const std::vector<int64_t> stat_shape = {channels};
  WICK_RETURN_IF_ERROR(write_stats(op, *out1, stat_shape, mean, "out1"));
  WICK_RETURN_IF_ERROR(write_stats(op, *out2, stat_shape, rstd, "out2"));
  std::vector<double> w = param_values(weight, channels, 1.0), b = param_values(bias, channels, 0.0);
  std::vector<double> scale(static_cast<size_t>(channels)), shift(static_cast<size_t>(channels));
  for (size_t c = 0; c < scale.size(); ++c) {
    scale[c] = rstd[c] * w[c];
    shift[c] = b[c] - mean[c] * scale[c];
  }
  return compute_in_out(*input, *out0, [&](const auto* x, auto* y) {
    affine_per_channel(x, y, outer, channels, inner, scale, shift);
  });
}

// native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
//   float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
Status native_layer_norm_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::native_layer_norm.out";
  Tensor *input{}, *weight{}, *bias{}, *out0{}, *out1{}, *out2{};
  std::vector<int64_t> normalized;
  double eps = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 9, floating_arg(input, "input"), arg(normalized, "normalized_shape"),
                                 optional_arg(weight, "weight"), optional_arg(bias, "bias"), arg(eps, "eps"),
                                 arg(out0, "out0"), arg(out1, "out1"), arg(out2, "out2")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *input, "input", *out0, "out0"));
  const size_t nd = normalized.size(), rank = static_cast<size_t>(input->dim());
  if (nd == 0 || nd > rank) return invalid_arg(op, "normalized_shape " + shape_to_string(normalized) + " does not fit input " + input->shape_string());
  for (size_t i = 0; i < nd; ++i)
    if (input->sizes[rank - nd + i] != normalized[i])
      return invalid_arg(op, "normalized_shape " + shape_to_string(normalized) + " does not match the end of input " +
                                 input->shape_string());
  const int64_t len = shape_numel(normalized);
  const int64_t rows = len == 0 ? 0 : input->numel() / len;
  WICK_RETURN_IF_ERROR(check_param(op, weight, *input, len, "weight"));
  WICK_RETURN_IF_ERROR(check_param(op, bias, *input, len, "bias"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out0, input->sizes, "out0"));
  std::vector<int64_t> stat_shape(input->sizes.begin(), input->sizes.end() - static_cast<std::ptrdiff_t>(nd));
  stat_shape.resize(rank, 1);
  std::vector<double> mean, rstd;
  group_stats(*input, rows, len, eps, mean, rstd);
  WICK_RETURN_IF_ERROR(write_stats(op, *out1, stat_shape, mean, "out1"));
  WICK_RETURN_IF_ERROR(write_stats(op, *out2, stat_shape, rstd, "out2"));
  std::vector<double> w = param_values(weight, len, 1.0), b = param_values(bias, len, 0.0);
  return compute_in_out(*input, *out0, [&](const auto* x, auto* y) {
    using CT = std::remove_pointer_t<decltype(y)>;
    for (int64_t r = 0; r < rows; ++r) {
      const double m = mean[static_cast<size_t>(r)], rs = rstd[static_cast<size_t>(r)];
      for (int64_t i = 0; i < len; ++i) {
        const size_t k = static_cast<size_t>(i);
        y[r * len + i] = static_cast<CT>((static_cast<double>(x[r * len + i]) - m) * rs * w[k] + b[k]);
      }
    }
  });
}

// native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//   SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
Status native_group_norm_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "aten::native_group_norm.out";
  Tensor *input{}, *weight{}, *bias{}, *out0{}, *out1{}, *out2{};
  int64_t n = 0, c = 0, hxw = 0, group = 0;
  double eps = 0;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 12, floating_arg(input, "input"), optional_arg(weight, "weight"),
                                 optional_arg(bias, "bias"), arg(n, "N"), arg(c, "C"), arg(hxw, "HxW"),
                                 arg(group, "group"), arg(eps, "eps"), arg(out0, "out0"), arg(out1, "out1"),
                                 arg(out2, "out2")));
  WICK_RETURN_IF_ERROR(check_same_dtype(op, *input, "input", *out0, "out0"));
  if (input->dim() < 2 || input->size(0) != n || input->size(1) != c || n < 0 || c < 0 || hxw < 0 ||
      input->numel() != n * c * hxw)
    return invalid_arg(op, "input " + input->shape_string() + " does not match N=" + std::to_string(n) +
                               " C=" + std::to_string(c) + " HxW=" + std::to_string(hxw));
  if (group <= 0 || c % group != 0)
    return invalid_arg(op, "channels " + std::to_string(c) + " not divisible into " + std::to_string(group) + " groups");
  WICK_RETURN_IF_ERROR(check_param(op, weight, *input, c, "weight"));
  WICK_RETURN_IF_ERROR(check_param(op, bias, *input, c, "bias"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out0, input->sizes, "out0"));
  const int64_t per_group = (c / group) * hxw;
  std::vector<double> mean, rstd;
  group_stats(*input, n * group, per_group, eps, mean, rstd);
  const std::vector<int64_t> stat_shape = {n, group};
  WICK_RETURN_IF_ERROR(write_stats(op, *out1, stat_shape, mean, "out1"));
  WICK_RETURN_IF_ERROR(write_stats(op, *out2, stat_shape, rstd, "out2"));
  std::vector<double> w = param_values(weight, c, 1.0), b = param_values(bias, c, 0.0);
  // Fold normalisation and affine into one scale/shift per (sample, channel).
  std::vector<double> scale(static_cast<size_t>(n * c)), shift(static_cast<size_t>(n * c));
  for (int64_t s = 0; s < n; ++s)
    for (int64_t ch = 0; ch < c; ++ch) {
      const size_t g = static_cast<size_t>(s * group + ch / (c / group)), k = static_cast<size_t>(s * c + ch);
      scale[k] = rstd[g] * w[static_cast<size_t>(ch)];
      shift[k] = b[static_cast<size_t>(ch)] - mean[g] * scale[k];
    }
  return compute_in_out(*input, *out0, [&](const auto* x, auto* y) {
    affine_per_channel(x, y, 1, n * c, hxw, scale, shift);
  });
}

}  // namespace wick::cpu
