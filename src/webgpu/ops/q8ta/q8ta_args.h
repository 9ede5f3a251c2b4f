// Argument checks shared by the q8ta ops (ops/q8ta/*.cpp): int8 activations (one value per
// i32 word, webgpu/graph.h), int8 constant weights (raw bytes), per-tensor quantization
// parameters. Every failure names the op and says what is wrong.
#pragma once

#include <string>

#include "webgpu/graph.h"

namespace wick::webgpu::q8ta {

inline Status fail(ErrorCode code, const char* name, const std::string& what) {
  return Status(code, std::string(name) + ": " + what);
}

// A per-tensor int8 quantization: scale > 0 and finite, zero point within int8.
struct QParams {
  float scale = 1, inv_scale = 1;
  int32_t zp = 0;
};

// `scale_id` / `zp_id`: the scale and zero point values; `inverse`: the value given is
// 1 / scale (q8ta_pixel_shuffle's output_inv_scale).
Result<QParams> read_qparams(Graph& g, int32_t scale_id, int32_t zp_id, const char* name, const char* what,
                             bool inverse = false);

// An activation tensor of int8 values (a non-constant integer tensor).
Status check_int8_activation(const GpuTensor& t, const char* name, const char* what);

// A constant int8 weight tensor (kept as raw bytes).
Status check_int8_weight(const GpuTensor& t, const char* name);

// Optional f32 per-channel tensor (weight_scales, bias) holding at least `n` values.
Status check_channel_vector(const GpuTensor* t, int64_t n, const char* name, const char* what);

}  // namespace wick::webgpu::q8ta
