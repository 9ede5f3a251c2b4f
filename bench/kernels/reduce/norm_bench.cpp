// Row norms of few, long rows (InstanceNorm over H*W planes as MODNet exports it: 16-64
// channels of 128x128..512x512 at batch 1) and of many short rows (ViT layer norms), against
// a CPU reference in double (max |err| limit 1e-4 on outputs of unit spread), then timed
// (GPU timestamps where the device has them, else wall).
//
//   . scripts/env.sh; build/wick_kernel_bench_norm [--reps N] [--only TEXT]
//
// v3: row_norm.wgsl, one workgroup per row (three reads of the row, two tree reductions);
// v4: row_norm_stats.wgsl + row_norm_apply.wgsl, each row split into chunks of >= 2048 words
//     (~1024 workgroups in all): per-chunk mean and M2, then every chunk merges its row's
//     statistics (Chan et al.) and normalizes itself. Same chunk rule as reduce_rows.
// v5: row_norm_rows.wgsl, rows of <= 2048 words: 256 / TPR rows a workgroup, TPR threads a
//     row (~4 words a thread), the row in registers (read once), segment reductions.
#include <cmath>
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct NormParams {  // row_norm_params.inc.wgsl's Params
  uint32_t rows, inner, mode, flags;
  uint32_t groups, cpg, hw, nchunks;
  float eps;
  uint32_t chunk, pad2, pad3;
};

struct Case {
  const char* name;
  bool instance;  // per-channel affine (group norm of one channel per group), else layer norm
  uint32_t rows, inner;
};
const Case kCases[] = {
    {"instance norm [1,16,256,256]", true, 16, 256 * 256},
    {"instance norm [1,32,256,256]", true, 32, 256 * 256},
    {"instance norm [1,64,128,128]", true, 64, 128 * 128},
    {"instance norm [1,8,512,512]", true, 8, 512 * 512},
    {"instance norm odd [1,3,67,61]", true, 3, 67 * 61},
    {"layer norm DA-v2-small [1370,384]", false, 1370, 384},
    {"layer norm SAM 2.1 Hiera [65536,96]", false, 65536, 96},
};

uint32_t pick_chunks(uint64_t rows, uint64_t len) {
  if (rows == 0 || rows >= 1024 || len <= 2048) return 1;
  return static_cast<uint32_t>(std::min((1024 + rows - 1) / rows, (len + 2047) / 2048));
}

std::vector<float> cpu_reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                                 const Case& c) {
  std::vector<float> out(x.size());
  for (uint32_t r = 0; r < c.rows; ++r) {
    const float* v = x.data() + size_t{r} * c.inner;
    double m = 0, s2 = 0;
    for (uint32_t i = 0; i < c.inner; ++i) m += v[i];
    m /= c.inner;
    for (uint32_t i = 0; i < c.inner; ++i) s2 += (v[i] - m) * (v[i] - m);
    const double rstd = 1 / std::sqrt(s2 / c.inner + 1e-5);
    for (uint32_t i = 0; i < c.inner; ++i) {
      const uint32_t wi = c.instance ? r : i;
      out[size_t{r} * c.inner + i] = static_cast<float>((v[i] - m) * rstd * w[wi] + b[wi]);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  const char* only = nullptr;  // --only TEXT: the cases whose name contains TEXT
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
  }
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  gpu::PipelineCache cache(dev);
  for (const Case& c : kCases) {
    if (only && !std::strstr(c.name, only)) continue;
    const size_t n = size_t{c.rows} * c.inner;
    const uint32_t nw = c.instance ? c.rows : c.inner;
    const auto hx = random_floats(n, 5, -1.f, 3.f);
    const auto hw = random_floats(nw, 6), hb = random_floats(nw, 7);
    const auto ref = cpu_reference(hx, hw, hb, c);
    auto dx = storage(dev, hx, "x"), dw = storage(dev, hw, "w"), db = storage(dev, hb, "b");
    auto dout = storage(dev, std::vector<float>(n), "out");
    auto dmean = storage(dev, std::vector<float>(c.rows), "mean"), drstd = storage(dev, std::vector<float>(c.rows), "rstd");
    auto dpart = storage(dev, std::vector<float>(2 * (1024 + c.rows)), "partials");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(NormParams), "params"), "params");
    std::printf("\n%s (%.1f MiB)\n", c.name, n * 4.0 / (1 << 20));
    for (int variant : {3, 4, 5}) {
      const bool split = variant == 4;
      if (variant == 5 && c.inner > 2048) continue;
      NormParams p{};
      p.rows = c.rows, p.inner = c.inner, p.mode = c.instance ? 1 : 0, p.flags = 1 | 2 | 4 | 8;
      p.groups = c.instance ? c.rows : 0, p.cpg = 1, p.hw = c.instance ? c.inner : 1, p.eps = 1e-5f;
      p.nchunks = split ? pick_chunks(c.rows, c.inner) : 1;
      p.chunk = (c.inner + p.nchunks - 1) / p.nchunks;
      if (split && p.nchunks == 1) continue;
      check(dp.write(&p, sizeof p), "params");
      uint32_t wg = 256, tpr = 1;
      while (tpr * 4 < c.inner && tpr < 256) tpr *= 2;
      if (variant == 3 && !c.instance) {
        wg = 32;
        while (wg < c.inner && wg < 256) wg *= 2;
      }
      gpu::CommandList list(dev);
      auto add = [&](const std::string& file, std::vector<gpu::BufferBinding> bindings) {
        gpu::PipelineKey key("bench_norm_" + file);
        key.set("WG", wg);
        if (variant == 5) key.set("TPR", tpr);
        auto pl = take(cache.get(key, read_variant("reduce", file)), file.c_str());
        gpu::Dispatch d;
        d.pipeline = pl;
        d.bindings = std::move(bindings);
        const uint64_t groups = variant == 5 ? (uint64_t{c.rows} + 256 / tpr - 1) / (256 / tpr) : uint64_t{c.rows} * p.nchunks;
        d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
        d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
        take(list.add(d), "add");
      };
      std::vector<gpu::BufferBinding> apply = {{0, &dx}, {1, &dw}, {2, &db}, {3, &dout}, {4, &dmean}, {5, &drstd}, {6, &dp}};
      if (split) {
        add("v4_row_norm_stats.wgsl", {{0, &dx}, {1, &dpart}, {2, &dp}});
        apply.push_back({7, &dpart});
        add("v4_row_norm_apply.wgsl", apply);
      } else {
        add(variant == 5 ? "v5_row_norm_rows.wgsl" : "v3_row_norm.wgsl", apply);
      }
      check(dout.write(std::vector<float>(n, NAN).data(), n * 4), "clear");
      check(list.submit().status(), "run");
      const double err = max_abs_diff(read_back(dout, n), ref);
      double ms = time_list_gpu(list, reps);
      const char* clock = "gpu";
      if (ms == 0) { ms = time_list(list, reps); clock = "wall"; }
      const std::string label = variant == 4   ? "v4 split, " + std::to_string(p.nchunks) + " chunks per row"
                                : variant == 5 ? "v5 " + std::to_string(256 / tpr) + " rows a workgroup, TPR " + std::to_string(tpr)
                                               : "v3 one workgroup per row";
      std::printf("  %-36s max|err| %.2e %s %9.4f ms (%s) %7.1f GB/s (read + write once)\n", label.c_str(), err,
                  err < 1e-4 ? "ok  " : "FAIL", ms, clock, 2.0 * n * 4 / (ms * 1e6));
    }
  }
  return 0;
}
