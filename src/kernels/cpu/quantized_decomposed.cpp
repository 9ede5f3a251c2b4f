// quantized_decomposed::{quantize,dequantize}_per_tensor.out: per-tensor affine integer
// quantization as torch.ao's decomposed ops define it, in f32 as PyTorch computes it:
//   quantize:   q = clamp(round_half_even(x * f32(1 / scale)) + zp, quant_min, quant_max)
//   dequantize: x = (f32(q) - zp) * f32(scale)
// Quantized dtypes: uint8, int8, int16, int32. For the CPU parts of programs and for the
// CPU executor of VK00 graphs (vkcpu/op_table.cpp).
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/ops.h"

namespace wick::cpu {

namespace {

bool int_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::kByte: *lo = 0, *hi = 255; return true;
    case ScalarType::kChar: *lo = -128, *hi = 127; return true;
    case ScalarType::kShort: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case ScalarType::kInt: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    default: return false;
  }
}

template <class T>
void quantize_into(const float* x, int64_t n, float inv_scale, int64_t zp, int64_t qmin, int64_t qmax, void* out) {
  T* o = static_cast<T*>(out);
  const float lo = static_cast<float>(qmin), hi = static_cast<float>(qmax);
  for (int64_t i = 0; i < n; ++i) {
    // Clamped in float (as torch.clamp on the float tensor): huge values saturate instead
    // of overflowing the integer cast. NaN becomes quant_min, where PyTorch is undefined.
    float r = std::nearbyint(x[i] * inv_scale) + static_cast<float>(zp);
    r = r >= lo ? (r <= hi ? r : hi) : lo;
    o[i] = static_cast<T>(static_cast<int64_t>(r));
  }
}

template <class T>
void dequantize_into(const void* in, int64_t n, float scale, int64_t zp, float* out) {
  const T* q = static_cast<const T*>(in);
  const float z = static_cast<float>(zp);
  for (int64_t i = 0; i < n; ++i) out[i] = (static_cast<float>(q[i]) - z) * scale;
}

// The scalar args shared by both ops, validated against the quantized dtype.
struct QParams {
  double scale;
  int64_t zp, qmin, qmax;
  ScalarType qdtype;
};

// `quantized`: the integer tensor (output of quantize, input of dequantize). ExecuTorch's
// Vulkan serializer writes the dtype argument as None (VK00 has no dtype value), so inside
// VK00 graphs (vkcpu) that tensor's own dtype gives it.
Result<QParams> read_qparams(KernelArgs& a, const Tensor& quantized) {
  QParams p{};
  WICK_ASSIGN_OR_RETURN(p.scale, a.double_arg(1, "scale"));
  WICK_ASSIGN_OR_RETURN(p.zp, a.int_arg(2, "zero_point"));
  WICK_ASSIGN_OR_RETURN(p.qmin, a.int_arg(3, "quant_min"));
  WICK_ASSIGN_OR_RETURN(p.qmax, a.int_arg(4, "quant_max"));
  WICK_ASSIGN_OR_RETURN(std::optional<ScalarType> dt, a.optional_dtype(5, "dtype"));
  p.qdtype = dt ? *dt : quantized.dtype;
  int64_t lo = 0, hi = 0;
  if (!int_range(p.qdtype, &lo, &hi)) return not_supported(a.op(), "quantized dtype " + dtype_str(p.qdtype));
  if (p.qmin > p.qmax || p.qmin < lo || p.qmax > hi)
    return invalid_arg(a.op(), "quant range [" + std::to_string(p.qmin) + ", " + std::to_string(p.qmax) +
                                   "] does not fit " + dtype_str(p.qdtype));
  if (!(p.scale > 0) || !std::isfinite(p.scale))
    return invalid_arg(a.op(), "scale " + std::to_string(p.scale) + " must be positive and finite");
  return p;
}

}  // namespace

// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//   int quant_max, ScalarType dtype, *, Tensor(a!) out)
Status quantize_per_tensor_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "quantized_decomposed::quantize_per_tensor.out";
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(8));
  WICK_ASSIGN_OR_RETURN(Tensor * x, a.tensor(0, "input"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(6, "out"));
  WICK_ASSIGN_OR_RETURN(QParams p, read_qparams(a, *out));
  WICK_RETURN_IF_ERROR(check_tensor(op, *x, "input"));
  if (x->dtype != ScalarType::kFloat) return not_supported(op, "input must be float32, got " + dtype_str(x->dtype));
  if (out->dtype != p.qdtype)
    return invalid_arg(op, "out is " + dtype_str(out->dtype) + ", dtype says " + dtype_str(p.qdtype));
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, x->sizes));
  const float inv = static_cast<float>(1.0 / p.scale);
  const float* xs = x->data_as<float>();
  switch (p.qdtype) {
    case ScalarType::kByte: quantize_into<uint8_t>(xs, x->numel(), inv, p.zp, p.qmin, p.qmax, out->data); break;
    case ScalarType::kChar: quantize_into<int8_t>(xs, x->numel(), inv, p.zp, p.qmin, p.qmax, out->data); break;
    case ScalarType::kShort: quantize_into<int16_t>(xs, x->numel(), inv, p.zp, p.qmin, p.qmax, out->data); break;
    default: quantize_into<int32_t>(xs, x->numel(), inv, p.zp, p.qmin, p.qmax, out->data); break;
  }
  return {};
}

// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//   int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)
Status dequantize_per_tensor_out(ValueTable& values, std::span<const int32_t> args) {
  const char* op = "quantized_decomposed::dequantize_per_tensor.out";
  KernelArgs a(op, values, args);
  WICK_RETURN_IF_ERROR(a.expect_count(9));
  WICK_ASSIGN_OR_RETURN(Tensor * q, a.tensor(0, "input"));
  WICK_ASSIGN_OR_RETURN(QParams p, read_qparams(a, *q));
  WICK_ASSIGN_OR_RETURN(std::optional<ScalarType> out_dtype, a.optional_dtype(6, "out_dtype"));
  WICK_ASSIGN_OR_RETURN(Tensor * out, a.tensor(7, "out"));
  WICK_RETURN_IF_ERROR(check_tensor(op, *q, "input"));
  if (q->dtype != p.qdtype)
    return invalid_arg(op, "input is " + dtype_str(q->dtype) + ", dtype says " + dtype_str(p.qdtype));
  if ((out_dtype && *out_dtype != ScalarType::kFloat) || out->dtype != ScalarType::kFloat)
    return not_supported(op, "only float32 output");
  WICK_RETURN_IF_ERROR(prepare_output(op, *out, q->sizes));
  const float scale = static_cast<float>(p.scale);
  float* ys = out->data_as<float>();
  switch (p.qdtype) {
    case ScalarType::kByte: dequantize_into<uint8_t>(q->data, q->numel(), scale, p.zp, ys); break;
    case ScalarType::kChar: dequantize_into<int8_t>(q->data, q->numel(), scale, p.zp, ys); break;
    case ScalarType::kShort: dequantize_into<int16_t>(q->data, q->numel(), scale, p.zp, ys); break;
    default: dequantize_into<int32_t>(q->data, q->numel(), scale, p.zp, ys); break;
  }
  return {};
}

}  // namespace wick::cpu
