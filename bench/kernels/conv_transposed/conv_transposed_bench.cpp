// Transposed 2-D convolution variants (bench/kernels/conv_transposed/v*.wgsl: v2 and v3 are
// links to the shipped kernels, src/webgpu/ops/conv/conv2d_transposed_{gemm,phase}.wgsl,
// whose includes bring conv2d's Params and bindings; the others get common.wgsl prepended) on the layers of SAM 2.1's mask decoder (two ConvTranspose2d
// 256->64 and 64->32, kernel 2 stride 2, 64x64 -> 128x128 -> 256x256), Depth Anything V2
// Small's DPT reassemble (48->48 kernel 4 stride 4 and 96->96 kernel 2 stride 2 on the
// 37x37 patch grid at 518x518), common decoder upsamplers (kernel 3 stride 2 padding 1
// output_padding 1, kernel 4 stride 2 padding 1) and odd cases (stride 3, dilation,
// output_padding, groups, batch 2, a stride past the kernel). Each variant is checked
// against a CPU reference (the scatter of src/kernels/cpu/conv.cpp in double;
// |err| <= 1e-4 + 1e-4 |want|, every output written: y is poisoned with NaN first), then
// timed: median GPU time per dispatch from timestamp queries (--copies back-to-back copies
// per submit, so the clock stays up, x --reps submits), else wall time of submit + wait.
//
//   . scripts/env.sh; build/wick_kernel_bench_conv_transposed [--reps N] [--copies N] [--only SUBSTRING] [variant...]
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

// conv2d's Params (src/webgpu/ops/conv/register.cpp's ConvParams).
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
  uint32_t n, c, h, w, oc, kh, kw, s, pad, dil, out_pad, groups;
};

const Case kCases[] = {
    {"sam2 upscale1 256->64 k2s2 64x64", 1, 256, 64, 64, 64, 2, 2, 2, 0, 1, 0, 1},
    {"sam2 upscale2 64->32 k2s2 128x128", 1, 64, 128, 128, 32, 2, 2, 2, 0, 1, 0, 1},
    {"depth resize0 48->48 k4s4 37x37", 1, 48, 37, 37, 48, 4, 4, 4, 0, 1, 0, 1},
    {"depth resize1 96->96 k2s2 37x37", 1, 96, 37, 37, 96, 2, 2, 2, 0, 1, 0, 1},
    {"decoder 64->32 k3s2p1op1 64x64", 1, 64, 64, 64, 32, 3, 3, 2, 1, 1, 1, 1},
    {"gan 128->64 k4s2p1 32x32", 1, 128, 32, 32, 64, 4, 4, 2, 1, 1, 0, 1},
    {"odd b2 19->37 k2s2 13x11", 2, 19, 13, 11, 37, 2, 2, 2, 0, 1, 0, 1},
    {"odd 5->7 k3s3p1d2op2 9x13", 1, 5, 9, 13, 7, 3, 3, 3, 1, 2, 2, 1},
    {"odd g4 8->12 k3s2p1 10x7", 1, 8, 10, 7, 12, 3, 3, 2, 1, 1, 0, 4},
    {"odd 6->5 k1s3 7x6", 2, 6, 7, 6, 5, 1, 1, 3, 0, 1, 1, 1},
    {"odd 33->20 k5x3 s2 p2 15x17", 1, 33, 15, 17, 20, 5, 3, 2, 2, 1, 1, 1},
};

enum class Kind { kDirect, kGemm, kPhase };

struct Variant {
  int id;
  const char* file;
  Kind kind;
  uint32_t bn = 0;  // kGemm / kPhase: the BN override (columns per tile)
  bool shipped = false;  // a link to the shipped kernel (its own includes, no common.wgsl)
};
const Variant kVariants[] = {
    {1, "v1_direct.wgsl", Kind::kDirect},
    {2, "v2_gemm.wgsl", Kind::kGemm, 64, true},
    {3, "v2_gemm.wgsl", Kind::kGemm, 32, true},
    {4, "v4_gemm_lanes.wgsl", Kind::kGemm, 64},
    {5, "v3_phase.wgsl", Kind::kPhase, 64, true},
    {6, "v3_phase.wgsl", Kind::kPhase, 32, true},
    {7, "v5_phase_lanes.wgsl", Kind::kPhase, 64},
    {8, "v5_phase_lanes.wgsl", Kind::kPhase, 32},
};
constexpr uint32_t kBm = 64, kBk = 16;

uint32_t round_up(uint32_t v, uint32_t m) { return (v + m - 1) / m * m; }
uint32_t out_dim(const Case& k, uint32_t in, uint32_t kk) { return (in - 1) * k.s - 2 * k.pad + k.dil * (kk - 1) + k.out_pad + 1; }
bool gemm_shape(const Case& k) { return k.kh == k.s && k.kw == k.s && k.pad == 0 && k.dil == 1 && k.out_pad == 0 && k.groups == 1; }

// v2: w [in_c][out_c * kh * kw] -> [round_up(in_c, 16)][round_up(N, bn)], zeros in the padding.
std::vector<float> pack_gemm(const std::vector<float>& w, const Case& k, uint32_t bn) {
  const uint32_t nn = k.oc * k.kh * k.kw, np = round_up(nn, bn);
  std::vector<float> out(size_t{round_up(k.c, kBk)} * np, 0.f);
  for (uint32_t c = 0; c < k.c; ++c)
    for (uint32_t j = 0; j < nn; ++j) out[size_t{c} * np + j] = w[size_t{c} * nn + j];
  return out;
}

// v3: w [in_c][out_c/g][kh][kw] -> [g][kh][kw][round_up(in_c/g, 16)][round_up(out_c/g, bn)].
std::vector<float> pack_phase(const std::vector<float>& w, const Case& k, uint32_t bn) {
  const uint32_t cg = k.c / k.groups, og = k.oc / k.groups, cp = round_up(cg, kBk), np = round_up(og, bn);
  std::vector<float> out(size_t{k.groups} * k.kh * k.kw * cp * np, 0.f);
  for (uint32_t g = 0; g < k.groups; ++g)
    for (uint32_t c = 0; c < cg; ++c)
      for (uint32_t o = 0; o < og; ++o)
        for (uint32_t u = 0; u < k.kh; ++u)
          for (uint32_t v = 0; v < k.kw; ++v)
            out[(((size_t{g} * k.kh + u) * k.kw + v) * cp + c) * np + o] = w[((size_t{g * cg + c} * og + o) * k.kh + u) * k.kw + v];
  return out;
}

// The scatter of the CPU kernel (src/kernels/cpu/conv.cpp), in double.
std::vector<double> cpu_conv_transposed(const Case& k, uint32_t oh, uint32_t ow, const std::vector<float>& x,
                                        const std::vector<float>& w, const std::vector<float>& bias) {
  const uint32_t cg = k.c / k.groups, og = k.oc / k.groups;
  std::vector<double> y(size_t{k.n} * k.oc * oh * ow);
  for (uint32_t b = 0; b < k.n; ++b) {
    for (uint32_t o = 0; o < k.oc; ++o) std::fill_n(&y[(size_t{b} * k.oc + o) * oh * ow], size_t{oh} * ow, double(bias[o]));
    for (uint32_t ic = 0; ic < k.c; ++ic) {
      const uint32_t g = ic / cg;
      const float* xp = &x[(size_t{b} * k.c + ic) * k.h * k.w];
      for (uint32_t o = 0; o < og; ++o) {
        double* yp = &y[(size_t{b} * k.oc + g * og + o) * oh * ow];
        for (uint32_t u = 0; u < k.kh; ++u)
          for (uint32_t v = 0; v < k.kw; ++v) {
            const double wv = w[((size_t{ic} * og + o) * k.kh + u) * k.kw + v];
            for (uint32_t i = 0; i < k.h; ++i) {
              const int64_t oy = int64_t{i} * k.s - k.pad + int64_t{u} * k.dil;
              if (oy < 0 || oy >= oh) continue;
              for (uint32_t j = 0; j < k.w; ++j) {
                const int64_t ox = int64_t{j} * k.s - k.pad + int64_t{v} * k.dil;
                if (ox < 0 || ox >= ow) continue;
                yp[oy * ow + ox] += wv * xp[size_t{i} * k.w + j];
              }
            }
          }
      }
    }
  }
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10;
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
  const std::string common = read_variant("conv_transposed", "common.wgsl");
  bool gpu_timed = false;
  for (const Case& k : kCases) {
    if (!only.empty() && std::string(k.name).find(only) == std::string::npos) continue;
    const uint32_t oh = out_dim(k, k.h, k.kh), ow = out_dim(k, k.w, k.kw);
    const auto hx = random_floats(size_t{k.n} * k.c * k.h * k.w, 1);
    const auto hw = random_floats(size_t{k.c} * (k.oc / k.groups) * k.kh * k.kw, 2);
    const auto hb = random_floats(k.oc, 3);
    const auto ref = cpu_conv_transposed(k, oh, ow, hx, hw, hb);
    const size_t n = ref.size();
    auto dx = storage(dev, hx, "x"), dw = storage(dev, hw, "w"), db = storage(dev, hb, "b");
    auto dy = storage(dev, std::vector<float>(n), "y");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    Params p{};
    p.n = k.n, p.in_c = k.c, p.in_h = k.h, p.in_w = k.w, p.out_c = k.oc, p.out_h = oh, p.out_w = ow, p.groups = k.groups;
    p.k_h = k.kh, p.k_w = k.kw, p.stride_h = p.stride_w = k.s, p.pad_h = p.pad_w = k.pad, p.dil_h = p.dil_w = k.dil;
    p.total = static_cast<uint32_t>(n), p.has_bias = 1, p.clamp_min = -INFINITY, p.clamp_max = INFINITY;
    check(dp.write(&p, sizeof p), "params");
    // Useful FLOPs: every input pixel times every weight.
    const double gflop = 2.0 * k.n * k.h * k.w * k.c * (k.oc / k.groups) * k.kh * k.kw / 1e9;
    std::printf("\n%s -> %ux%u (%.4f GFLOP)\n", k.name, oh, ow, gflop);
    for (const Variant& v : kVariants) {
      if (!pick.empty() && std::find(pick.begin(), pick.end(), v.id) == pick.end()) continue;
      if (v.kind == Kind::kGemm && !gemm_shape(k)) continue;
      gpu::PipelineKey key("bench_convt_" + std::string(v.file));
      key.set("KH", k.kh).set("KW", k.kw).set("SH", k.s).set("SW", k.s).set("DH", k.dil).set("DW", k.dil);
      gpu::Buffer dwp;
      gpu::Dispatch d;
      if (v.kind == Kind::kDirect) {
        key.set("wg_size", 64u);
        const uint64_t groups = (n + 63) / 64;
        d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
        d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
      } else {
        key.set("BN", v.bn);
        if (v.kind == Kind::kGemm) {
          dwp = storage(dev, pack_gemm(hw, k, v.bn), "wT");
          d.x = (k.n * k.h * k.w + kBm - 1) / kBm;
          d.y = (k.oc * k.kh * k.kw + v.bn - 1) / v.bn;
        } else {
          dwp = storage(dev, pack_phase(hw, k, v.bn), "wr");
          const uint32_t qh = (oh + k.s - 1) / k.s, qw = (ow + k.s - 1) / k.s;  // phase 0's grid, the largest
          d.x = (k.n * qh * qw + kBm - 1) / kBm;
          d.y = k.groups * ((k.oc / k.groups + v.bn - 1) / v.bn);
          d.z = k.s * k.s;
        }
      }
      d.pipeline = take(cache.get(key, (v.shipped ? "" : common) + read_variant("conv_transposed", v.file)), v.file);
      d.bindings = {{0, &dx}, {1, v.kind == Kind::kDirect ? &dw : &dwp}, {2, &db}, {3, &dy}, {4, &dp}};
      gpu::CommandList list(dev);
      take(list.add(d), "add");
      check(dy.write(std::vector<float>(n, NAN).data(), n * 4), "clear");
      check(list.submit().status(), "run");
      const auto got = read_back(dy, n);
      bool ok = true;
      double err = 0;
      for (size_t i = 0; i < n; ++i) {
        const double e = std::fabs(double(got[i]) - ref[i]);
        if (!(e <= 1e-4 + 1e-4 * std::fabs(ref[i]))) ok = false;
        err = std::isnan(e) ? INFINITY : std::max(err, e);
        if (std::isinf(err)) break;
      }
      gpu::CommandList timed(dev);
      for (int c = 0; c < copies; ++c) take(timed.add(d), "add copy");
      const double wall = time_list(timed, reps) / copies;
      const double gpu_ms = time_list_gpu(timed, reps, 1);
      const double ms = gpu_ms > 0 ? gpu_ms : wall;
      gpu_timed = gpu_timed || gpu_ms > 0;
      char file[64];
      std::snprintf(file, sizeof file, "%s%s", v.file, v.bn ? (" BN" + std::to_string(v.bn)).c_str() : "");
      std::printf("  v%-3d %-24s max|err| %.2e %s %9.1f us %s %8.3f TFLOP/s  (wall %.1f us)\n", v.id, file, err,
                  ok ? "ok  " : "FAIL", ms * 1e3, gpu_ms > 0 ? "gpu " : "wall", gflop / (ms / 1e3) / 1e3, wall * 1e3);
    }
  }
  std::printf("\n(times: %s)\n", gpu_timed ? "GPU time from timestamp queries, median" : "wall time of submit + wait, median");
  return 0;
}
