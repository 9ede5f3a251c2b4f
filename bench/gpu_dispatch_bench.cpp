// gpu/ overheads on whatever adapter Device::create() picks: device creation, buffer and
// pipeline creation, per-submit and per-dispatch cost, upload/readback bandwidth, and a
// y = a*x + b kernel timed by GPU timestamps.
//
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json build/wick_gpu_bench
//
// On SwiftShader every number is CPU time; measure kernels on a real GPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/command.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"

using namespace wick;
using namespace wick::gpu;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kAxpb = R"(
override wg_size: u32 = 256;
struct Params { n: u32, a: f32, b: f32, _pad: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * (groups.x * wg_size);
  if (i < params.n) { y[i] = params.a * x[i] + params.b; }
}
)";

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Median of `reps` runs of fn, in ms.
double median_ms(int reps, const std::function<bool()>& fn) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    if (!fn()) return -1;
    t.push_back(ms_since(start));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

bool fail(const Status& s) {
  std::fprintf(stderr, "error: %s\n", s.to_string().c_str());
  return false;
}

struct Axpb {
  Buffer x, y, params;
};

Result<Axpb> make_axpb(const std::shared_ptr<Device>& device, uint32_t n) {
  Axpb a;
  WICK_ASSIGN_OR_RETURN(a.x, Buffer::create_storage(device, uint64_t{n} * 4, "x"));
  WICK_ASSIGN_OR_RETURN(a.y, Buffer::create_storage(device, uint64_t{n} * 4, "y"));
  WICK_ASSIGN_OR_RETURN(a.params, Buffer::create_uniform(device, 16, "params"));
  struct { uint32_t n; float a, b; uint32_t pad; } p{n, 2.0f, 1.0f, 0};
  WICK_RETURN_IF_ERROR(a.params.write(&p, sizeof p));
  return a;
}

Dispatch dispatch_of(std::shared_ptr<const ComputePipeline> pipeline, const Axpb& a, uint32_t groups) {
  Dispatch d;
  d.pipeline = std::move(pipeline);
  d.bindings = {{.binding = 0, .buffer = &a.x}, {.binding = 1, .buffer = &a.y},
                {.binding = 2, .buffer = &a.params}};
  d.x = groups;
  return d;
}

}  // namespace

int main() {
  auto t0 = Clock::now();
  auto created = Device::create();
  if (!created.ok()) return fail(created.status()), 1;
  std::shared_ptr<Device> device = created.value();
  std::printf("adapter: %s\n", device->adapter_info().summary().c_str());
  std::printf("device create:              %8.2f ms\n", ms_since(t0));

  double buf_ms = median_ms(50, [&] { return Buffer::create_storage(device, 1 << 20, "b").ok(); });
  std::printf("buffer create (1 MiB):      %8.3f ms\n", buf_ms);

  PipelineCache cache(device);
  auto t1 = Clock::now();
  auto pipeline = cache.get(PipelineKey("axpb").set("wg_size", 256), kAxpb);
  if (!pipeline.ok()) return fail(pipeline.status()), 1;
  std::printf("pipeline compile (first):   %8.2f ms\n", ms_since(t1));
  double hit_us = 1000 * median_ms(1000, [&] {
    return cache.get(PipelineKey("axpb").set("wg_size", 256), kAxpb).ok();
  });
  std::printf("pipeline cache hit:         %8.3f us\n", hit_us);

  // Per-submit and per-dispatch overhead: tiny dispatches (one 256-thread workgroup each).
  auto small = make_axpb(device, 256);
  if (!small.ok()) return fail(small.status()), 1;
  for (int count : {1, 10, 100, 1000}) {
    CommandList list(device);
    for (int i = 0; i < count; ++i) {
      if (!list.add(dispatch_of(pipeline.value(), small.value(), 1)).ok()) return 1;
    }
    double ms = median_ms(15, [&] { return list.submit().ok(); });
    std::printf("submit+wait, %4d dispatches: %8.3f ms  (%7.1f us/dispatch)\n", count, ms,
                1000 * ms / count);
  }
  {
    CommandList list(device);
    auto t = Clock::now();
    for (int i = 0; i < 100; ++i) {
      if (!list.add(dispatch_of(pipeline.value(), small.value(), 1)).ok()) return 1;
    }
    std::printf("record dispatch (bind group): %6.1f us each\n", 10 * ms_since(t));
  }

  // Upload / readback bandwidth.
  for (uint32_t mib : {4u, 64u}) {
    const size_t bytes = size_t{mib} << 20;
    auto b = Buffer::create_storage(device, bytes, "bw");
    if (!b.ok()) return fail(b.status()), 1;
    std::vector<uint8_t> host(bytes, 1);
    double w = median_ms(5, [&] { return b.value().write(host.data(), bytes).ok() && device->wait_idle().ok(); });
    double r = median_ms(5, [&] { return b.value().read(host.data(), bytes).ok(); });
    std::printf("write %2u MiB: %7.2f ms (%6.2f GB/s)   read: %7.2f ms (%6.2f GB/s)\n", mib, w,
                bytes / w / 1e6, r, bytes / r / 1e6);
  }

  // A bandwidth-bound kernel, timed on the GPU.
  for (uint32_t n : {1u << 20, 1u << 24}) {
    auto a = make_axpb(device, n);
    if (!a.ok()) return fail(a.status()), 1;
    CommandList list(device);
    // More than maxComputeWorkgroupsPerDimension groups fold into a 2-D grid.
    const uint32_t groups = n / 256;
    const uint32_t max = device->limits().max_compute_workgroups_per_dimension;
    Dispatch d = dispatch_of(pipeline.value(), a.value(), groups);
    if (groups > max) {
      d.x = 1u << 15;
      d.y = (groups + d.x - 1) / d.x;
    }
    auto added = list.add(d);
    if (!added.ok()) return fail(added.status()), 1;
    SubmitOptions timed;
    timed.timestamps = true;
    std::vector<double> gpu, host;
    for (int i = 0; i < 7; ++i) {
      auto s = list.submit(timed);
      if (!s.ok()) return fail(s.status()), 1;
      if (s.value().has_gpu_times) gpu.push_back(s.value().gpu_total_ns() / 1e6);
      host.push_back(s.value().total_ns / 1e6);
    }
    std::sort(gpu.begin(), gpu.end());
    std::sort(host.begin(), host.end());
    double g = gpu.empty() ? -1 : gpu[gpu.size() / 2];
    std::printf("axpb n=%8u: gpu %8.3f ms (%6.2f GB/s), host submit+wait %8.3f ms\n", n, g,
                g > 0 ? 8.0 * n / g / 1e6 : 0.0, host[host.size() / 2]);
  }
  return 0;
}
