// Direct convolution variants (bench/kernels/conv/v*.wgsl, groups == 1, non-pointwise) on
// the layer shapes of pretrained/esrgan_slim_x4, a MobileNet-style stem and a Depth
// Anything-style patch embedding and head conv. Each variant is checked against a CPU
// reference (double accumulation, |err| <= 1e-4 + 1e-4 |want|), then timed (median wall
// time of submit + wait, after one warm-up).
//
//   . scripts/env.sh; build/wick_kernel_bench_conv [--reps N] [--only SUBSTRING] [variant-number...]
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

// conv2d_oc4.wgsl's Params (all variants share it).
struct Params {
  uint32_t n, in_c, in_h, in_w;
  uint32_t out_c, out_h, out_w, groups;
  uint32_t k_h, k_w, stride_h, stride_w;
  uint32_t pad_h, pad_w, dil_h, dil_w;
  uint32_t total, has_bias;
  float clamp_min, clamp_max;
  uint32_t epi_n, has_scale, scale_bstride, pad0;
  uint32_t epi[6][4];
};

struct Case {
  const char* name;
  uint32_t c, h, w, oc, k, s, pad, dil;
};

const Case kCases[] = {
    {"esrgan 3->64 3x3 64x64", 3, 64, 64, 64, 3, 1, 1, 1},
    {"esrgan 64->64 3x3 64x64", 64, 64, 64, 64, 3, 1, 1, 1},
    {"esrgan 64->4 3x3 64x64", 64, 64, 64, 4, 3, 1, 1, 1},
    {"esrgan 64->64 5x5 64x64", 64, 64, 64, 64, 5, 1, 2, 1},
    {"esrgan 64->32 3x3 64x64", 64, 64, 64, 32, 3, 1, 1, 1},
    {"esrgan 32->48 3x3 64x64", 32, 64, 64, 48, 3, 1, 1, 1},
    {"esrgan 48->3 3x3 256x256", 48, 256, 256, 3, 3, 1, 1, 1},
    {"mobilenet stem 3->16 3x3 s2 224", 3, 224, 224, 16, 3, 2, 1, 1},
    {"depth patch 3->64 14x14 s14 126", 3, 126, 126, 64, 14, 14, 0, 1},
    {"depth head 64->32 3x3 72x72", 64, 72, 72, 32, 3, 1, 1, 1},
    {"odd 5->7 3x3 s1 d2 p2 9x13", 5, 9, 13, 7, 3, 1, 2, 2},
};

struct Variant {
  int id;
  const char* file;
  bool block;   // 4 pixels per thread, kernel/stride/dilation as overrides
  bool packed;  // weights as [ceil(oc/4), c, kh, kw] x 4 channels (zero past oc)
  uint32_t ocb;  // output channels per invocation
};
const Variant kVariants[] = {
    {1, "v1_oc4.wgsl", false, false, 4},
    {2, "v2_block.wgsl", true, false, 4},
    {3, "v3_block_packed.wgsl", true, true, 4},
    {4, "v4_block_packed_oc8.wgsl", true, true, 8},
};

uint32_t out_dim(uint32_t in, uint32_t k, uint32_t s, uint32_t p, uint32_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

// w [oc, c, k, k] -> [ceil(oc/4), c, k, k, 4], the 4 channels of a block side by side.
std::vector<float> pack_oc4(const std::vector<float>& w, uint32_t oc, uint32_t per_oc) {
  const uint32_t blocks = (oc + 3) / 4;
  std::vector<float> out(size_t{blocks} * per_oc * 4, 0.f);
  for (uint32_t o = 0; o < oc; ++o)
    for (uint32_t t = 0; t < per_oc; ++t) out[(size_t{o / 4} * per_oc + t) * 4 + o % 4] = w[size_t{o} * per_oc + t];
  return out;
}

std::vector<float> cpu_conv(const Case& k, uint32_t oh, uint32_t ow, const std::vector<float>& x,
                            const std::vector<float>& w, const std::vector<float>& bias) {
  std::vector<float> y(size_t{k.oc} * oh * ow);
  for (uint32_t o = 0; o < k.oc; ++o)
    for (uint32_t i = 0; i < oh; ++i)
      for (uint32_t j = 0; j < ow; ++j) {
        double acc = bias[o];
        for (uint32_t c = 0; c < k.c; ++c)
          for (uint32_t u = 0; u < k.k; ++u)
            for (uint32_t v = 0; v < k.k; ++v) {
              const int64_t iy = int64_t{i} * k.s - k.pad + u * k.dil, ix = int64_t{j} * k.s - k.pad + v * k.dil;
              if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
              acc += double(x[(size_t{c} * k.h + iy) * k.w + ix]) * w[((size_t{o} * k.c + c) * k.k + u) * k.k + v];
            }
        y[(size_t{o} * oh + i) * ow + j] = static_cast<float>(acc);
      }
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  std::string only;
  std::vector<int> pick;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else pick.push_back(std::atoi(argv[i]));
  }
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  gpu::PipelineCache cache(dev);
  for (const Case& k : kCases) {
    if (!only.empty() && std::string(k.name).find(only) == std::string::npos) continue;
    const uint32_t oh = out_dim(k.h, k.k, k.s, k.pad, k.dil), ow = out_dim(k.w, k.k, k.s, k.pad, k.dil);
    const auto hx = random_floats(size_t{k.c} * k.h * k.w, 1);
    const auto hw = random_floats(size_t{k.oc} * k.c * k.k * k.k, 2);
    const auto hb = random_floats(k.oc, 3);
    const auto ref = cpu_conv(k, oh, ow, hx, hw, hb);
    const size_t n = ref.size();
    auto dx = storage(dev, hx, "x"), dw = storage(dev, hw, "w"), dwp = storage(dev, pack_oc4(hw, k.oc, k.c * k.k * k.k), "wp"), db = storage(dev, hb, "b");
    auto dy = storage(dev, std::vector<float>(n), "y");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    Params p{};
    p.n = 1, p.in_c = k.c, p.in_h = k.h, p.in_w = k.w, p.out_c = k.oc, p.out_h = oh, p.out_w = ow, p.groups = 1;
    p.k_h = p.k_w = k.k, p.stride_h = p.stride_w = k.s, p.pad_h = p.pad_w = k.pad, p.dil_h = p.dil_w = k.dil;
    p.total = static_cast<uint32_t>(n), p.has_bias = 1, p.clamp_min = -INFINITY, p.clamp_max = INFINITY;
    check(dp.write(&p, sizeof p), "params");
    const double gflop = 2.0 * n * k.c * k.k * k.k / 1e9;
    std::printf("\n%s -> %ux%u (%.2f GFLOP)\n", k.name, oh, ow, gflop);
    for (const Variant& v : kVariants) {
      if (!pick.empty() && std::find(pick.begin(), pick.end(), v.id) == pick.end()) continue;
      const uint32_t wg = 64;
      gpu::PipelineKey key("bench_conv_" + std::string(v.file));
      key.set("wg_size", wg);
      uint64_t threads = uint64_t{(k.oc + 3) / 4} * oh * ow;
      if (v.block) {
        key.set("KH", k.k).set("KW", k.k).set("SH", k.s).set("SW", k.s).set("DH", k.dil).set("DW", k.dil);
        threads = uint64_t{(k.oc + v.ocb - 1) / v.ocb} * oh * ((ow + 3) / 4);
      }
      auto pl = take(cache.get(key, read_variant("conv", v.file)), v.file);
      gpu::CommandList list(dev);
      gpu::Dispatch d;
      d.pipeline = pl;
      d.bindings = {{0, &dx}, {1, v.packed ? &dwp : &dw}, {2, &db}, {3, &dy}, {4, &dp}};
      const uint64_t groups = (threads + wg - 1) / wg;
      d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
      d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
      take(list.add(d), "add");
      check(dy.write(std::vector<float>(n, NAN).data(), n * 4), "clear");
      check(list.submit().status(), "run");
      const auto got = read_back(dy, n);
      bool ok = true;
      double err = 0;
      for (size_t i = 0; i < n; ++i) {
        const double e = std::fabs(double(got[i]) - ref[i]);
        if (!(e <= 1e-4 + 1e-4 * std::fabs(ref[i]))) ok = false;
        if (std::isnan(e)) err = INFINITY;
        else err = std::max(err, e);
      }
      const double ms = time_list(list, reps);
      std::printf("  v%d %-18s max|err| %.2e %s %9.2f ms %7.2f GFLOP/s\n", v.id, v.file, err, ok ? "ok  " : "FAIL", ms,
                  gflop / (ms / 1e3));
    }
  }
  return 0;
}
