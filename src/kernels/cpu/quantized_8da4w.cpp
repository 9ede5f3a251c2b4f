// The ops of torchao's 8da4w flow as ExecuTorch's Vulkan passes emit them (shared/spec/ops.md
// §2.11, §5), with the WebGPU kernels' semantics (src/webgpu/ops/quantized, ops/qdq):
//   torchao::choose_qparams_affine  per-block scale and zero point of the activations
//   et_vk::linear_dq8ca_q4gsw       per-row int8 quantize-dequantize of the input, then the
//                                   q4gsw linear (the model's own rounding, not just linear(x))
//   et_vk::embedding_q4gsw          rows of a 4-bit group-wise quantized embedding table
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/q4gsw_linear.h"

namespace wick::cpu {

namespace {

// The integer range of a quantized dtype.
bool int_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::kByte: *lo = 0, *hi = 255; return true;
    case ScalarType::kChar: *lo = -128, *hi = 127; return true;
    case ScalarType::kShort: *lo = -32768, *hi = 32767; return true;
    case ScalarType::kInt: *lo = std::numeric_limits<int32_t>::min(), *hi = std::numeric_limits<int32_t>::max(); return true;
    default: return false;
  }
}

// Element i of an integer tensor (int8/uint8/int16/int32/int64) or a float one, as a double.
double element_at(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case ScalarType::kByte: return static_cast<const uint8_t*>(t.data)[i];
    case ScalarType::kChar: return static_cast<const int8_t*>(t.data)[i];
    case ScalarType::kShort: return static_cast<const int16_t*>(t.data)[i];
    case ScalarType::kInt: return static_cast<const int32_t*>(t.data)[i];
    case ScalarType::kLong: return static_cast<double>(static_cast<const int64_t*>(t.data)[i]);
    case ScalarType::kFloat: return static_cast<const float*>(t.data)[i];
    case ScalarType::kDouble: return static_cast<const double*>(t.data)[i];
    default: return 0;
  }
}

bool is_index_or_number(ScalarType t) {
  return t == ScalarType::kByte || t == ScalarType::kChar || t == ScalarType::kShort || t == ScalarType::kInt ||
         t == ScalarType::kLong || t == ScalarType::kFloat || t == ScalarType::kDouble;
}

// Stores v (already integral and in range) into element i of t.
void store_at(Tensor& t, int64_t i, double v) {
  switch (t.dtype) {
    case ScalarType::kByte: static_cast<uint8_t*>(t.data)[i] = static_cast<uint8_t>(v); break;
    case ScalarType::kChar: static_cast<int8_t*>(t.data)[i] = static_cast<int8_t>(v); break;
    case ScalarType::kShort: static_cast<int16_t*>(t.data)[i] = static_cast<int16_t>(v); break;
    case ScalarType::kInt: static_cast<int32_t*>(t.data)[i] = static_cast<int32_t>(v); break;
    case ScalarType::kLong: static_cast<int64_t*>(t.data)[i] = static_cast<int64_t>(v); break;
    case ScalarType::kFloat: static_cast<float*>(t.data)[i] = static_cast<float>(v); break;
    case ScalarType::kDouble: static_cast<double*>(t.data)[i] = v; break;
    default: break;
  }
}

// Blocks of choose_qparams_affine as contiguous runs: block_size 1 on the leading dims, the
// full size on the trailing ones, and a divisor of the one dim between (per row, per group
// along the last dim, per tensor), as the WebGPU kernel takes them. 0 if not of that form.
int64_t contiguous_block_len(std::span<const int64_t> dims, const std::vector<int64_t>& block) {
  if (block.size() != dims.size() || dims.empty()) return 0;
  size_t j = 0;
  while (j < dims.size() && block[j] == 1) ++j;
  if (j == dims.size()) return 1;
  if (block[j] <= 0 || dims[j] % block[j] != 0) return 0;
  int64_t len = block[j];
  for (size_t d = j + 1; d < dims.size(); ++d) {
    if (block[d] != dims[d]) return 0;
    len *= dims[d];
  }
  return len;
}

}  // namespace

// choose_qparams_affine.out(Tensor input, str mapping_type, SymInt[] block_size,
//   ScalarType target_dtype, int? quant_min, int? quant_max, float? eps, ScalarType? scale_dtype,
//   ScalarType? zero_point_dtype, [bool keepdim,] *, Tensor(a!) scale, Tensor(b!) zero_point)
// -> [9 or 10 schema args, scale, zero_point, scale]. In f32, as torchao's
// _choose_qparams_affine (min_neg = min(min, 0), max_pos = max(max, 0)):
//   ASYMMETRIC                 scale = max(eps, (max_pos - min_neg) / (qmax - qmin)),
//                              zp = clamp(qmin - round_half_even(min_neg / scale), qmin, qmax)
//   SYMMETRIC                  scale = max(eps, max(-min_neg, max_pos) / ((qmax - qmin) / 2)), zp = mid
//   SYMMETRIC_NO_CLIPPING_ERR  scale = max(eps, max(min_neg / qmin, max_pos / qmax)), zp = mid
// with mid = trunc((qmin + qmax + 1) / 2). The Vulkan serializer writes target_dtype as None
// (VK00 has no dtype value): then quant_min / quant_max, or the zero point's dtype, give the range.
Status torchao_choose_qparams_affine_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "torchao::choose_qparams_affine.out";
  KernelArgs a(op, values, args);
  if (args.size() != 12 && args.size() != 13)
    return invalid_arg(op, "expected 12 or 13 values (9 or 10 arguments, scale, zero_point, scale), got " +
                               std::to_string(args.size()));
  const size_t outs = args.size() - 3;
  WICK_ASSIGN_OR_RETURN(Tensor * x, a.tensor(0, "input"));
  WICK_ASSIGN_OR_RETURN(std::optional<std::string> mapping_s, a.optional_string(1, "mapping_type"));
  WICK_ASSIGN_OR_RETURN(std::vector<int64_t> block, a.int_list(2, "block_size"));
  WICK_ASSIGN_OR_RETURN(std::optional<ScalarType> target, a.optional_dtype(3, "target_dtype"));
  WICK_ASSIGN_OR_RETURN(std::optional<int64_t> qmin_arg, a.optional_int(4, "quant_min"));
  WICK_ASSIGN_OR_RETURN(std::optional<int64_t> qmax_arg, a.optional_int(5, "quant_max"));
  WICK_ASSIGN_OR_RETURN(std::optional<Scalar> eps_arg, a.optional_scalar(6, "eps"));
  WICK_ASSIGN_OR_RETURN(Tensor * scale, a.tensor(outs, "scale"));
  WICK_ASSIGN_OR_RETURN(Tensor * zp, a.tensor(outs + 1, "zero_point"));
  WICK_RETURN_IF_ERROR(check_floating(op, *x, "input"));
  int mapping;
  if (!mapping_s) return invalid_arg(op, "mapping_type is None");
  if (*mapping_s == "ASYMMETRIC") mapping = 0;
  else if (*mapping_s == "SYMMETRIC") mapping = 1;
  else if (*mapping_s == "SYMMETRIC_NO_CLIPPING_ERR") mapping = 2;
  else return not_supported(op, "mapping_type \"" + *mapping_s + "\"");
  int64_t qmin = 0, qmax = 0;
  if (target) {
    if (!int_range(*target, &qmin, &qmax)) return not_supported(op, "target_dtype " + dtype_str(*target));
  } else if (!qmin_arg || !qmax_arg) {
    if (!int_range(zp->dtype, &qmin, &qmax))
      return not_supported(op, "target_dtype is not given and the zero point is " + dtype_str(zp->dtype));
  }
  if (qmin_arg) qmin = *qmin_arg;
  if (qmax_arg) qmax = *qmax_arg;
  if (qmin >= qmax) return invalid_arg(op, "quant_min " + std::to_string(qmin) + " must be below quant_max " + std::to_string(qmax));
  const float eps = eps_arg ? static_cast<float>(eps_arg->to_double()) : std::numeric_limits<float>::min();
  const int64_t len = contiguous_block_len(x->sizes, block);
  if (len == 0)
    return not_supported(op, "block_size " + shape_to_string(block) + " on input " + x->shape_string() +
                                 ": only blocks that are contiguous runs (1 on leading dims, full on trailing dims)");
  const int64_t blocks = x->numel() / len;
  // The outputs keep their declared shape (per-row: the input's leading dims); only their
  // element count must match the blocks.
  std::vector<int64_t> s_shape = scale->sizes, z_shape = zp->sizes;
  if (shape_numel(s_shape) != blocks || shape_numel(z_shape) != blocks) {
    s_shape.assign(x->sizes.begin(), x->sizes.end());
    for (size_t d = 0; d < block.size(); ++d)
      if (block[d] != 1) s_shape[d] = x->sizes[d] / block[d];
    z_shape = s_shape;
  }
  WICK_RETURN_IF_ERROR(prepare_output(op, *scale, s_shape, "scale"));
  WICK_RETURN_IF_ERROR(prepare_output(op, *zp, z_shape, "zero_point"));
  if (scale->dtype != ScalarType::kFloat) return not_supported(op, "scale must be float32, got " + dtype_str(scale->dtype));
  if (!is_index_or_number(zp->dtype)) return not_supported(op, "zero_point dtype " + dtype_str(zp->dtype));
  Scratch<float> xs_scratch;
  const float* xs = elements_as<float>(*x, xs_scratch);
  const float fmin = static_cast<float>(qmin), fmax = static_cast<float>(qmax);
  const float mid = static_cast<float>(std::trunc(static_cast<double>(qmin + qmax + 1) / 2));
  for (int64_t b = 0; b < blocks; ++b) {
    float mn = 0.0f, mx = 0.0f;  // from 0: min_neg and max_pos directly
    for (int64_t i = b * len; i < (b + 1) * len; ++i) mn = std::fmin(mn, xs[i]), mx = std::fmax(mx, xs[i]);
    float s, z = mid;
    if (mapping == 0) {
      s = std::fmax(eps, (mx - mn) / (fmax - fmin));
      z = std::fmin(std::fmax(fmin - std::nearbyint(mn / s), fmin), fmax);
    } else if (mapping == 1) {
      s = std::fmax(eps, std::fmax(-mn, mx) / ((fmax - fmin) / 2.0f));
    } else {
      s = std::fmax(eps, std::fmax(mn / fmin, mx / fmax));
    }
    scale->data_as<float>()[b] = s;
    store_at(*zp, b, z);
  }
  return {};
}

// linear_dq8ca_q4gsw.out(Tensor input, Tensor input_scales, Tensor input_zp, Tensor weights,
//   Tensor weight_sums, Tensor weight_scales, int group_size, Tensor? bias=None, *, Tensor(a!) out)
// Row m of the input is quantized as torchao's quantize_affine does, q = clamp(
// round_half_even(x * (1 / s_m)) + zp_m, -128, 127), dequantized back to (q - zp_m) * s_m, and
// multiplied with the q4gsw weights (§5.1). weight_sums is not needed in f32.
Status et_vk_linear_dq8ca_q4gsw_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::linear_dq8ca_q4gsw.out";
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(10));
  WICK_ASSIGN_OR_RETURN(Tensor * x, a.tensor(0, "input"));
  WICK_ASSIGN_OR_RETURN(Tensor * in_scale, a.tensor(1, "input_scales"));
  WICK_ASSIGN_OR_RETURN(Tensor * in_zp, a.tensor(2, "input_zp"));
  WICK_ASSIGN_OR_RETURN(Tensor * w, a.tensor(3, "weights"));
  WICK_ASSIGN_OR_RETURN(Tensor * sc, a.tensor(5, "weight_scales"));
  WICK_ASSIGN_OR_RETURN(int64_t gs, a.int_arg(6, "group_size"));
  WICK_ASSIGN_OR_RETURN(Tensor * bias, a.optional_tensor(7, "bias"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(8, "out"));
  for (auto [t, name] : {std::pair{x, "input"}, {in_scale, "input_scales"}, {in_zp, "input_zp"}, {w, "weights"},
                         {sc, "weight_scales"}})
    WICK_RETURN_IF_ERROR(check_tensor(op, *t, name));
  if (x->dtype != ScalarType::kFloat || in_scale->dtype != ScalarType::kFloat || sc->dtype != ScalarType::kFloat)
    return not_supported(op, "input, input_scales and weight_scales must be float32");
  if (!is_index_or_number(in_zp->dtype)) return not_supported(op, "input_zp dtype " + dtype_str(in_zp->dtype));
  if (w->dtype != ScalarType::kByte && w->dtype != ScalarType::kChar)
    return invalid_arg(op, "weights must be uint8, got " + dtype_str(w->dtype));
  if (x->dim() < 1 || w->dim() != 2 || sc->dim() != 2)
    return invalid_arg(op, "expected input [..., K], weights [N, K/2], weight_scales [groups, N]; got " + x->shape_string() +
                               ", " + w->shape_string() + ", " + sc->shape_string());
  const int64_t k = x->sizes.back(), n = w->size(0), kp = w->size(1);
  if (k <= 0 || kp != (k + 1) / 2) return invalid_arg(op, "weights " + w->shape_string() + " do not hold K = " + std::to_string(k));
  if (gs <= 0) return invalid_arg(op, "group_size " + std::to_string(gs));
  const int64_t groups = sc->size(0), padded_n = sc->size(1);
  if (groups < (k + gs - 1) / gs || padded_n < n)
    return invalid_arg(op, "weight_scales " + sc->shape_string() + " do not cover K = " + std::to_string(k) + ", N = " +
                               std::to_string(n) + " with groups of " + std::to_string(gs));
  if (bias) {
    WICK_RETURN_IF_ERROR(check_tensor(op, *bias, "bias"));
    if (bias->dtype != ScalarType::kFloat || bias->numel() < n)
      return invalid_arg(op, "bias " + bias->shape_string() + " must be float32 with N = " + std::to_string(n) + " values");
  }
  const int64_t m = x->numel() / k;
  if (in_scale->numel() < m || in_zp->numel() < m)
    return invalid_arg(op, "input_scales " + in_scale->shape_string() + " / input_zp " + in_zp->shape_string() +
                               " hold fewer than the " + std::to_string(m) + " input rows");
  std::vector<int64_t> shape = x->sizes;
  shape.back() = n;
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  // The quantize-dequantize round trip of the activations, then the shared q4gsw product.
  std::vector<float> xd(static_cast<size_t>(m * k));
  const float* xs = x->data_as<float>();
  for (int64_t r = 0; r < m; ++r) {
    const float s = in_scale->data_as<float>()[r], inv = 1.0f / s;
    const float z = static_cast<float>(element_at(*in_zp, r));
    for (int64_t j = 0; j < k; ++j) {
      const float q = std::fmin(std::fmax(std::nearbyint(xs[r * k + j] * inv) + z, -128.0f), 127.0f);
      xd[static_cast<size_t>(r * k + j)] = (q - z) * s;
    }
  }
  q4gsw_linear(Q4Linear{xd.data(), static_cast<const uint8_t*>(w->data), sc->data_as<float>(),
                        bias ? bias->data_as<float>() : nullptr, out->data_as<float>(), m, k, n, kp, gs, padded_n});
  return {};
}

// embedding_q4gsw.out(Tensor weight, Tensor weight_scales, int group_size, Tensor indices,
//   bool is_linear_weight=False, *, Tensor(a!) out): out[..., d] = (q[t, d] - 8) *
// scales[t, d / group_size] for token t (§5.2): weight uint8 [vocab, dim / 2], scales fp32
// [vocab, groups] (not transposed). With is_linear_weight even d sits in the low nibble (the
// q4gsw order), else in the high one (embedding_4bit's). A token outside [0, vocab) gives a
// zero row, as on WebGPU.
Status et_vk_embedding_q4gsw_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::embedding_q4gsw.out";
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(7));
  WICK_ASSIGN_OR_RETURN(Tensor * w, a.tensor(0, "weight"));
  WICK_ASSIGN_OR_RETURN(Tensor * sc, a.tensor(1, "weight_scales"));
  WICK_ASSIGN_OR_RETURN(int64_t gs, a.int_arg(2, "group_size"));
  WICK_ASSIGN_OR_RETURN(Tensor * idx, a.tensor(3, "indices"));
  WICK_ASSIGN_OR_RETURN(std::optional<Scalar> linear_arg, a.optional_scalar(4, "is_linear_weight"));
  const bool linear = linear_arg && linear_arg->to_double() != 0;
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(5, "out"));
  WICK_RETURN_IF_ERROR(check_tensor(op, *w, "weight"));
  WICK_RETURN_IF_ERROR(check_tensor(op, *sc, "weight_scales"));
  WICK_RETURN_IF_ERROR(check_tensor(op, *idx, "indices"));
  if (w->dtype != ScalarType::kByte && w->dtype != ScalarType::kChar)
    return invalid_arg(op, "weight must be uint8, got " + dtype_str(w->dtype));
  if (sc->dtype != ScalarType::kFloat) return not_supported(op, "weight_scales must be float32");
  if (idx->dtype != ScalarType::kInt && idx->dtype != ScalarType::kLong)
    return invalid_arg(op, "indices must be int32 or int64, got " + dtype_str(idx->dtype));
  if (w->dim() != 2 || sc->dim() != 2)
    return invalid_arg(op, "expected weight [vocab, dim / 2] and weight_scales [vocab, groups]; got " + w->shape_string() +
                               ", " + sc->shape_string());
  if (gs <= 0) return invalid_arg(op, "group_size " + std::to_string(gs));
  const int64_t vocab = w->size(0), row_bytes = w->size(1), groups = sc->size(1);
  // The embedding dim: the output's declared last dim (a padded weight row may hold more).
  const std::vector<int64_t>& declared = out->max_sizes.empty() ? out->sizes : out->max_sizes;
  const int64_t dim = declared.empty() ? 0 : declared.back();
  if (dim <= 0 || dim > 2 * row_bytes)
    return invalid_arg(op, "output " + out->shape_string() + " does not end in a dim the weight " + w->shape_string() + " holds");
  if (sc->size(0) < vocab || groups * gs < dim)
    return invalid_arg(op, "weight_scales " + sc->shape_string() + " do not cover [" + std::to_string(vocab) + ", " +
                               std::to_string(dim) + " / " + std::to_string(gs) + "]");
  std::vector<int64_t> shape = idx->sizes;
  shape.push_back(dim);
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, shape));
  if (out->dtype != ScalarType::kFloat) return not_supported(op, "out must be float32");
  const uint8_t* wb = static_cast<const uint8_t*>(w->data);
  const float* ss = sc->data_as<float>();
  float* ys = out->data_as<float>();
  const int even_shift = linear ? 0 : 4, odd_shift = linear ? 4 : 0;
  for (int64_t t = 0; t < idx->numel(); ++t) {
    const int64_t token = idx->dtype == ScalarType::kInt ? idx->data_as<int32_t>()[t] : idx->data_as<int64_t>()[t];
    float* y = ys + t * dim;
    if (token < 0 || token >= vocab) {
      std::fill(y, y + dim, 0.0f);
      continue;
    }
    const uint8_t* row = wb + token * row_bytes;
    const float* srow = ss + token * groups;
    for (int64_t d = 0; d < dim; ++d) {
      const int shift = (d & 1) ? odd_shift : even_shift;
      y[d] = static_cast<float>(((row[d / 2] >> shift) & 0xF) - 8) * srow[d / gs];
    }
  }
  return {};
}

}  // namespace wick::cpu
