// Pointwise (1x1, stride 1, groups 1) convolution variants (bench/kernels/conv/v13-v28) on
// the 1x1 layers of D-FINE S at 640x640 (HGNetv2-B0 aggregation convs, hybrid-encoder
// projections and CSP/ELAN convs), MobileNetV2-style expand/project convs (MODNet's
// encoder), a squeeze-and-excitation conv on a 1x1 plane and odd cases (channels and
// pixels off the tiles, batch 2). Each variant is checked against a CPU reference (double
// accumulation, |err| <= (1e-4 + 1e-4 |want|) x max(1, sqrt(K / 576))), then timed: median
// GPU time from timestamp queries (wall time of submit + wait without them) of --copies
// back-to-back dispatches, after one warm-up.
//
//   . scripts/env.sh; build/wick_kernel_bench_conv_pw [--reps N] [--copies N] [--only SUBSTRING] [variant...]
#include <cstring>
#include <thread>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

// The conv shaders' Params (src/webgpu/ops/conv/conv2d_params.inc.wgsl).
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
  uint32_t n, c, h, w, oc;
};

const Case kCases[] = {
    // D-FINE S 640 (HGNetv2-B0 backbone: stage aggregation squeeze / excite convs at 160,
    // 80, 40, 20; hybrid encoder: input projections, FPN/PAN ELAN and CSP 1x1 convs).
    // The model's two largest layers (its profile's #110 and #131: the 80x80 ELAN block's
    // conv1 and conv4, 3.36 and 2.10 GFLOP), then the backbone's and the rest.
    {"dfine elan cv1 512->512 80x80", 1, 512, 80, 80, 512},
    {"dfine elan cv4 640->256 80x80", 1, 640, 80, 80, 256},
    {"dfine hg1 agg 64->32 160x160", 1, 64, 160, 160, 32},
    {"dfine hg1 exc 32->64 160x160", 1, 32, 160, 160, 64},
    {"dfine hg2 agg 160->128 80x80", 1, 160, 80, 80, 128},
    {"dfine hg2 exc 128->256 80x80", 1, 128, 80, 80, 256},
    {"dfine hg3 agg 448->256 40x40", 1, 448, 40, 40, 256},
    {"dfine hg3 exc 256->512 40x40", 1, 256, 40, 40, 512},
    {"dfine hg4 agg 896->512 20x20", 1, 896, 20, 20, 512},
    {"dfine hg4 exc 512->1024 20x20", 1, 512, 20, 20, 1024},
    {"dfine proj 1024->256 20x20", 1, 1024, 20, 20, 256},
    {"dfine proj 512->256 40x40", 1, 512, 40, 40, 256},
    {"dfine proj 256->256 80x80", 1, 256, 80, 80, 256},
    {"dfine fpn 512->256 40x40", 1, 512, 40, 40, 256},
    {"dfine fpn 512->256 80x80", 1, 512, 80, 80, 256},
    {"dfine csp 128->64 80x80", 1, 128, 80, 80, 64},
    {"dfine csp 256->128 40x40", 1, 256, 40, 40, 128},
    {"dfine elan 384->256 20x20", 1, 384, 20, 20, 256},
    // Load balance (2026-12-07): cv4 and proj 256->256 above make 400 tiles of 64x64, cv1
    // 800: on 132 multiprocessors holding 3 workgroups each (16 KiB, ../occupancy), 4 / 8 of
    // them are left for a last round. The same convs on 6,336 pixels (396 / 792 tiles, 1%
    // less work) say what that round costs.
    {"balance cv4 640->256 66x96 (396 tiles)", 1, 640, 66, 96, 256},
    {"balance proj 256->256 66x96 (396 tiles)", 1, 256, 66, 96, 256},
    {"balance cv1 512->512 66x96 (792 tiles)", 1, 512, 66, 96, 512},
    // MobileNetV2 (MODNet's encoder at 512): expand and project convs.
    {"mbv2 24->144 128x128", 1, 24, 128, 128, 144},
    {"mbv2 144->24 128x128", 1, 144, 128, 128, 24},
    {"mbv2 192->32 64x64", 1, 192, 64, 64, 32},
    {"mbv2 96->576 32x32", 1, 96, 32, 32, 576},
    {"mbv2 960->320 16x16", 1, 960, 16, 16, 320},
    // Squeeze-and-excitation on a 1x1 plane, odd sizes.
    {"se 576->144 1x1", 1, 576, 1, 1, 144},
    {"odd 37->70 31x29 n2", 2, 37, 31, 29, 70},
    {"odd 19->13 43x49", 1, 19, 43, 49, 13},
    {"odd 36->70 31x28 n2 (vec4 edges)", 2, 36, 31, 28, 70},
};

struct Variant {
  int id;
  const char* file;
  bool gemm;
  uint32_t bm = 0, bn = 0, bk = 0, rm = 0, rn = 0;  // gemm: the tile overrides
  bool vec4 = false;                                // in_c % 4 == 0 and plane % 4 == 0 only
  uint32_t nbuf = 2;                                // shared buffers (matmul_large_tile's NBUF)
  uint32_t warp_rows = 0;                           // matmul_large_tile's WARP_ROWS (0: lid's layout)
};
const Variant kVariants[] = {
    {13, "v13_pw_split.wgsl", false},
    {14, "v14_pw_gemm.wgsl", true, 128, 128, 8, 8, 8},
    {15, "v14_pw_gemm.wgsl", true, 128, 64, 8, 8, 8},
    {16, "v14_pw_gemm.wgsl", true, 64, 64, 16, 4, 4},
    {17, "v14_pw_gemm.wgsl", true, 32, 128, 8, 4, 8},
    // v18: the matmul's 64x64 / BK 8 / 8x4 tile (bench/kernels/matmul v41: 8 KiB, six
    // workgroups a multiprocessor under Dawn on NVIDIA; not yet timed on a GPU here).
    {18, "v14_pw_gemm.wgsl", true, 64, 64, 8, 8, 4},
    // v19-v22: v14-v16 and v18 with vec4 global loads (input channels and plane multiples
    // of 4; the other cases skip them).
    {19, "v19_pw_gemm_vec4.wgsl", true, 128, 128, 8, 8, 8, true},
    {20, "v19_pw_gemm_vec4.wgsl", true, 128, 64, 8, 8, 8, true},
    {21, "v19_pw_gemm_vec4.wgsl", true, 64, 64, 16, 4, 4, true},
    {22, "v19_pw_gemm_vec4.wgsl", true, 64, 64, 8, 8, 4, true},
    // v23 / v24: half tiles (64 channels x 32 pixels, 32 x 64; BK 16, 4x4, 128 invocations,
    // 12 KiB: four workgroups a multiprocessor), twice the tiles for a finer last round.
    {23, "v19_pw_gemm_vec4.wgsl", true, 64, 32, 16, 4, 4, true},
    {24, "v19_pw_gemm_vec4.wgsl", true, 32, 64, 16, 4, 4, true},
    // v25: 68-pixel tiles at BK 8 (8x4 a thread, 136 invocations, 8.5 KiB: five a
    // multiprocessor), so that 6,400 pixels make 95 columns of tiles: 380 tiles at 256
    // channels, one round, where 64-pixel tiles make 400 (v22: the same BK, six a
    // multiprocessor).
    {25, "v19_pw_gemm_vec4.wgsl", true, 64, 68, 8, 8, 4, true},
    // v26-v28 (2026-12-07 late): 8x8 a thread in 64-channel tiles, for twice the FMAs per
    // shared read of v21's 4x4 (16 per vec4 pair instead of 8) at the same or higher
    // occupancy: v26 64x64 / BK 8, 64 invocations, 8 KiB (six a multiprocessor); v27 64
    // channels x 128 pixels / BK 8, 128 invocations, 12 KiB (four); v28 64x64 / BK 4, 64
    // invocations, 4 KiB (twelve; a barrier every 4 K).
    {26, "v19_pw_gemm_vec4.wgsl", true, 64, 64, 8, 8, 8, true},
    {27, "v19_pw_gemm_vec4.wgsl", true, 64, 128, 8, 8, 8, true},
    {28, "v19_pw_gemm_vec4.wgsl", true, 64, 64, 4, 8, 8, true},
    // v29-v31: one shared buffer (NBUF 1: two barriers a K step), half the workgroup memory,
    // so twice the workgroups a multiprocessor: v29 v21's tile (8 KiB, six); v30 64x64 / BK
    // 32, 4x4 (16 KiB, three; half v21's K steps); v31 v22's tile (4 KiB, twelve).
    {29, "v19_pw_gemm_vec4.wgsl", true, 64, 64, 16, 4, 4, true, 1},
    {30, "v19_pw_gemm_vec4.wgsl", true, 64, 64, 32, 4, 4, true, 1},
    {31, "v19_pw_gemm_vec4.wgsl", true, 64, 64, 8, 8, 4, true, 1},
    // v32-v35 (2026-12-07 night): the warp's shape (WARP_ROWS): 32 consecutive invocations as 4
    // rows of 8 threads instead of lid's 2 of 16 (a K step's vec4 reads of the pixel tile
    // touch 8 addresses, one shared-memory wavefront, instead of 16): v32 v21's tile, v33
    // v22's; v34 v21's as 8 rows of 4; v35 v21's as 2 rows of 16 (lid's layout computed: the
    // cost of the remap alone).
    // Since 2026-12-08 they run on the tile as it was (v38's file): the shipped one reads
    // lid's layout only.
    {32, "v38_flat_pw_gemm_vec4.wgsl", true, 64, 64, 16, 4, 4, true, 2, 4},
    {33, "v38_flat_pw_gemm_vec4.wgsl", true, 64, 64, 8, 8, 4, true, 2, 4},
    {34, "v38_flat_pw_gemm_vec4.wgsl", true, 64, 64, 16, 4, 4, true, 2, 8},
    {35, "v38_flat_pw_gemm_vec4.wgsl", true, 64, 64, 16, 4, 4, true, 2, 2},
    // v38 / v39 (2026-12-08): v21's / v22's tile as it was before 2026-12-08, the K step's
    // shared reads at a run-time buffer base that Dawn's robustness clamps (a min() and the
    // index math per vec4 read); the shipped tile's indices are proven in bounds, no clamp
    // (bench/kernels/robustness/README.md, "Indices Tint can bound").
    {38, "v38_flat_pw_gemm_vec4.wgsl", true, 64, 64, 16, 4, 4, true},
    {39, "v38_flat_pw_gemm_vec4.wgsl", true, 64, 64, 8, 8, 4, true},
};

// conv2d_pw's split over the input channels (src/webgpu/ops/conv/register.cpp).
uint32_t pointwise_split(uint64_t slots, uint64_t in_c) {
  uint32_t ks = 1;
  while (ks < 64 && slots * ks * 2 <= 65536 && in_c >= uint64_t{ks} * 16) ks *= 2;
  return ks;
}

std::vector<float> cpu_pw(const Case& k, const std::vector<float>& x, const std::vector<float>& w,
                          const std::vector<float>& bias) {
  const size_t plane = size_t{k.h} * k.w;
  std::vector<float> y(size_t{k.n} * k.oc * plane);
  const uint32_t nt = std::max(1u, std::min(k.oc, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < nt; ++t) pool.emplace_back([&, t] {
    for (uint32_t b = 0; b < k.n; ++b)
      for (uint32_t o = t; o < k.oc; o += nt)
        for (size_t p = 0; p < plane; ++p) {
          double acc = bias[o];
          for (uint32_t c = 0; c < k.c; ++c) acc += double(x[(size_t{b} * k.c + c) * plane + p]) * w[size_t{o} * k.c + c];
          y[(size_t{b} * k.oc + o) * plane + p] = static_cast<float>(acc);
        }
  });
  for (auto& th : pool) th.join();
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  int copies = 20;
  std::string only;
  std::vector<int> pick;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--copies") && i + 1 < argc) copies = std::max(1, std::atoi(argv[++i]));
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
    const uint32_t plane = k.h * k.w;
    const auto hx = random_floats(size_t{k.n} * k.c * plane, 1);
    const auto hw = random_floats(size_t{k.oc} * k.c, 2);
    const auto hb = random_floats(k.oc, 3);
    const auto ref = cpu_pw(k, hx, hw, hb);
    const size_t n = ref.size();
    auto dx = storage(dev, hx, "x"), dw = storage(dev, hw, "w"), db = storage(dev, hb, "b");
    auto dy = storage(dev, std::vector<float>(n), "y");
    // The shipped vec4 GEMM's binding 7 (the tail split's partial sums; no tail split here).
    auto dtail = storage(dev, std::vector<float>(4), "tail partials (unused)");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    Params p{};
    p.n = k.n, p.in_c = k.c, p.in_h = k.h, p.in_w = k.w, p.out_c = k.oc, p.out_h = k.h, p.out_w = k.w, p.groups = 1;
    p.k_h = p.k_w = 1, p.stride_h = p.stride_w = 1, p.dil_h = p.dil_w = 1;
    p.total = static_cast<uint32_t>(n), p.has_bias = 1, p.clamp_min = -INFINITY, p.clamp_max = INFINITY;
    check(dp.write(&p, sizeof p), "params");
    const double gflop = 2.0 * n * k.c / 1e9;
    const double tol = std::max(1.0, std::sqrt(k.c / 576.0));
    std::printf("\n%s (%.3f GFLOP)\n", k.name, gflop);
    for (const Variant& v : kVariants) {
      if (!pick.empty() && std::find(pick.begin(), pick.end(), v.id) == pick.end()) continue;
      if (v.vec4 && (k.c % 4 != 0 || plane % 4 != 0)) continue;
      gpu::PipelineKey key("bench_conv_pw_" + std::to_string(v.id));
      gpu::Dispatch d;
      uint32_t ks = 1;
      if (v.gemm) {
        key.set("BM", v.bm).set("BN", v.bn).set("BK", v.bk).set("RM", v.rm).set("RN", v.rn);
        if (v.nbuf != 2) key.set("NBUF", v.nbuf);
        if (v.warp_rows) key.set("WARP_ROWS", v.warp_rows);
        d.x = (plane + v.bn - 1) / v.bn;
        d.y = (k.oc + v.bm - 1) / v.bm;
        d.z = k.n;
      } else {
        const uint64_t slots = uint64_t{k.n} * ((k.oc + 3) / 4) * plane;
        ks = pointwise_split(slots, k.c);
        key.set("wg_size", 128u).set("ks", ks);
        const uint64_t groups = (slots * ks + 127) / 128;
        d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
        d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
      }
      d.pipeline = take(cache.get(key, read_variant("conv", v.file)), v.file);
      d.bindings = {{0, &dx}, {1, &dw}, {2, &db}, {3, &dy}, {4, &dp}, {5, &dw}, {6, &dw}};
      if (v.vec4) d.bindings.push_back({7, &dtail});
      gpu::CommandList list(dev);
      take(list.add(d), "add");
      check(dy.write(std::vector<float>(n, NAN).data(), n * 4), "clear");
      check(list.submit().status(), "run");
      const auto got = read_back(dy, n);
      bool ok = true;
      double err = 0;
      for (size_t i = 0; i < n; ++i) {
        const double e = std::fabs(double(got[i]) - ref[i]);
        if (!(e <= tol * (1e-4 + 1e-4 * std::fabs(ref[i])))) ok = false;
        err = std::isnan(e) ? INFINITY : std::max(err, e);
      }
      gpu::CommandList timed(dev);
      for (int c = 0; c < copies; ++c) take(timed.add(d), "add copy");
      const double wall = time_list(timed, reps) / copies;
      const double gpu_ms = time_list_gpu(timed, reps, 1);
      const double ms = gpu_ms > 0 ? gpu_ms : wall;
      gpu_timed = gpu_timed || gpu_ms > 0;
      char tag[80];
      if (v.gemm) std::snprintf(tag, sizeof tag, "v%d gemm%s %ux%ux%u %ux%u%s", v.id, v.vec4 ? "4" : "", v.bm, v.bn, v.bk, v.rm, v.rn,
                                v.nbuf == 1 ? " 1buf" : "");
      else std::snprintf(tag, sizeof tag, "v%d split ks%u", v.id, ks);
      std::printf("  %-22s max|err| %.2e %s %9.1f us %s %8.3f TFLOP/s  (wall %.1f us)\n", tag, err, ok ? "ok  " : "FAIL",
                  ms * 1e3, gpu_ms > 0 ? "gpu " : "wall", gflop / (ms / 1e3) / 1e3, wall * 1e3);
    }
  }
  std::printf("\n(times: %s)\n", gpu_timed ? "GPU time from timestamp queries, median" : "wall time of submit + wait, median");
  return 0;
}
