// A recorded list of dispatches (and buffer copies), submitted as one command buffer.
//
// Bind groups are built when a dispatch is added, so a list is recorded once and
// submitted many times; workgroup counts can be changed between submits (dynamic shapes),
// and a dispatch with a zero count is skipped.
#pragma once

#include <webgpu/webgpu.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu/handle.h"
#include "gpu/pipeline.h"

namespace wick::gpu {

inline constexpr uint64_t kWholeBuffer = UINT64_MAX;

// One @group(0) binding of a storage or uniform buffer.
struct BufferBinding {
  uint32_t binding = 0;
  const Buffer* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = kWholeBuffer;  // the rest of the buffer from offset
};

struct Dispatch {
  std::shared_ptr<const ComputePipeline> pipeline;
  std::vector<BufferBinding> bindings;
  uint32_t x = 1, y = 1, z = 1;  // workgroup counts
  std::string label;             // names it in errors and timings; default: the shader name
};

struct SubmitOptions {
  // Per-dispatch GPU time through timestamp queries, when the device has them.
  bool timestamps = false;
  // How they are taken. Where the device has Feature::kTimestampInsidePasses and this is
  // set: the passes of an untimed submit, with a timestamp at each pass's start and after
  // each dispatch; a dispatch's time runs from the end of the one before (or the pass's
  // start) to its own end, so it holds the barrier before it and its launch, and the times
  // add up to the GPU time of the same list untimed. Otherwise: one compute pass per
  // dispatch, its timestamps at the pass's boundaries (each dispatch alone, and each time
  // holds a pass's fixed cost: ~4 us a dispatch on the H100 that the untimed list doesn't pay).
  bool timestamps_inside_pass = true;
  // Overlap of host encoding with GPU execution: the first `first_chunk` dispatches are
  // encoded and submitted on their own, so the GPU starts while the rest is encoded; each
  // later command buffer holds twice as many as the one before (few submits, and the host
  // stays ahead of the GPU once it is running). 0: one command buffer for everything.
  uint32_t first_chunk = 0;
  // Where the caller reads results back through one mappable buffer (MapRead, written by
  // the list's copies): submit() maps bytes [0, map_size) of it and waits for that instead
  // of for the queue, one wait fewer before the read (a map completes only after the work
  // that wrote the buffer); the buffer is then mapped (SubmitStats::mapped) and the caller
  // unmaps it. Ignored on a timed submit, which reads its timestamps after the queue.
  WGPUBuffer map_for_read = nullptr;
  uint64_t map_size = 0;
};

struct SubmitStats {
  size_t dispatches = 0;            // dispatches encoded (zero-count ones are skipped)
  size_t submits = 0;               // command buffers submitted (SubmitOptions::first_chunk)
  uint64_t encode_ns = 0;           // host: recording the command buffers (all chunks)
  uint64_t submit_ns = 0;           // host: wgpuQueueSubmit (all chunks)
  uint64_t wait_ns = 0;             // host: from the last submit until the GPU is done (with
                                    // chunks the GPU ran during the later chunks' encoding too)
  uint64_t total_ns = 0;            // host: the whole submit() call
  bool has_gpu_times = false;       // timestamps asked for and supported
  bool gpu_times_inside_pass = false;  // taken inside the passes (SubmitOptions::timestamps_inside_pass)
  std::vector<std::string> labels;  // per encoded dispatch, parallel to gpu_ns
  std::vector<uint64_t> gpu_ns;     // per encoded dispatch, GPU nanoseconds
  std::vector<uint32_t> commands;   // per encoded dispatch, its index in the list (when timed)
  bool mapped = false;              // SubmitOptions::map_for_read was mapped (wait_ns holds the map)
  uint64_t gpu_total_ns() const;
};

class CommandList {
 public:
  explicit CommandList(std::shared_ptr<Device> device);
  ~CommandList();
  CommandList(const CommandList&) = delete;
  CommandList& operator=(const CommandList&) = delete;
  CommandList(CommandList&&) noexcept;
  CommandList& operator=(CommandList&&) noexcept;

  // Validates the dispatch and builds its bind group. Returns its index.
  Result<size_t> add(Dispatch dispatch);
  // A buffer-to-buffer copy, ordered with the dispatches. Offsets and size: multiples of 4.
  Status add_copy(const Buffer& src, uint64_t src_offset, const Buffer& dst, uint64_t dst_offset,
                  uint64_t bytes);
  // New workgroup counts for dispatch `index` (0 in any dimension skips it).
  Status set_workgroups(size_t index, uint32_t x, uint32_t y = 1, uint32_t z = 1);
  // New size of copy `index` (a multiple of 4, within both buffers; 0 skips it).
  Status set_copy_bytes(size_t index, uint64_t bytes);

  size_t size() const;
  void clear();
  // Whether dispatch `index` runs (every workgroup count non-zero).
  bool active(size_t index) const;

  // Encodes everything into one command buffer (or several, SubmitOptions::first_chunk),
  // submits it and waits for the GPU.
  Result<SubmitStats> submit(const SubmitOptions& options = {});

 private:
  struct Command;
  struct Timestamps;
  Status check_workgroups(const std::string& label, uint32_t x, uint32_t y, uint32_t z) const;

  std::shared_ptr<Device> device_;
  std::vector<Command> commands_;
  std::unique_ptr<Timestamps> timestamps_;  // query set and buffers, grown on demand
};

}  // namespace wick::gpu
