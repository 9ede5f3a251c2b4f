#include "vkgraph/vk_blob.h"

#include <cstring>

namespace wick::vkgraph {

Result<VkBlob> parse_vk_blob(std::span<const uint8_t> blob) {
  auto bad = [](const std::string& what) { return Status(ErrorCode::kInvalidProgram, "VH00 blob: " + what); };
  if (blob.size() < 30) return bad("only " + std::to_string(blob.size()) + " bytes, header needs 30");
  if (std::memcmp(blob.data() + 4, "VH00", 4) != 0) return bad("magic 'VH00' not found at byte 4");
  uint16_t header_size;
  uint32_t fb_offset, fb_size, bytes_offset;
  uint64_t bytes_size;
  std::memcpy(&header_size, blob.data() + 8, 2);
  std::memcpy(&fb_offset, blob.data() + 10, 4);
  std::memcpy(&fb_size, blob.data() + 14, 4);
  std::memcpy(&bytes_offset, blob.data() + 18, 4);
  std::memcpy(&bytes_size, blob.data() + 22, 8);
  const uint64_t n = blob.size();
  if (header_size < 30) return bad("header size " + std::to_string(header_size) + " < 30");
  if (fb_offset < header_size || fb_size == 0 || uint64_t{fb_offset} + fb_size > n)
    return bad("flatbuffer region [" + std::to_string(fb_offset) + ", +" + std::to_string(fb_size) +
               ") lies outside the " + std::to_string(n) + "-byte blob");
  if (bytes_offset < fb_offset || fb_size > bytes_offset - fb_offset || bytes_offset > n ||
      bytes_size > n - bytes_offset)
    return bad("constant region [" + std::to_string(bytes_offset) + ", +" + std::to_string(bytes_size) +
               ") is inconsistent with the blob");
  // The verifier checks each field's alignment relative to the region start, so the start
  // itself must be 8-byte aligned for the int64 and double lists to be (a start 4 bytes off,
  // which a hostile fb_offset gives, passes verification and then reads them misaligned).
  // Segments are 16-byte aligned in the file image, and fb_offset is 32 in every exporter's
  // output.
  const uint8_t* fb = blob.data() + fb_offset;
  if (reinterpret_cast<uintptr_t>(fb) % 8 != 0)
    return bad("flatbuffer at offset " + std::to_string(fb_offset) + " is not 8-byte aligned");
  flatbuffers::Verifier::Options options;
  options.max_depth = 64;
  options.max_tables = 10000000;
  flatbuffers::Verifier verifier(fb, fb_size, options);
  if (!vk::VerifyVkGraphBuffer(verifier)) return bad("VK00 flatbuffer failed verification");
  VkBlob out;
  out.graph = vk::GetVkGraph(fb);
  // An exporter that leaves bytes_size 0 may still append raw bytes after bytes_offset.
  out.constant_bytes = blob.subspan(bytes_offset, bytes_size ? bytes_size : n - bytes_offset);
  return out;
}

}  // namespace wick::vkgraph
