// Dense convolution variants (bench/kernels/conv/v*.wgsl, groups == 1, non-pointwise) on
// the layer shapes of pretrained/esrgan_slim_x4, Real-ESRGAN's RRDB (64 features, 32
// growth) at 64x64 and 128x128 tiles, Depth Anything V2 Small's DPT head and patch
// embedding at 518x518, MODNet's high-resolution branch at 512x512, a MobileNet-style
// stem and odd edge cases. Each variant is checked against a CPU reference (double
// accumulation, |err| <= 1e-4 + 1e-4 |want|, scaled by sqrt(K / 576) for long K), then
// timed: median GPU time from timestamp queries where the adapter has them (all the
// variant's dispatches: a split-K run counts its reduce pass), else median wall time of
// submit + wait, after one warm-up. The timed list repeats the variant's dispatches
// --copies times back to back (default 1): on a GPU whose clock drops between short
// submits (the H200 run of bench/results/kernels/conv_h200_v1_v12.txt, taken with one
// copy), many copies keep it busy and the median copy is the steady-state time.
// v5-v12 (implicit GEMM) run once with ks = 1 and once split over K (ks > 1) where the
// tile grid alone leaves the GPU under-filled.
//
//   . scripts/env.sh; build/wick_kernel_bench_conv [--reps N] [--copies N] [--only SUBSTRING] [--sms N] [variant-number...]
#include <cstring>
#include <thread>

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
    // Real-ESRGAN RRDBNet x4 (num_feat 64, num_grow_ch 32), per 64x64 / 128x128 tile: the
    // five convs of a residual dense block and the trunk conv.
    {"rrdb 64->32 3x3 64x64", 64, 64, 64, 32, 3, 1, 1, 1},
    {"rrdb 96->32 3x3 64x64", 96, 64, 64, 32, 3, 1, 1, 1},
    {"rrdb 128->32 3x3 64x64", 128, 64, 64, 32, 3, 1, 1, 1},
    {"rrdb 160->32 3x3 64x64", 160, 64, 64, 32, 3, 1, 1, 1},
    {"rrdb 192->64 3x3 64x64", 192, 64, 64, 64, 3, 1, 1, 1},
    {"rrdb 64->32 3x3 128x128", 64, 128, 128, 32, 3, 1, 1, 1},
    {"rrdb 128->32 3x3 128x128", 128, 128, 128, 32, 3, 1, 1, 1},
    {"rrdb 192->64 3x3 128x128", 192, 128, 128, 64, 3, 1, 1, 1},
    {"rrdb trunk 64->64 3x3 128x128", 64, 128, 128, 64, 3, 1, 1, 1},
    // Depth Anything V2 Small at 518x518: patch embedding, DPT fusion residual units (64
    // features) at 74 and 148, head convs at 296 and 518.
    {"depth patch 3->384 14x14 s14 518", 3, 518, 518, 384, 14, 14, 0, 1},
    {"depth fusion 64->64 3x3 74x74", 64, 74, 74, 64, 3, 1, 1, 1},
    {"depth fusion 64->64 3x3 148x148", 64, 148, 148, 64, 3, 1, 1, 1},
    {"depth head 64->32 3x3 296x296", 64, 296, 296, 32, 3, 1, 1, 1},
    {"depth head 32->32 3x3 518x518", 32, 518, 518, 32, 3, 1, 1, 1},
    // MODNet at 512x512 (hr_channels 32): stem, high-resolution branch.
    {"modnet stem 3->32 3x3 s2 512", 3, 512, 512, 32, 3, 2, 1, 1},
    {"modnet hr 35->32 3x3 s2 512", 35, 512, 512, 32, 3, 2, 1, 1},
    {"modnet hr 67->64 3x3 128x128", 67, 128, 128, 64, 3, 1, 1, 1},
    {"modnet hr 64->32 3x3 256x256", 64, 256, 256, 32, 3, 1, 1, 1},
    {"modnet f 35->16 3x3 512x512", 35, 512, 512, 16, 3, 1, 1, 1},
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
    {"odd 17->35 3x3 s2 p1 31x29", 17, 31, 29, 35, 3, 2, 1, 1},
    {"odd 70->67 5x5 s1 d3 p5 23x41", 70, 23, 41, 67, 5, 1, 5, 3},
};

enum class Kind { kOc4, kBlock, kGemm };

struct Variant {
  int id;
  const char* file;
  Kind kind;     // kBlock: 4 pixels per thread; kBlock/kGemm: kernel/stride/dilation as overrides
  bool packed;   // kBlock: weights as [ceil(oc/4), c, kh, kw] x 4 channels (zero past oc)
  uint32_t ocb;  // kOc4/kBlock: output channels per invocation
  uint32_t bm = 0, bn = 0;  // kGemm: output tile (pixels x channels); weights as wT [Kpad][Npad]
  bool tile_overrides = false;  // kGemm: the tile is set through the BM/BN override constants
  bool cin_inner = false;       // kGemm: K in the order (ky, kx, c), each tap's channels padded to 16
  bool bn_only = false;         // kGemm: only BN is an override (the shipped shader's BM is 64)
  bool shipped_cin_inner = false;  // the shipped shader's CIN_INNER: K in the order (ky, kx, c), unpadded
  uint32_t rm = 0;                 // the shipped shader's RM (rows per invocation; 0: its default, 4)
};
constexpr uint32_t kBk = 16;  // the K step of every implicit-GEMM variant
const Variant kVariants[] = {
    {1, "v1_oc4.wgsl", Kind::kOc4, false, 4},
    {2, "v2_block.wgsl", Kind::kBlock, false, 4},
    {3, "v3_block_packed.wgsl", Kind::kBlock, true, 4},
    {4, "v4_block_packed_oc8.wgsl", Kind::kBlock, true, 8},
    {5, "v5_igemm64.wgsl", Kind::kGemm, false, 0, 64, 64},
    {6, "v6_igemm64x32.wgsl", Kind::kGemm, false, 0, 64, 32},
    {7, "v7_igemm128x64.wgsl", Kind::kGemm, false, 0, 128, 64},
    {8, "v8_igemm128x64_prefetch.wgsl", Kind::kGemm, false, 0, 128, 64},
    {9, "v9_igemm_tiles.wgsl", Kind::kGemm, false, 0, 128, 64, true},
    {10, "v9_igemm_tiles.wgsl", Kind::kGemm, false, 0, 128, 32, true},
    {11, "v9_igemm_tiles.wgsl", Kind::kGemm, false, 0, 64, 64, true},
    {12, "v9_igemm_tiles.wgsl", Kind::kGemm, false, 0, 64, 32, true},
    {15, "v15_igemm_cin_inner.wgsl", Kind::kGemm, false, 0, 64, 64, true, true},
    {16, "v15_igemm_cin_inner.wgsl", Kind::kGemm, false, 0, 64, 32, true, true},
    {17, "v16_igemm_tiles_cin_inner.wgsl", Kind::kGemm, false, 0, 128, 64, true, true},
    {18, "v16_igemm_tiles_cin_inner.wgsl", Kind::kGemm, false, 0, 128, 32, true, true},
    {19, "v16_igemm_tiles_cin_inner.wgsl", Kind::kGemm, false, 0, 64, 64, true, true},
    {20, "v16_igemm_tiles_cin_inner.wgsl", Kind::kGemm, false, 0, 64, 32, true, true},
    // What ships (src/webgpu/ops/conv/conv2d_igemm.wgsl: v5/v6 with the accumulators stored by
    // literal index), at BN 64 and 32.
    {21, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 64, true, false, true},
    {22, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 32, true, false, true},
    // The shipped shader with CIN_INNER (K in the order (ky, kx, c) without padding: a K step
    // in one tap where in_c % 16 == 0, else across at most two; in_c >= 16) at BN 64, 32 and
    // 16, and BN 16 without it.
    {23, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 64, true, false, true, true},
    {24, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 32, true, false, true, true},
    {25, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 16, true, false, true, true},
    {26, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 16, true, false, true},
    // Diagnostics of v24 (shipped, CIN_INNER, BN 32) against v16: the step written out in
    // main (v27), v15's store (v28).
    {27, "v27_shipped_inline_step.wgsl", Kind::kGemm, false, 0, 64, 32, true, false, true, true},
    {28, "v28_shipped_v15_store.wgsl", Kind::kGemm, false, 0, 64, 32, true, false, true, true},
    // v29-v31: the shipped shader at RM 8 (8 rows x 4 columns an invocation, half the
    // invocations: v23 / v24 / v21 so).
    {29, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 64, true, false, true, true, 8},
    {30, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 32, true, false, true, true, 8},
    {31, "v21_shipped_igemm.wgsl", Kind::kGemm, false, 0, 64, 64, true, false, true, false, 8},
    // v32-v34 (2026-12-08): v23, v24 and v21 on the shader as it was before 2026-12-08 (its
    // K step's shared reads clamped by robustness; the shipped one's are not), for the A/B.
    {32, "v32_flat_igemm.wgsl", Kind::kGemm, false, 0, 64, 64, true, false, true, true},
    {33, "v32_flat_igemm.wgsl", Kind::kGemm, false, 0, 64, 32, true, false, true, true},
    {34, "v32_flat_igemm.wgsl", Kind::kGemm, false, 0, 64, 64, true, false, true},
};

uint32_t round_up(uint32_t v, uint32_t m) { return (v + m - 1) / m * m; }

// w [oc, c, kh, kw] -> wT [round_up(kh * kw * cstride, 16)][round_up(oc, bn)]: K in the
// order (ky, kx, c), each tap's channels `cstride` rows apart (c for the shipped shader's
// CIN_INNER, round_up(c, 16) for v15 / v16), zeros in the gaps and past oc.
std::vector<float> pack_gemm_tap_major(const std::vector<float>& w, uint32_t oc, uint32_t c, uint32_t taps, uint32_t bn,
                                       uint32_t cstride) {
  const uint32_t kp = round_up(taps * cstride, 16), np = round_up(oc, bn);
  std::vector<float> out(size_t{kp} * np, 0.f);
  for (uint32_t o = 0; o < oc; ++o)
    for (uint32_t ci = 0; ci < c; ++ci)
      for (uint32_t t = 0; t < taps; ++t) out[(size_t{t} * cstride + ci) * np + o] = w[(size_t{o} * c + ci) * taps + t];
  return out;
}

// w [oc, K] -> wT [round_up(K, 16)][round_up(oc, bn)], zeros in the padding.
std::vector<float> pack_gemm(const std::vector<float>& w, uint32_t oc, uint32_t k, uint32_t bn) {
  const uint32_t kp = round_up(k, kBk), np = round_up(oc, bn);
  std::vector<float> out(size_t{kp} * np, 0.f);
  for (uint32_t o = 0; o < oc; ++o)
    for (uint32_t t = 0; t < k; ++t) out[size_t{t} * np + o] = w[size_t{o} * k + t];
  return out;
}

// Split-K factor: double while the tile grid fills fewer than 2 workgroups per SM and
// each share keeps at least 4 K steps.
uint32_t split_for(uint64_t tiles, uint32_t steps, uint32_t sms) {
  uint32_t ks = 1;
  while (ks < 16 && tiles * ks < 2ull * sms && steps / (ks * 2) >= 4) ks *= 2;
  return ks;
}

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
  // One thread per output channel slice (the large layers are billions of MACs).
  const uint32_t nt = std::max(1u, std::min(k.oc, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < nt; ++t) pool.emplace_back([&, t] {
  for (uint32_t o = t; o < k.oc; o += nt)
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
  });
  for (auto& th : pool) th.join();
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  int copies = 1;
  uint32_t sms = 132;  // H200
  std::string only;
  std::vector<int> pick;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--copies") && i + 1 < argc) copies = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--sms") && i + 1 < argc) sms = static_cast<uint32_t>(std::atoi(argv[++i]));
    else pick.push_back(std::atoi(argv[i]));
  }
  gpu::DeviceOptions opts;
  opts.request_timestamp_query = true;
  auto dev = take(gpu::Device::create(opts), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  gpu::PipelineCache cache(dev);
  bool gpu_timed = false;
  for (const Case& k : kCases) {
    if (!only.empty() && std::string(k.name).find(only) == std::string::npos) continue;
    const uint32_t oh = out_dim(k.h, k.k, k.s, k.pad, k.dil), ow = out_dim(k.w, k.k, k.s, k.pad, k.dil);
    const uint32_t kdim = k.c * k.k * k.k;
    const auto hx = random_floats(size_t{k.c} * k.h * k.w, 1);
    const auto hw = random_floats(size_t{k.oc} * kdim, 2);
    const auto hb = random_floats(k.oc, 3);
    const auto ref = cpu_conv(k, oh, ow, hx, hw, hb);
    const size_t n = ref.size();
    auto dx = storage(dev, hx, "x"), dw = storage(dev, hw, "w"), dwp = storage(dev, pack_oc4(hw, k.oc, kdim), "wp"), db = storage(dev, hb, "b");
    auto dy = storage(dev, std::vector<float>(n), "y");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    Params p{};
    p.n = 1, p.in_c = k.c, p.in_h = k.h, p.in_w = k.w, p.out_c = k.oc, p.out_h = oh, p.out_w = ow, p.groups = 1;
    p.k_h = p.k_w = k.k, p.stride_h = p.stride_w = k.s, p.pad_h = p.pad_w = k.pad, p.dil_h = p.dil_w = k.dil;
    p.total = static_cast<uint32_t>(n), p.has_bias = 1, p.clamp_min = -INFINITY, p.clamp_max = INFINITY;
    check(dp.write(&p, sizeof p), "params");
    const double gflop = 2.0 * n * kdim / 1e9;
    // Long sums drift further from the double reference: scale the limit with sqrt(K).
    const double tol = std::max(1.0, std::sqrt(kdim / 576.0));
    std::printf("\n%s -> %ux%u (%.3f GFLOP, K %u)\n", k.name, oh, ow, gflop, kdim);
    for (const Variant& v : kVariants) {
      if (!pick.empty() && std::find(pick.begin(), pick.end(), v.id) == pick.end()) continue;
      std::vector<uint32_t> splits = {1};
      gpu::Buffer dwg, dpart;
      uint64_t tiles = 0;
      if (v.shipped_cin_inner && k.c < 16) continue;  // CIN_INNER needs in_c >= 16
      if (v.kind == Kind::kGemm) {
        const uint32_t taps = k.k * k.k;
        dwg = storage(dev, v.cin_inner           ? pack_gemm_tap_major(hw, k.oc, k.c, taps, v.bn, round_up(k.c, kBk))
                           : v.shipped_cin_inner ? pack_gemm_tap_major(hw, k.oc, k.c, taps, v.bn, k.c)
                                                 : pack_gemm(hw, k.oc, kdim, v.bn),
                      "wT");
        tiles = uint64_t{(static_cast<uint32_t>(n / k.oc) + v.bm - 1) / v.bm} * ((k.oc + v.bn - 1) / v.bn);
        const uint32_t steps = v.cin_inner ? taps * round_up(k.c, kBk) / kBk : round_up(kdim, kBk) / kBk;
        const uint32_t ks = split_for(tiles, steps, sms);
        if (ks > 1) {
          splits.push_back(ks);
          dpart = storage(dev, std::vector<float>(n * ks), "partial");
        }
      }
      for (uint32_t ks : splits) {
        gpu::CommandList list(dev);
        const uint32_t wg = 64;
        gpu::PipelineKey key("bench_conv_" + std::string(v.file));
        if (v.kind != Kind::kGemm) key.set("wg_size", wg);
        if (v.kind != Kind::kOc4) key.set("KH", k.k).set("KW", k.k).set("SH", k.s).set("SW", k.s).set("DH", k.dil).set("DW", k.dil);
        if (v.kind == Kind::kGemm) key.set("ks", ks);
        if (v.tile_overrides && !v.bn_only) key.set("BM", v.bm);
        if (v.tile_overrides) key.set("BN", v.bn);
        // The shipped rule (ops/conv/register.cpp): one tap per K step where in_c % 16 == 0.
        if (v.shipped_cin_inner) key.set("CIN_INNER", k.c % 16 == 0 ? 1u : 2u);
        if (v.rm) key.set("RM", v.rm);
        auto pl = take(cache.get(key, read_variant("conv", v.file)), v.file);
        gpu::Dispatch d;
        d.pipeline = pl;
        if (v.kind == Kind::kGemm) {
          d.bindings = {{0, &dx}, {1, &dwg}, {2, &db}, {3, ks > 1 ? &dpart : &dy}, {4, &dp}};
          d.x = static_cast<uint32_t>((n / k.oc + v.bm - 1) / v.bm);
          d.y = (k.oc + v.bn - 1) / v.bn;
          d.z = ks;
        } else {
          uint64_t threads = uint64_t{(k.oc + 3) / 4} * oh * ow;
          if (v.kind == Kind::kBlock) threads = uint64_t{(k.oc + v.ocb - 1) / v.ocb} * oh * ((ow + 3) / 4);
          d.bindings = {{0, &dx}, {1, v.packed ? &dwp : &dw}, {2, &db}, {3, &dy}, {4, &dp}};
          const uint64_t groups = (threads + wg - 1) / wg;
          d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
          d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
        }
        take(list.add(d), "add");
        gpu::Dispatch list_reduce;
        if (ks > 1) {
          gpu::PipelineKey rkey("bench_conv_splitk_reduce.wgsl");
          rkey.set("ks", ks).set("wg_size", 256u);
          gpu::Dispatch r;
          r.pipeline = take(cache.get(rkey, read_variant("conv", "splitk_reduce.wgsl")), "reduce");
          r.bindings = {{0, &dpart}, {2, &db}, {3, &dy}, {4, &dp}};
          const uint64_t groups = (n + 255) / 256;
          r.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
          r.y = static_cast<uint32_t>((groups + r.x - 1) / r.x);
          list_reduce = r;
          take(list.add(r), "add reduce");
        }
        check(dy.write(std::vector<float>(n, NAN).data(), n * 4), "clear");
        check(list.submit().status(), "run");
        const auto got = read_back(dy, n);
        bool ok = true;
        double err = 0;
        for (size_t i = 0; i < n; ++i) {
          const double e = std::fabs(double(got[i]) - ref[i]);
          if (!(e <= tol * (1e-4 + 1e-4 * std::fabs(ref[i])))) ok = false;
          if (std::isnan(e)) err = INFINITY;
          else err = std::max(err, e);
        }
        // The timed list: `copies` back-to-back repeats of the same dispatches.
        gpu::CommandList timed(dev);
        for (int c = 0; c < copies; ++c) {
          take(timed.add(d), "add copy");
          if (ks > 1) take(timed.add(list_reduce), "add copy");
        }
        // The GPU idles while the CPU reference runs and drops its clock: the variants timed
        // first after it ran up to 3x slow on the H100
        // (bench/results/kernels/conv_h100_2026-12-06_call5_diagnostics.txt).
        warm_up(timed);
        const double wall = time_list(timed, reps) / copies;
        const double gpu_ms = time_list_gpu(timed, reps, ks > 1 ? 2 : 1);
        const double ms = gpu_ms > 0 ? gpu_ms : wall;
        gpu_timed = gpu_timed || gpu_ms > 0;
        char tag[48];
        std::snprintf(tag, sizeof tag, "v%d%s", v.id, ks > 1 ? (" ks" + std::to_string(ks)).c_str() : "");
        char file[64];
        std::snprintf(file, sizeof file, "%s%s", v.file, v.tile_overrides ? (" " + std::to_string(v.bm) + "x" + std::to_string(v.bn)).c_str() : "");
        std::printf("  %-8s %-36s max|err| %.2e %s %9.1f us %s %8.3f TFLOP/s  (wall %.1f us)\n", tag, file, err,
                    ok ? "ok  " : "FAIL", ms * 1e3, gpu_ms > 0 ? "gpu " : "wall", gflop / (ms / 1e3) / 1e3, wall * 1e3);
      }
    }
  }
  std::printf("\n(times: %s)\n", gpu_timed ? "GPU time from timestamp queries, median" : "wall time of submit + wait, median");
  return 0;
}
