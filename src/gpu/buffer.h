// A GPU buffer: storage / uniform / staging memory with a size and a usage.
//
// Sizes are padded to a multiple of 4 bytes (and at least 4) on the GPU, because WebGPU
// copies and bindings work in 4-byte units; size() is still the size asked for.
#pragma once

#include <webgpu/webgpu.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"
#include "gpu/device.h"
#include "gpu/handle.h"

namespace wick::gpu {

enum class BufferUsage : uint32_t {
  kNone = 0,
  kStorage = 1u << 0,        // bound as var<storage>
  kUniform = 1u << 1,        // bound as var<uniform>
  kCopySrc = 1u << 2,
  kCopyDst = 1u << 3,
  kMapRead = 1u << 4,        // host-readable staging
  kMapWrite = 1u << 5,
  kIndirect = 1u << 6,       // dispatchWorkgroupsIndirect arguments
  kQueryResolve = 1u << 7,   // timestamp query results
};
constexpr BufferUsage operator|(BufferUsage a, BufferUsage b) {
  return static_cast<BufferUsage>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr bool has_usage(BufferUsage set, BufferUsage flag) {
  return (static_cast<uint32_t>(set) & static_cast<uint32_t>(flag)) == static_cast<uint32_t>(flag);
}

class Buffer {
 public:
  static Result<Buffer> create(std::shared_ptr<Device> device, uint64_t size, BufferUsage usage,
                               std::string_view label);
  // Storage | CopySrc | CopyDst: a tensor that can be written, bound and read back.
  static Result<Buffer> create_storage(std::shared_ptr<Device> device, uint64_t size,
                                       std::string_view label);
  // Uniform | CopyDst: a params block, rewritten with write().
  static Result<Buffer> create_uniform(std::shared_ptr<Device> device, uint64_t size,
                                       std::string_view label);
  // A sub-range [offset, offset + size) of `parent`'s memory as a buffer of its own: bound,
  // copied, written and read at that offset (the WebGPU buffer is shared, so binding a view
  // and its parent in one dispatch is one buffer to WebGPU's usage rules). `offset` must
  // be a multiple of 4 (and of minStorageBufferOffsetAlignment to be bound as storage).
  static Result<Buffer> view(const Buffer& parent, uint64_t offset, uint64_t size, std::string_view label);

  Buffer() = default;
  Buffer(Buffer&&) noexcept = default;
  Buffer& operator=(Buffer&&) noexcept = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  uint64_t size() const { return size_; }
  uint64_t allocated_size() const { return allocated_size_; }
  BufferUsage usage() const { return usage_; }
  const std::string& label() const { return label_; }
  WGPUBuffer handle() const { return buffer_.get(); }
  // Where this buffer's range starts in handle()'s memory (non-zero only for views).
  uint64_t offset() const { return offset_; }
  bool is_view() const { return view_; }
  bool valid() const { return static_cast<bool>(buffer_); }
  Device& device() const { return *device_; }

  // Queues a copy of host bytes into [offset, offset + bytes). The data is copied before
  // this returns and lands before any later submit. offset must be a multiple of 4; a byte
  // count that is not must end exactly at size() (the padding is zero-filled).
  Status write(const void* data, uint64_t bytes, uint64_t offset = 0);
  template <class T>
  Status write(std::span<const T> values, uint64_t offset = 0) {
    return write(values.data(), values.size_bytes(), offset);
  }

  // Copies [offset, offset + bytes) back to the host, after all work submitted so far.
  // Blocks. Needs kCopySrc (through a staging buffer) or kMapRead (mapped directly).
  Status read(void* dst, uint64_t bytes, uint64_t offset = 0) const;
  template <class T>
  Status read(std::span<T> out, uint64_t offset = 0) const {
    return read(out.data(), out.size_bytes(), offset);
  }

 private:
  Status check_range(std::string_view what, uint64_t bytes, uint64_t offset) const;

  std::shared_ptr<Device> device_;
  BufferHandle buffer_;
  uint64_t size_ = 0;
  uint64_t allocated_size_ = 0;
  uint64_t offset_ = 0;
  bool view_ = false;
  BufferUsage usage_ = BufferUsage::kNone;
  std::string label_;
};

}  // namespace wick::gpu
