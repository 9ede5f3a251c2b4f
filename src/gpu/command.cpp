#include "gpu/command.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "gpu/strings.h"
#include "gpu/object_counts.h"

namespace wick::gpu {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_since(Clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

}  // namespace

struct CommandList::Command {
  enum class Kind { kDispatch, kCopy } kind = Kind::kDispatch;
  // kDispatch
  std::shared_ptr<const ComputePipeline> pipeline;
  BindGroupHandle bind_group;
  uint32_t x = 1, y = 1, z = 1;
  std::string label;
  // kCopy (holds references so the buffers outlive the list's use of them)
  BufferHandle src, dst;
  uint64_t src_offset = 0, dst_offset = 0, bytes = 0;
  uint64_t src_size = 0, dst_size = 0;  // allocated sizes, for set_copy_bytes
};

// WebGPU's largest query set: longer lists (over 2048 timed dispatches) use several.
constexpr uint32_t kQueriesPerSet = 4096;

struct CommandList::Timestamps {
  uint32_t capacity = 0;  // queries (2 per dispatch)
  std::vector<QuerySetHandle> query_sets;  // kQueriesPerSet each, the last one the rest
  BufferHandle resolve;   // QueryResolve | CopySrc
  BufferHandle readback;  // MapRead | CopyDst
};

uint64_t SubmitStats::gpu_total_ns() const {
  uint64_t total = 0;
  for (uint64_t ns : gpu_ns) total += ns;
  return total;
}

CommandList::CommandList(std::shared_ptr<Device> device) : device_(std::move(device)) {}
CommandList::~CommandList() = default;
CommandList::CommandList(CommandList&&) noexcept = default;
CommandList& CommandList::operator=(CommandList&&) noexcept = default;

size_t CommandList::size() const { return commands_.size(); }
bool CommandList::active(size_t index) const {
  if (index >= commands_.size()) return false;
  const Command& c = commands_[index];
  return c.kind == Command::Kind::kDispatch && c.x && c.y && c.z;
}
void CommandList::clear() { commands_.clear(); }

Status CommandList::check_workgroups(const std::string& label, uint32_t x, uint32_t y,
                                     uint32_t z) const {
  const uint32_t max = device_->limits().max_compute_workgroups_per_dimension;
  if (x > max || y > max || z > max) {
    return make_error(ErrorCode::kInvalidArgument,
                      "dispatch '" + label + "': workgroup count (" + std::to_string(x) + ", " +
                          std::to_string(y) + ", " + std::to_string(z) +
                          ") exceeds maxComputeWorkgroupsPerDimension " + std::to_string(max));
  }
  return Status::ok_status();
}

Result<size_t> CommandList::add(Dispatch dispatch) {
  if (!dispatch.pipeline) {
    return make_error(ErrorCode::kInvalidArgument,
                      "dispatch '" + dispatch.label + "': no pipeline");
  }
  Command cmd;
  cmd.kind = Command::Kind::kDispatch;
  cmd.label = dispatch.label.empty() ? dispatch.pipeline->key().shader : dispatch.label;
  const std::string what = "dispatch " + std::to_string(commands_.size()) + " '" + cmd.label + "'";
  WICK_RETURN_IF_ERROR(device_->check().with_context(what));
  WICK_RETURN_IF_ERROR(check_workgroups(cmd.label, dispatch.x, dispatch.y, dispatch.z));

  std::vector<WGPUBindGroupEntry> entries;
  entries.reserve(dispatch.bindings.size());
  for (const BufferBinding& b : dispatch.bindings) {
    if (b.buffer == nullptr || !b.buffer->valid()) {
      return make_error(ErrorCode::kInvalidArgument,
                        what + ": binding " + std::to_string(b.binding) + " has no buffer");
    }
    WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
    e.binding = b.binding;
    e.buffer = b.buffer->handle();
    // A view (Buffer::view) binds its own range of the shared WebGPU buffer.
    e.offset = b.buffer->offset() + b.offset;
    if (b.size != kWholeBuffer) e.size = b.size;
    else if (b.buffer->is_view()) e.size = b.offset < b.buffer->allocated_size() ? b.buffer->allocated_size() - b.offset : 0;
    else e.size = WGPU_WHOLE_SIZE;
    entries.push_back(e);
  }
  WGPUBindGroupDescriptor desc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  desc.label = to_wgpu(cmd.label);
  desc.layout = dispatch.pipeline->bind_group_layout();
  desc.entryCount = entries.size();
  desc.entries = entries.data();
  device_->push_error_scope();
  cmd.bind_group = BindGroupHandle(wgpuDeviceCreateBindGroup(device_->handle(), &desc));
  count_bind_group_created();
  WICK_RETURN_IF_ERROR(device_->pop_error_scope(what + ": bind group"));

  cmd.pipeline = std::move(dispatch.pipeline);
  cmd.x = dispatch.x;
  cmd.y = dispatch.y;
  cmd.z = dispatch.z;
  commands_.push_back(std::move(cmd));
  return commands_.size() - 1;
}

Status CommandList::add_copy(const Buffer& src, uint64_t src_offset, const Buffer& dst,
                             uint64_t dst_offset, uint64_t bytes) {
  const std::string what = "copy '" + src.label() + "' -> '" + dst.label() + "'";
  if (!src.valid() || !dst.valid()) {
    return make_error(ErrorCode::kInvalidArgument, what + ": empty buffer");
  }
  if (src_offset % 4 || dst_offset % 4 || bytes % 4) {
    return make_error(ErrorCode::kInvalidArgument,
                      what + ": offsets and size must be multiples of 4");
  }
  if (src_offset + bytes > src.allocated_size() || dst_offset + bytes > dst.allocated_size()) {
    return make_error(ErrorCode::kInvalidArgument, what + ": " + std::to_string(bytes) +
                                                       " bytes out of range");
  }
  if (!has_usage(src.usage(), BufferUsage::kCopySrc) ||
      !has_usage(dst.usage(), BufferUsage::kCopyDst)) {
    return make_error(ErrorCode::kInvalidArgument, what + ": needs CopySrc -> CopyDst usage");
  }
  Command cmd;
  cmd.kind = Command::Kind::kCopy;
  cmd.label = what;
  cmd.src = BufferHandle(src.handle());
  wgpuBufferAddRef(src.handle());
  cmd.dst = BufferHandle(dst.handle());
  wgpuBufferAddRef(dst.handle());
  cmd.src_offset = src.offset() + src_offset;  // views copy within their range
  cmd.dst_offset = dst.offset() + dst_offset;
  cmd.bytes = bytes;
  cmd.src_size = src.offset() + src.allocated_size();
  cmd.dst_size = dst.offset() + dst.allocated_size();
  commands_.push_back(std::move(cmd));
  return Status::ok_status();
}

Status CommandList::set_workgroups(size_t index, uint32_t x, uint32_t y, uint32_t z) {
  if (index >= commands_.size() || commands_[index].kind != Command::Kind::kDispatch) {
    return make_error(ErrorCode::kInvalidArgument,
                      "set_workgroups: no dispatch at index " + std::to_string(index));
  }
  Command& cmd = commands_[index];
  WICK_RETURN_IF_ERROR(check_workgroups(cmd.label, x, y, z));
  cmd.x = x;
  cmd.y = y;
  cmd.z = z;
  return Status::ok_status();
}

Status CommandList::set_copy_bytes(size_t index, uint64_t bytes) {
  if (index >= commands_.size() || commands_[index].kind != Command::Kind::kCopy) {
    return make_error(ErrorCode::kInvalidArgument, "set_copy_bytes: no copy at index " + std::to_string(index));
  }
  Command& cmd = commands_[index];
  if (bytes % 4 || cmd.src_offset + bytes > cmd.src_size || cmd.dst_offset + bytes > cmd.dst_size) {
    return make_error(ErrorCode::kInvalidArgument, "set_copy_bytes: " + std::to_string(bytes) +
                                                       " bytes do not fit the copy at index " + std::to_string(index));
  }
  cmd.bytes = bytes;
  return Status::ok_status();
}

Result<SubmitStats> CommandList::submit(const SubmitOptions& options) {
  const Clock::time_point start = Clock::now();
  WICK_RETURN_IF_ERROR(device_->check().with_context("submit"));
  SubmitStats stats;

  size_t active = 0;
  for (const Command& c : commands_) {
    if (c.kind == Command::Kind::kDispatch && c.x && c.y && c.z) ++active;
  }
  const bool timed = options.timestamps && active > 0 &&
                     device_->has_feature(Feature::kTimestampQuery);
  // Timestamps inside passes: one at each pass's start and one after each dispatch. Passes
  // are at most one per dispatch, so 2 * active queries cover both ways.
  const bool inside = timed && options.timestamps_inside_pass &&
                      device_->has_feature(Feature::kTimestampInsidePasses);
  if (timed) {
    const uint32_t needed = static_cast<uint32_t>(2 * active);
    if (!timestamps_) timestamps_ = std::make_unique<Timestamps>();
    if (timestamps_->capacity < needed) {
      Timestamps& ts = *timestamps_;
      WGPUQuerySetDescriptor qdesc = WGPU_QUERY_SET_DESCRIPTOR_INIT;
      qdesc.label = to_wgpu("wick timestamps");
      qdesc.type = WGPUQueryType_Timestamp;
      WGPUBufferDescriptor resolve = WGPU_BUFFER_DESCRIPTOR_INIT;
      resolve.label = to_wgpu("wick timestamp resolve");
      resolve.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
      resolve.size = uint64_t{8} * needed;
      WGPUBufferDescriptor readback = resolve;
      readback.label = to_wgpu("wick timestamp readback");
      readback.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
      device_->push_error_scope();
      ts.query_sets.clear();
      for (uint32_t first = 0; first < needed; first += kQueriesPerSet) {
        qdesc.count = std::min(kQueriesPerSet, needed - first);
        ts.query_sets.emplace_back(wgpuDeviceCreateQuerySet(device_->handle(), &qdesc));
      }
      ts.resolve = BufferHandle(wgpuDeviceCreateBuffer(device_->handle(), &resolve));
      ts.readback = BufferHandle(wgpuDeviceCreateBuffer(device_->handle(), &readback));
      count_buffer_created();
      count_buffer_created();
      Status created = device_->pop_error_scope("timestamp query set");
      if (!created.ok()) {
        timestamps_.reset();
        return created;
      }
      ts.capacity = needed;
    }
  }

  // --- encode and submit, in chunks when asked ---
  device_->push_error_scope();
  CommandEncoderHandle encoder;
  ComputePassHandle pass;
  WGPUComputePipeline bound_pipeline = nullptr;
  Clock::time_point encode_start = Clock::now();
  auto end_pass = [&] {
    if (pass) {
      wgpuComputePassEncoderEnd(pass.get());
      pass.reset();
      bound_pipeline = nullptr;
    }
  };
  // Finishes the open command buffer and submits it; the next command starts a new one.
  auto flush = [&] {
    end_pass();
    CommandBufferHandle commands(wgpuCommandEncoderFinish(encoder.get(), nullptr));
    encoder.reset();
    stats.encode_ns += ns_since(encode_start);
    const Clock::time_point submit_start = Clock::now();
    WGPUCommandBuffer raw = commands.get();
    wgpuQueueSubmit(device_->queue(), 1, &raw);
    stats.submit_ns += ns_since(submit_start);
    ++stats.submits;
    encode_start = Clock::now();
  };
  auto open = [&] {
    if (!encoder) encoder = CommandEncoderHandle(wgpuDeviceCreateCommandEncoder(device_->handle(), nullptr));
  };
  uint64_t chunk = options.first_chunk, in_chunk = 0;  // dispatches per command buffer, and in the open one
  uint32_t query = 0;
  // Inside passes: the query written last (the pass's start or the dispatch before), and per
  // timed dispatch the pair of queries its time lies between.
  uint32_t last_query = 0;
  std::vector<std::pair<uint32_t, uint32_t>> spans;
#ifndef __EMSCRIPTEN__
  auto write_timestamp = [&] {
    wgpuComputePassEncoderWriteTimestamp(pass.get(), timestamps_->query_sets[query / kQueriesPerSet].get(),
                                         query % kQueriesPerSet);
    last_query = query++;
  };
#else
  auto write_timestamp = [] {};  // never inside: the browser bridge has no such feature
#endif
  for (size_t index = 0; index < commands_.size(); ++index) {
    const Command& c = commands_[index];
    if (c.kind == Command::Kind::kCopy) {
      if (c.bytes == 0) continue;
      open();
      end_pass();
      wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), c.src.get(), c.src_offset, c.dst.get(),
                                           c.dst_offset, c.bytes);
      continue;
    }
    if (!(c.x && c.y && c.z)) continue;
    if (chunk > 0 && in_chunk == chunk) {
      flush();
      chunk *= 2;
      in_chunk = 0;
    }
    open();
    WGPUPassTimestampWrites writes = WGPU_PASS_TIMESTAMP_WRITES_INIT;
    if (timed && !inside) {
      // One pass per dispatch: timestamps are written at pass boundaries.
      end_pass();
      // query is even and a set holds an even count: a pass's pair stays in one set.
      writes.querySet = timestamps_->query_sets[query / kQueriesPerSet].get();
      writes.beginningOfPassWriteIndex = query % kQueriesPerSet;
      writes.endOfPassWriteIndex = query % kQueriesPerSet + 1;
      query += 2;
    }
    if (!pass) {
      // One pass holds many dispatches: WebGPU orders storage writes between dispatches.
      WGPUComputePassDescriptor pdesc = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
      if (timed && !inside) pdesc.timestampWrites = &writes;
      pass = ComputePassHandle(wgpuCommandEncoderBeginComputePass(encoder.get(), &pdesc));
      if (inside) write_timestamp();
    }
    if (bound_pipeline != c.pipeline->handle()) {
      wgpuComputePassEncoderSetPipeline(pass.get(), c.pipeline->handle());
      bound_pipeline = c.pipeline->handle();
    }
    wgpuComputePassEncoderSetBindGroup(pass.get(), 0, c.bind_group.get(), 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass.get(), c.x, c.y, c.z);
    if (inside) {
      const uint32_t before = last_query;
      write_timestamp();
      spans.emplace_back(before, last_query);
    }
    if (timed) {
      stats.labels.push_back(c.label);
      stats.commands.push_back(static_cast<uint32_t>(index));
    }
    ++stats.dispatches;
    ++in_chunk;
  }
  open();
  end_pass();
  if (timed) {
    // The query sets outlive the command buffers: the last one resolves every chunk's.
    for (uint32_t first = 0; first < query; first += kQueriesPerSet)
      wgpuCommandEncoderResolveQuerySet(encoder.get(), timestamps_->query_sets[first / kQueriesPerSet].get(), 0,
                                        std::min(kQueriesPerSet, query - first), timestamps_->resolve.get(),
                                        uint64_t{8} * first);
    wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), timestamps_->resolve.get(), 0,
                                         timestamps_->readback.get(), 0, uint64_t{8} * query);
  }
  flush();
  WICK_RETURN_IF_ERROR(device_->pop_error_scope("submit of " + std::to_string(stats.dispatches) +
                                                " dispatches"));

  const Clock::time_point wait_start = Clock::now();
  if (options.map_for_read && !timed) {
    WICK_RETURN_IF_ERROR(device_->map_for_read(options.map_for_read, 0, options.map_size, "submit: map for reading"));
    stats.mapped = true;
  } else {
    WICK_RETURN_IF_ERROR(device_->wait_idle().with_context("submit"));
  }
  stats.wait_ns = ns_since(wait_start);

  if (timed) {
    std::vector<uint64_t> ticks(query);
    WICK_RETURN_IF_ERROR(device_->read_mapped(timestamps_->readback.get(), 0, sizeof(uint64_t) * query, ticks.data(),
                                              0, sizeof(uint64_t) * query, "read timestamps"));
    // Dawn reports timestamps in nanoseconds.
    for (const auto& [begin, end] : spans)
      stats.gpu_ns.push_back(ticks[end] > ticks[begin] ? ticks[end] - ticks[begin] : 0);
    // A pass per dispatch: some GPUs pin every begin timestamp to the start of the submit,
    // so a dispatch starts no earlier than the previous one ended.
    uint64_t previous_end = 0;
    for (uint32_t i = 0; !inside && i + 1 < query; i += 2) {
      const uint64_t begin = std::max(ticks[i], previous_end);
      const uint64_t end = ticks[i + 1];
      stats.gpu_ns.push_back(end > begin ? end - begin : 0);
      previous_end = std::max(previous_end, end);
    }
    stats.has_gpu_times = true;
    stats.gpu_times_inside_pass = inside;
  }
  stats.total_ns = ns_since(start);
  return stats;
}

}  // namespace wick::gpu
