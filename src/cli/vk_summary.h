// What a VulkanBackend delegate asks of the executor, read from its VK00 blob alone: the
// operators of its chain (with counts) and its largest tensor. `wick inspect --json`
// prints it per delegate, so a page can say before a download whether a program fits a
// GPU's buffer limits (web/playground/registry.mjs `requires`) without running it.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>

namespace wick::cli {

// {"ops": {name: count}, "tensors": N, "largest_tensor_elements": E,
//  "largest_tensor_bytes": B (in the tensor's own dtype)}, or {"error": message} for a
// blob that does not parse.
nlohmann::json vk_delegate_summary(std::span<const uint8_t> blob);

}  // namespace wick::cli
