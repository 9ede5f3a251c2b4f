#include "webgpu/ops/q8ta/q8ta_args.h"

#include <cmath>

namespace wick::webgpu::q8ta {

Result<QParams> read_qparams(Graph& g, int32_t scale_id, int32_t zp_id, const char* name, const char* what,
                             bool inverse) {
  WICK_ASSIGN_OR_RETURN(double s, g.scalar_arg(scale_id, name));
  WICK_ASSIGN_OR_RETURN(int64_t zp, g.int_arg(zp_id, name));
  if (!(s > 0) || !std::isfinite(s))
    return fail(ErrorCode::kInvalidProgram, name, std::string(what) + " scale " + std::to_string(s) + " must be positive and finite");
  if (zp < -128 || zp > 127)
    return fail(ErrorCode::kInvalidProgram, name, std::string(what) + " zero point " + std::to_string(zp) + " is outside int8");
  QParams q;
  const double scale = inverse ? 1.0 / s : s;
  q.scale = static_cast<float>(scale);
  // quantize_per_tensor multiplies by 1 / scale computed in double, then rounded to f32.
  q.inv_scale = static_cast<float>(inverse ? s : 1.0 / s);
  q.zp = static_cast<int32_t>(zp);
  return q;
}

Status check_int8_activation(const GpuTensor& t, const char* name, const char* what) {
  if (t.elem != Elem::kI32 || (t.vk_dtype != vk::VkDataType::INT8 && t.vk_dtype != vk::VkDataType::INT32))
    return fail(ErrorCode::kNotSupported, name, std::string(what) + " must be a non-constant int8 tensor");
  return {};
}

Status check_int8_weight(const GpuTensor& t, const char* name) {
  if (t.elem != Elem::kPackedBytes || t.vk_dtype != vk::VkDataType::INT8)
    return fail(ErrorCode::kNotSupported, name, "weights must be an int8 constant");
  return {};
}

Status check_channel_vector(const GpuTensor* t, int64_t n, const char* name, const char* what) {
  if (t == nullptr) return {};
  if (!t->is_float()) return fail(ErrorCode::kNotSupported, name, std::string(what) + " must be float");
  if (t->max_numel() < n)
    return fail(ErrorCode::kInvalidProgram, name, std::string(what) + " " + shape_to_string(t->max_dims) +
                                                      " holds fewer than " + std::to_string(n) + " channels");
  return {};
}

}  // namespace wick::webgpu::q8ta
