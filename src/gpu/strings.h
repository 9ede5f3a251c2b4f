// Conversions between std::string and WebGPU's (pointer, length) strings.
#pragma once

#include <webgpu/webgpu.h>

#include <string>
#include <string_view>

namespace wick::gpu {

inline WGPUStringView to_wgpu(std::string_view s) { return WGPUStringView{s.data(), s.size()}; }

inline std::string from_wgpu(WGPUStringView s) {
  if (s.data == nullptr) return {};
  if (s.length == WGPU_STRLEN) return std::string(s.data);
  return std::string(s.data, s.length);
}

}  // namespace wick::gpu
