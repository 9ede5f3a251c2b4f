#include "gpu/upload_staging.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "gpu/host_copy.h"
#include "gpu/object_counts.h"
#include "gpu/strings.h"

namespace wick::gpu {

namespace {
uint64_t round_up4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }
}  // namespace

// Filled by the map callback (WaitAnyOnly: it runs inside Device::wait on this thread).
struct UploadStaging::MapReply {
  WGPUFuture future{};
  WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
  std::string message;
};

UploadStaging::UploadStaging(std::shared_ptr<Device> device, uint64_t max_bytes)
    : device_(std::move(device)), max_bytes_(max_bytes & ~uint64_t{3}) {}

UploadStaging::~UploadStaging() {
  // A re-map in flight writes into *map_ when waited on: finish it before map_ goes.
  if (map_) (void)wait_mapped();
}

Status UploadStaging::wait_mapped() {
  if (!map_) return Status::ok_status();
#ifdef __EMSCRIPTEN__
  return Status::ok_status();  // never mapped there (begin() stages nothing)
#else
  std::unique_ptr<MapReply> reply = std::move(map_);
  WICK_RETURN_IF_ERROR(device_->wait(reply->future, "upload staging: map"));
  if (reply->status != WGPUMapAsyncStatus_Success)
    return make_error(ErrorCode::kDeviceLost, "upload staging: map failed: " + reply->message);
  mapped_ = static_cast<uint8_t*>(wgpuBufferGetMappedRange(staging_.get(), 0, capacity_));
  if (mapped_ == nullptr) return make_error(ErrorCode::kInternal, "upload staging: mapped range unavailable");
  return Status::ok_status();
#endif
}

Status UploadStaging::begin(uint64_t total_bytes) {
  cursor_ = 0;
  direct_bytes_ = 0;
  copies_.clear();
#ifdef __EMSCRIPTEN__
  (void)total_bytes;
  return Status::ok_status();
#else
  WICK_RETURN_IF_ERROR(wait_mapped());
  const uint64_t want = std::min(round_up4(total_bytes), max_bytes_);
  if (want <= capacity_ || want == 0) return Status::ok_status();
  // Grow: a new buffer mapped at creation (no wait); the old one goes with its mapping.
  mapped_ = nullptr;
  staging_.reset();
  capacity_ = 0;
  if (want > device_->limits().max_buffer_size) return Status::ok_status();  // all direct
  WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
  desc.label = to_wgpu("wick upload staging");
  desc.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  desc.size = want;
  desc.mappedAtCreation = true;
  device_->push_error_scope();
  BufferHandle buffer(wgpuDeviceCreateBuffer(device_->handle(), &desc));
  count_buffer_created();
  WICK_RETURN_IF_ERROR(device_->pop_error_scope("upload staging: create"));
  if (!buffer) return make_error(ErrorCode::kOutOfResources, "upload staging: creation failed");
  void* mapped = wgpuBufferGetMappedRange(buffer.get(), 0, want);
  if (mapped == nullptr) return make_error(ErrorCode::kInternal, "upload staging: mapped range unavailable");
  staging_ = std::move(buffer);
  capacity_ = want;
  mapped_ = static_cast<uint8_t*>(mapped);
  return Status::ok_status();
#endif
}

Status UploadStaging::write(Buffer& dst, const void* data, uint64_t bytes, uint64_t dst_offset) {
  const uint64_t padded = round_up4(bytes);
  const bool fits = mapped_ != nullptr && bytes > 0 && padded <= capacity_ - cursor_ && dst_offset % 4 == 0 &&
                    dst_offset <= dst.size() && bytes <= dst.size() - dst_offset &&
                    dst_offset + padded <= dst.allocated_size() && has_usage(dst.usage(), BufferUsage::kCopyDst);
  if (!fits) {
    // Buffer::write checks the range and usage and gives the error, if any.
    direct_bytes_ += bytes;
    return dst.write(data, bytes, dst_offset);
  }
  host_copy(mapped_ + cursor_, data, bytes);
  if (padded != bytes) std::memset(mapped_ + cursor_ + bytes, 0, padded - bytes);
  copies_.push_back(Copy{dst.handle(), dst.offset() + dst_offset, cursor_, padded});
  cursor_ += padded;
  return Status::ok_status();
}

Status UploadStaging::flush() {
  if (mapped_ == nullptr || copies_.empty()) return Status::ok_status();
#ifdef __EMSCRIPTEN__
  return Status::ok_status();  // never mapped there: every write went through Buffer::write
#else
  wgpuBufferUnmap(staging_.get());
  mapped_ = nullptr;
  CommandEncoderHandle encoder(wgpuDeviceCreateCommandEncoder(device_->handle(), nullptr));
  for (const Copy& c : copies_)
    wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), staging_.get(), c.src_offset, c.dst, c.dst_offset, c.bytes);
  CommandBufferHandle commands(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  wgpuQueueSubmit(device_->queue(), 1, &raw);
  copies_.clear();
  // Re-map now; it completes once the copies have run, and begin() waits for it.
  map_ = std::make_unique<MapReply>();
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* r, void*) {
    static_cast<MapReply*>(r)->status = status;
    static_cast<MapReply*>(r)->message = from_wgpu(message);
  };
  cb.userdata1 = map_.get();
  map_->future = wgpuBufferMapAsync(staging_.get(), WGPUMapMode_Write, 0, capacity_, cb);
  return device_->check().with_context("upload staging: submit");
#endif
}

}  // namespace wick::gpu
