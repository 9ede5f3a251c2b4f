#include "gpu/buffer.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "gpu/strings.h"
#include "gpu/object_counts.h"

namespace wick::gpu {

namespace {

uint64_t round_up4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

WGPUBufferUsage to_wgpu(BufferUsage usage) {
  WGPUBufferUsage out = WGPUBufferUsage_None;
  if (has_usage(usage, BufferUsage::kStorage)) out |= WGPUBufferUsage_Storage;
  if (has_usage(usage, BufferUsage::kUniform)) out |= WGPUBufferUsage_Uniform;
  if (has_usage(usage, BufferUsage::kCopySrc)) out |= WGPUBufferUsage_CopySrc;
  if (has_usage(usage, BufferUsage::kCopyDst)) out |= WGPUBufferUsage_CopyDst;
  if (has_usage(usage, BufferUsage::kMapRead)) out |= WGPUBufferUsage_MapRead;
  if (has_usage(usage, BufferUsage::kMapWrite)) out |= WGPUBufferUsage_MapWrite;
  if (has_usage(usage, BufferUsage::kIndirect)) out |= WGPUBufferUsage_Indirect;
  if (has_usage(usage, BufferUsage::kQueryResolve)) out |= WGPUBufferUsage_QueryResolve;
  return out;
}

std::string bytes_text(uint64_t n) {
  if (n >= (uint64_t{1} << 30) && n % (uint64_t{1} << 30) == 0) {
    return std::to_string(n >> 30) + " GiB";
  }
  if (n >= (uint64_t{1} << 20) && n % (uint64_t{1} << 20) == 0) {
    return std::to_string(n >> 20) + " MiB";
  }
  return std::to_string(n) + " bytes";
}

}  // namespace

Result<Buffer> Buffer::create(std::shared_ptr<Device> device, uint64_t size, BufferUsage usage,
                              std::string_view label) {
  const std::string what = "buffer '" + std::string(label) + "'";
  if (!device) return make_error(ErrorCode::kInvalidArgument, what + ": no device");
  WICK_RETURN_IF_ERROR(device->check().with_context(what));
  const uint64_t allocated = size == 0 ? 4 : round_up4(size);
  if (allocated > device->limits().max_buffer_size) {
    return make_error(ErrorCode::kOutOfResources,
                      what + ": " + bytes_text(size) + " exceeds the device's maxBufferSize (" +
                          bytes_text(device->limits().max_buffer_size) + ")");
  }

  WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
  desc.label = to_wgpu(label);
  desc.usage = to_wgpu(usage);
  desc.size = allocated;
  device->push_error_scope();
  BufferHandle handle(wgpuDeviceCreateBuffer(device->handle(), &desc));
  count_buffer_created();
  WICK_RETURN_IF_ERROR(device->pop_error_scope("create " + what));
  if (!handle) return make_error(ErrorCode::kOutOfResources, what + ": creation failed");

  Buffer buffer;
  buffer.device_ = std::move(device);
  buffer.buffer_ = std::move(handle);
  buffer.size_ = size;
  buffer.allocated_size_ = allocated;
  buffer.usage_ = usage;
  buffer.label_ = std::string(label);
  return buffer;
}

Result<Buffer> Buffer::create_storage(std::shared_ptr<Device> device, uint64_t size,
                                      std::string_view label) {
  return create(std::move(device), size,
                BufferUsage::kStorage | BufferUsage::kCopySrc | BufferUsage::kCopyDst, label);
}

Result<Buffer> Buffer::create_uniform(std::shared_ptr<Device> device, uint64_t size,
                                      std::string_view label) {
  return create(std::move(device), size, BufferUsage::kUniform | BufferUsage::kCopyDst, label);
}

Result<Buffer> Buffer::view(const Buffer& parent, uint64_t offset, uint64_t size, std::string_view label) {
  const std::string what = "view '" + std::string(label) + "' of buffer '" + parent.label_ + "'";
  if (!parent.buffer_) return make_error(ErrorCode::kInvalidArgument, what + ": empty parent");
  const uint64_t allocated = size == 0 ? 4 : round_up4(size);
  if (offset % 4 != 0 || offset > parent.allocated_size_ || allocated > parent.allocated_size_ - offset)
    return make_error(ErrorCode::kInvalidArgument, what + ": range [" + std::to_string(offset) + ", " +
                                                       std::to_string(offset + allocated) + ") outside its " +
                                                       std::to_string(parent.allocated_size_) + " bytes or unaligned");
  wgpuBufferAddRef(parent.buffer_.get());
  Buffer v;
  v.device_ = parent.device_;
  v.buffer_ = BufferHandle(parent.buffer_.get());
  v.size_ = size;
  v.allocated_size_ = allocated;
  v.offset_ = parent.offset_ + offset;
  v.view_ = true;
  v.usage_ = parent.usage_;
  v.label_ = std::string(label);
  return v;
}

Status Buffer::check_range(std::string_view what, uint64_t bytes, uint64_t offset) const {
  if (!buffer_) {
    return make_error(ErrorCode::kInvalidArgument, std::string(what) + " of an empty Buffer");
  }
  if (offset > size_ || bytes > size_ - offset) {
    return make_error(ErrorCode::kInvalidArgument,
                      std::string(what) + " buffer '" + label_ + "': range [" +
                          std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                          ") outside its " + std::to_string(size_) + " bytes");
  }
  return device_->check().with_context(std::string(what) + " buffer '" + label_ + "'");
}

Status Buffer::write(const void* data, uint64_t bytes, uint64_t offset) {
  WICK_RETURN_IF_ERROR(check_range("write", bytes, offset));
  if (!has_usage(usage_, BufferUsage::kCopyDst)) {
    return make_error(ErrorCode::kInvalidArgument,
                      "write buffer '" + label_ + "': created without CopyDst usage");
  }
  if (offset % 4 != 0) {
    return make_error(ErrorCode::kInvalidArgument, "write buffer '" + label_ + "': offset " +
                                                       std::to_string(offset) +
                                                       " is not a multiple of 4");
  }
  if (bytes == 0) return Status::ok_status();
  const uint64_t aligned = bytes & ~uint64_t{3};
  if (aligned != bytes && offset + bytes != size_) {
    return make_error(ErrorCode::kInvalidArgument,
                      "write buffer '" + label_ + "': " + std::to_string(bytes) +
                          " bytes is not a multiple of 4 and does not end the buffer");
  }
  offset += offset_;
  if (aligned > 0) wgpuQueueWriteBuffer(device_->queue(), buffer_.get(), offset, data, aligned);
  if (aligned != bytes) {
    uint8_t tail[4] = {0, 0, 0, 0};
    std::memcpy(tail, static_cast<const uint8_t*>(data) + aligned, bytes - aligned);
    wgpuQueueWriteBuffer(device_->queue(), buffer_.get(), offset + aligned, tail, 4);
  }
  return device_->check().with_context("write buffer '" + label_ + "'");
}

Status Buffer::read(void* dst, uint64_t bytes, uint64_t offset) const {
  WICK_RETURN_IF_ERROR(check_range("read", bytes, offset));
  if (bytes == 0) return Status::ok_status();
  const std::string what = "read buffer '" + label_ + "'";

  // Map offsets must be multiples of 8 and sizes of 4; copies work in 4-byte units.
  if (has_usage(usage_, BufferUsage::kMapRead)) {
    offset += offset_;
    const uint64_t start = offset & ~uint64_t{7};
    const uint64_t end = round_up4(offset + bytes);
    return device_->read_mapped(buffer_.get(), start, end - start, dst, offset - start, bytes, what);
  }
  if (!has_usage(usage_, BufferUsage::kCopySrc)) {
    return make_error(ErrorCode::kInvalidArgument,
                      what + ": created without CopySrc or MapRead usage");
  }
  offset += offset_;
  const uint64_t start = offset & ~uint64_t{3};
  const uint64_t end = round_up4(offset + bytes);
  const uint64_t span = end - start;

  Device& dev = *device_;
  if (dev.readback_size_ < span) {
    uint64_t grown = std::max<uint64_t>(span, std::min<uint64_t>(2 * dev.readback_size_,
                                                                 dev.limits().max_buffer_size));
    grown = std::max<uint64_t>(grown, 64 * 1024);
    WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
    desc.label = to_wgpu("wick readback");
    desc.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    desc.size = std::min(grown, dev.limits().max_buffer_size);
    dev.readback_.reset();
    dev.readback_size_ = 0;
    dev.push_error_scope();
    BufferHandle staging(wgpuDeviceCreateBuffer(dev.handle(), &desc));
    count_buffer_created();
    WICK_RETURN_IF_ERROR(dev.pop_error_scope(what + ": staging buffer"));
    dev.readback_ = std::move(staging);
    dev.readback_size_ = desc.size;
  }
  WGPUBuffer staging = dev.readback_.get();

  CommandEncoderHandle encoder(wgpuDeviceCreateCommandEncoder(device_->handle(), nullptr));
  wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), buffer_.get(), start, staging, 0, span);
  CommandBufferHandle commands(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  wgpuQueueSubmit(device_->queue(), 1, &raw);
  return device_->read_mapped(staging, 0, span, dst, offset - start, bytes, what);
}

}  // namespace wick::gpu
