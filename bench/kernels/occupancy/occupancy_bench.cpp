// How many workgroups does one multiprocessor run at once, by workgroup size, workgroup
// memory and live registers? v1_occupancy_probe.wgsl counts the workgroups running at the
// same time (an atomic counter in each workgroup's first invocation, and its peak) over a
// grid far larger than the GPU holds. The question behind it (bench/kernels/attention/README.md):
// the fused attention at 36 KiB of workgroup memory runs one workgroup per multiprocessor on
// the H100, whose multiprocessors have 228 KiB.
//
//   . scripts/env.sh; build/wick_kernel_bench_occupancy [--quick] [--multiprocessors N]
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct Config {
  uint32_t wg;        // invocations per workgroup
  double smem_kib;    // workgroup memory
  uint32_t nacc;      // live vec4 accumulators
};

std::vector<Config> configs() {
  std::vector<Config> c;
  for (double kib : {1., 4., 8., 12., 16., 20., 24., 28., 32., 36., 40., 44., 48.}) c.push_back({128, kib, 0});
  for (double kib : {1., 8., 16., 24., 32., 40., 48.}) c.push_back({256, kib, 0});
  for (double kib : {1., 8., 16., 24., 32.}) c.push_back({64, kib, 0});
  for (uint32_t nacc : {8u, 16u, 24u, 32u}) c.push_back({128, 1., nacc});
  for (uint32_t nacc : {16u, 32u}) c.push_back({256, 1., nacc});
  for (uint32_t nacc : {16u, 32u}) c.push_back({128, 36., nacc});
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  uint32_t mps = 132;  // H100 SXM / H200
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--multiprocessors") && i + 1 < argc) mps = static_cast<uint32_t>(std::atoi(argv[++i]));
  }
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  const uint32_t max_smem = dev->limits().max_compute_workgroup_storage_size;
  std::printf("max workgroup storage %u bytes; per-multiprocessor figures assume %u multiprocessors\n", max_smem, mps);
  gpu::PipelineCache cache(dev);
  const std::string wgsl = read_variant("occupancy", "v1_occupancy_probe.wgsl");
  // Enough workgroups for 2,048 invocations on every multiprocessor, whatever the size.
  const uint32_t iters = quick ? 16 : 2048;
  auto counters = storage(dev, std::vector<float>(4, 0.f), "counters");
  std::printf("%5s %9s %5s %7s %8s %10s\n", "wg", "smem KiB", "nacc", "peak", "per MP", "GPU us");
  for (const Config& c : configs()) {
    const uint32_t smem = static_cast<uint32_t>(c.smem_kib * 1024 / 16);
    if (smem * 16 > max_smem) continue;
    const uint32_t groups = quick ? 64 : mps * (2048 / c.wg) * 2;
    auto sink = storage(dev, std::vector<float>(size_t{groups} * c.wg * 4, 0.f), "sink");
    auto pl = take(cache.get(gpu::PipelineKey("bench_occupancy_probe")
                                 .set("WG", c.wg)
                                 .set("SMEM", smem)
                                 .set("ITERS", iters)
                                 .set("NACC", c.nacc),
                             wgsl),
                   "pipeline");
    gpu::CommandList list(dev);
    gpu::Dispatch d;
    d.pipeline = pl;
    d.bindings = {{0, &counters}, {1, &sink}};
    d.x = groups;
    take(list.add(d), "add");
    check(counters.write(std::vector<uint32_t>(4, 0).data(), 16), "clear");
    const double ms = quick ? 0 : time_list_gpu(list, 3);
    if (quick) check(list.submit().status(), "run");
    uint32_t cnt[4];
    check(counters.read(cnt, 16), "read counters");
    // Every workgroup that started also ended: a non-zero count means the probe is wrong.
    if (cnt[0] != 0) {
      std::fprintf(stderr, "error: %u workgroups still counted as running after the dispatch\n", cnt[0]);
      return 1;
    }
    std::printf("%5u %9.1f %5u %7u %8.2f %10.1f\n", c.wg, c.smem_kib, c.nacc, cnt[1], double(cnt[1]) / mps, ms * 1e3);
  }
  return 0;
}
