// The WebGPU delegate, registered under ExecuTorch's Vulkan backend id "VulkanBackend"
// so that programs lowered with VulkanPartitioner run on it unchanged.
#pragma once

#include <cstdio>
#include <memory>
#include <vector>

#include "core/status.h"
#include "runtime/profile_table.h"

namespace wick::gpu {
class Device;
}

namespace wick::webgpu {

struct BackendOptions {
  bool profile = false;  // record per-dispatch GPU times (timestamp queries)
  bool alias_views = true;  // GraphOptions::alias_views (off: every view is a copy; for tests)
  // GraphOptions::f16_weights: linear weights stored as f16 (half their memory), f32 math.
  // `wick run/bench --f16`; WICK_F16=1 turns it on too.
  bool f16_weights = false;
};

// Creates the device (or reuses a healthy one) and registers the backend. Fails with a
// clear error when no WebGPU adapter exists.
Status register_webgpu_backend(const BackendOptions& options = {});
// The device the registered backend uses now (null before registration). A lost device
// is replaced at the next method load.
std::shared_ptr<gpu::Device> backend_device();
// Per-dispatch timings of the registered backend's executions with profiling on since
// the last call (then cleared). The numbers live in the backend, not in the process.
void print_last_profile(std::FILE* out);
// The same rows (with FLOPs where counted), taken (cleared) for the caller: `wick run
// --profile-runs` keeps one list per call and prints their medians with profile_words().
std::vector<ProfileRow> take_last_profile_rows();
const ProfileWords& profile_words();
// Host and GPU time of one delegate call, by phase, for `wick run --profile`'s host rows.
struct DelegateCallTimes {
  size_t dispatches = 0;
  double upload_ms = 0;    // inputs converted and handed to the queue
  double prepare_ms = 0;   // the ops' per-execution steps (shapes, params)
  double encode_ms = 0;    // the command buffer recorded
  double submit_ms = 0;    // wgpuQueueSubmit
  size_t submits = 0;      // command buffers (the GPU starts on the first while the rest are encoded)
  double wait_ms = 0;      // from the last submit until the GPU was done
  double download_ms = 0;  // outputs mapped, copied and converted
  double gpu_ms = 0;       // sum of the dispatches' GPU times (timestamps; 0 without them)
  uint64_t upload_bytes = 0, download_bytes = 0;
};
// The registered backend's delegate calls since the last take, in call order; recorded
// only with BackendOptions::profile.
std::vector<DelegateCallTimes> take_delegate_call_times();
// Forgets the registered backend's summed host times of its delegate calls (`wick bench`
// calls it after the warm-up, so the means it prints cover the timed calls only).
void reset_call_totals();
// Dispatch count and memory plan of the graphs the registered backend built (`wick bench`).
void print_last_graph_summary(std::FILE* out);
// BackendOptions::f16_weights, or WICK_F16 set to anything but "" or "0".
bool f16_weights_requested(const BackendOptions& options);

}  // namespace wick::webgpu
