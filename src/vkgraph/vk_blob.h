// The Vulkan delegate blob: the VH00 header and the VK00 graph flatbuffer inside it
// (shared/spec/vk00_delegate.md §1). Everything is bounds-checked and verified.
#pragma once

#include <cstdint>
#include <span>

#include "core/status.h"
#include "vk00_generated.h"

namespace wick::vkgraph {

struct VkBlob {
  const vk::VkGraph* graph = nullptr;       // points into the blob
  std::span<const uint8_t> constant_bytes;  // the raw-bytes region (legacy inline constants)
};

Result<VkBlob> parse_vk_blob(std::span<const uint8_t> blob);

}  // namespace wick::vkgraph
