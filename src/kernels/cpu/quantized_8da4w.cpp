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

#include "core/quant_blocks.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"
#include "kernels/cpu/q4gsw_linear.h"

namespace wick::cpu {

namespace {

// The integer dtypes a zero point may have, and float ones.
bool is_index_or_number(ScalarType t) {
  return t == ScalarType::kByte || t == ScalarType::kChar || t == ScalarType::kShort || t == ScalarType::kInt ||
         t == ScalarType::kLong || t == ScalarType::kFloat || t == ScalarType::kDouble;
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
  std::pair<int64_t, int64_t> range{0, 0};
  if (target) {
    if (!quant_range(*target)) return not_supported(op, "target_dtype " + dtype_str(*target));
    range = *quant_range(*target);
  } else if (!qmin_arg || !qmax_arg) {
    if (!quant_range(zp->dtype))
      return not_supported(op, "target_dtype is not given and the zero point is " + dtype_str(zp->dtype));
    range = *quant_range(zp->dtype);
  }
  const int64_t qmin = qmin_arg.value_or(range.first), qmax = qmax_arg.value_or(range.second);
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
  std::vector<float> zs(static_cast<size_t>(blocks));  // integral and in range: converted exactly
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
    zs[static_cast<size_t>(b)] = z;
  }
  convert_elements(zs.data(), ScalarType::kFloat, zp->data, zp->dtype, blocks);
  return {};
}

// linear_dq8ca_q4gsw.out(Tensor input, Tensor input_scales, Tensor input_zp, Tensor weights,
//   Tensor weight_sums, Tensor weight_scales, int group_size, Tensor? bias=None, *, Tensor(a!) out)
// Row m of the input is quantized as torchao's quantize_affine does, q = clamp(
// round_half_even(x * (1 / s_m)) + zp_m, -128, 127), dequantized back to (q - zp_m) * s_m, and
// multiplied with the q4gsw weights (§5.1). weight_sums is not needed in f32.
Status et_vk_linear_dq8ca_q4gsw_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "et_vk::linear_dq8ca_q4gsw.out";
  Tensor *x, *in_scale, *in_zp, *w, *sc, *bias, *out;
  int64_t gs;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 10, checked_arg(x, "input"), checked_arg(in_scale, "input_scales"),
                                 checked_arg(in_zp, "input_zp"), checked_arg(w, "weights"), skip(),
                                 checked_arg(sc, "weight_scales"), arg(gs, "group_size"), optional_arg(bias, "bias"),
                                 arg(out, "out")));
  if (x->dtype != ScalarType::kFloat || in_scale->dtype != ScalarType::kFloat || sc->dtype != ScalarType::kFloat)
    return not_supported(op, "input, input_scales and weight_scales must be float32");
  if (!is_index_or_number(in_zp->dtype)) return not_supported(op, "input_zp dtype " + dtype_str(in_zp->dtype));
  if (x->dim() < 1 || x->sizes.back() <= 0) return invalid_arg(op, "input " + x->shape_string() + " has no K");
  WICK_ASSIGN_OR_RETURN(Q4Linear q, prepare_q4gsw_linear(op, *x, *w, *sc, bias, gs, *out));
  const int64_t m = q.m, k = q.k;
  if (in_scale->numel() < m || in_zp->numel() < m)
    return invalid_arg(op, "input_scales " + in_scale->shape_string() + " / input_zp " + in_zp->shape_string() +
                               " hold fewer than the " + std::to_string(m) + " input rows");
  // The quantize-dequantize round trip of the activations, then the shared q4gsw product.
  std::vector<float> xd(static_cast<size_t>(m * k));
  const float* xs = x->data_as<float>();
  Scratch<float> zp_scratch;
  const float* zps = elements_as<float>(*in_zp, zp_scratch);
  for (int64_t r = 0; r < m; ++r) {
    const float s = in_scale->data_as<float>()[r], inv = 1.0f / s;
    const float z = zps[r];
    for (int64_t j = 0; j < k; ++j) {
      const float qv = std::fmin(std::fmax(std::nearbyint(xs[r * k + j] * inv) + z, -128.0f), 127.0f);
      xd[static_cast<size_t>(r * k + j)] = (qv - z) * s;
    }
  }
  q.x = xd.data();
  q4gsw_linear(q);
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
  Tensor *w, *sc, *idx, *out;
  int64_t gs;
  std::optional<Scalar> linear_arg;
  WICK_RETURN_IF_ERROR(read_args(op, values, args, 7, checked_arg(w, "weight"), checked_arg(sc, "weight_scales"),
                                 arg(gs, "group_size"), checked_arg(idx, "indices"), arg(linear_arg, "is_linear_weight"),
                                 arg(out, "out")));
  const bool linear = linear_arg && linear_arg->to_double() != 0;
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
