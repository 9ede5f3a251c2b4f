// Host -> GPU uploads through one persistent, mapped staging buffer (MapWrite | CopySrc).
//
// Why: wgpuQueueWriteBuffer copies into Dawn's own staging memory, and for writes above its
// ring-buffer size (4 MiB) Dawn creates a fresh host-visible buffer per call; writing into
// freshly allocated memory is bound by page faults (1.6-2.3 GB/s for SAM 2.1's 12-16 MiB
// inputs on the H200, issue 11). Here the staging buffer is created once, mapped, and
// reused: each call memcpys into already-faulted memory, unmaps, copies to the tensors with
// copyBufferToBuffer in one submit, and starts re-mapping for the next call (the map
// completes when the copy has run, long before the next call needs it).
//
// Usage per call: begin(total) -> write(...) for each piece -> flush(). Writes that do not
// fit in the staging buffer (larger than max_bytes, or past what begin() reserved) fall
// back to Buffer::write, so any size works. On Emscripten (the browser's WebGPU) every
// write goes through Buffer::write: the browser has its own staging, and a blocking wait
// on a map is not available there.
#pragma once

#include <webgpu/webgpu.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/status.h"
#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu/handle.h"

namespace wick::gpu {

class UploadStaging {
 public:
  // max_bytes caps the staging buffer (host-visible memory held for the graph's life).
  explicit UploadStaging(std::shared_ptr<Device> device, uint64_t max_bytes = uint64_t{256} << 20);
  ~UploadStaging();
  UploadStaging(const UploadStaging&) = delete;
  UploadStaging& operator=(const UploadStaging&) = delete;

  // Starts a call that will write about `total_bytes`: waits for the previous re-map and
  // grows the staging buffer (up to max_bytes) if it is smaller.
  Status begin(uint64_t total_bytes);
  // Queues `bytes` of host data for dst at dst_offset (multiple of 4; bytes rounded up to
  // 4 with zero padding as Buffer::write does). Lands before any later submit once flush()
  // has run; pieces that went through Buffer::write land at once.
  Status write(Buffer& dst, const void* data, uint64_t bytes, uint64_t dst_offset = 0);
  // Submits the copies queued since begin() and starts re-mapping the staging buffer.
  Status flush();

  uint64_t capacity() const { return capacity_; }
  // Bytes of the last call that went through the staging buffer / through Buffer::write.
  uint64_t staged_bytes() const { return cursor_; }
  uint64_t direct_bytes() const { return direct_bytes_; }

 private:
  struct Copy {
    WGPUBuffer dst;
    uint64_t dst_offset;
    uint64_t src_offset;
    uint64_t bytes;
  };
  struct MapReply;
  Status wait_mapped();

  std::shared_ptr<Device> device_;
  uint64_t max_bytes_;
  BufferHandle staging_;
  uint64_t capacity_ = 0;
  uint8_t* mapped_ = nullptr;       // the whole staging buffer while mapped, else null
  std::unique_ptr<MapReply> map_;   // a re-map in flight (its future and reply), else null
  uint64_t cursor_ = 0;
  uint64_t direct_bytes_ = 0;
  std::vector<Copy> copies_;
};

}  // namespace wick::gpu
