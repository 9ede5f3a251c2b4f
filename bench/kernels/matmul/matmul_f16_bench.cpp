// f16 matmul variants (issue 11: f16 paths where shader-f16 exists): c = a @ op(b) (+ bias)
// with a in f32 (activations) and b in f16 (linear weights, converted once on the host) or
// f32 (bmm's second activation), f32 accumulation and output.
//   v17-v19, v21: v17_sgmat_f16.wgsl on subgroup matrices (Dawn's experimental
//     chromium-experimental-subgroup-matrix; tensor cores), tiles below;
//   v20, v22: v20_tiled_vec4_f16b.wgsl, the f32 SIMT kernel v8 reading f16 weights;
//   v23-v25: v23_tiled_vec4_f16w.wgsl, the same with the f16 weights packed two to a u32 and
//     widened by unpack2x16float: no shader-f16 needed (runs on SwiftShader and the H200);
//   v26-v29: v26_tiled_vec4_f16math.wgsl, f16 arithmetic (shader-f16): a rounded to f16 in the
//     tile loader, f16 shared tiles, f16 products summed in f16 within a K tile and in f32
//     across tiles; v30: the same f16 tiles with f32 products and sums;
//   v12, v15: the shipped f32 kernel (v8_tiled_vec4_db.wgsl) on f32 b, for the ratio.
// Checked against two CPU references (double accumulation): of the f16-rounded inputs the
// kernel sees (both operands for subgroup matrices, the weights for the others: the
// kernel's own arithmetic; relative L2 error < 1e-4 allows for f32 sums in another order;
// v26-v29, whose sums within a K tile are rounded to f16 too: < 2e-3) and of the f32 inputs
// (what the f16 path costs in accuracy against the f32 path; reported, and < 5e-3, about 4x
// the f16 rounding of uniform [-1, 1) inputs).
//
//   . scripts/env.sh; build/wick_kernel_bench_matmul_f16 [--reps N] [--cases SUBSTRING]
//       [--quick] [--null] [variant-number...]
// --null: on Dawn's Null backend (every feature, runs nothing): builds every pipeline, which
// checks the WGSL where no adapter has subgroup matrices (SwiftShader).
#include <cstring>
#include <regex>

#include "../harness.h"
#include "core/dtype.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct Params {
  uint32_t m, n, k, batch;
  uint32_t a_bs, b_bs, c_bs, bias_mode;
  uint32_t bias_rs, bias_cs, pad0, pad1;
  float alpha, beta, pad2, pad3;
};

struct Case {
  const char* name;
  uint32_t batch, m, k, n;
  bool trans_b;  // b is [N, K]: a linear's weight, stored as f16; else b is f32 [K, N]
  bool bias;
  bool large;  // skipped by --quick
};

enum class Kind { kSgmat, kSimtF16b, kPackedF16w, kF16Math, kF16Tiles, kF32 };

struct Variant {
  int id;
  Kind kind;
  const char* file;
  uint32_t bm, bn, bk;
  uint32_t wgm, wgn;   // sgmat: subgroups along M and N
  uint32_t rm, rn;     // SIMT: outputs per thread
};

// Real-size linears (Depth Anything V2 S ViT-S: 1,370 tokens x 384; Whisper base: 1,500 x
// 512), attention products with K and N multiples of 4, the 4096^3 probe, and edge tiles.
const Case kCases[] = {
    {"edge linear  [131,68]x[132,68]^T+b", 1, 131, 68, 132, true, true, false},
    {"odd linear   [77,36]x[44,36]^T", 1, 77, 36, 44, true, false, false},
    {"edge mm      [2,200,36]x[2,36,260]", 2, 200, 36, 260, false, false, false},
    {"vit qkv      [1370,384]x[1152,384]^T+b", 1, 1370, 384, 1152, true, true, true},
    {"vit proj     [1370,384]x[384,384]^T+b", 1, 1370, 384, 384, true, true, true},
    {"vit fc1      [1370,384]x[1536,384]^T+b", 1, 1370, 384, 1536, true, true, true},
    {"vit fc2      [1370,1536]x[384,1536]^T+b", 1, 1370, 1536, 384, true, true, true},
    {"whisper q    [1500,512]x[512,512]^T+b", 1, 1500, 512, 512, true, true, true},
    {"whisper fc1  [1500,512]x[2048,512]^T+b", 1, 1500, 512, 2048, true, true, true},
    {"whisper fc2  [1500,2048]x[512,2048]^T+b", 1, 1500, 2048, 512, true, true, true},
    {"base qk^T    [8,1500,64]x[8,64,1500]", 8, 1500, 64, 1500, false, false, true},
    {"base pv      [8,1500,1500]x[8,1500,64]", 8, 1500, 1500, 64, false, false, true},
    {"probe linear [4096,4096]x[4096,4096]^T", 1, 4096, 4096, 4096, true, false, true},
};

const Variant kVariants[] = {
    {17, Kind::kSgmat, "v17_sgmat_f16.wgsl", 128, 128, 32, 4, 2, 0, 0},
    {18, Kind::kSgmat, "v17_sgmat_f16.wgsl", 64, 64, 32, 2, 2, 0, 0},
    {19, Kind::kSgmat, "v17_sgmat_f16.wgsl", 128, 64, 32, 4, 2, 0, 0},
    {21, Kind::kSgmat, "v17_sgmat_f16.wgsl", 128, 128, 16, 4, 2, 0, 0},
    {20, Kind::kSimtF16b, "v20_tiled_vec4_f16b.wgsl", 128, 64, 8, 0, 0, 8, 8},
    {22, Kind::kSimtF16b, "v20_tiled_vec4_f16b.wgsl", 64, 64, 16, 0, 0, 4, 4},
    {23, Kind::kPackedF16w, "v23_tiled_vec4_f16w.wgsl", 128, 64, 8, 0, 0, 8, 8},
    {24, Kind::kPackedF16w, "v23_tiled_vec4_f16w.wgsl", 64, 64, 16, 0, 0, 4, 4},
    {25, Kind::kPackedF16w, "v23_tiled_vec4_f16w.wgsl", 128, 128, 8, 0, 0, 8, 8},
    {26, Kind::kF16Math, "v26_tiled_vec4_f16math.wgsl", 128, 64, 8, 0, 0, 8, 8},
    {27, Kind::kF16Math, "v26_tiled_vec4_f16math.wgsl", 64, 64, 16, 0, 0, 4, 4},
    {28, Kind::kF16Math, "v26_tiled_vec4_f16math.wgsl", 128, 128, 8, 0, 0, 8, 8},
    {29, Kind::kF16Math, "v26_tiled_vec4_f16math.wgsl", 128, 64, 16, 0, 0, 8, 8},
    {30, Kind::kF16Tiles, "v26_tiled_vec4_f16math.wgsl", 128, 64, 8, 0, 0, 8, 8},
    {15, Kind::kF32, "v8_tiled_vec4_db.wgsl", 128, 64, 8, 0, 0, 8, 8},
    {12, Kind::kF32, "v8_tiled_vec4_db.wgsl", 64, 64, 16, 0, 0, 4, 4},
};

constexpr int kPerList = 10;

std::string set_const(std::string src, const std::string& name, const std::string& value) {
  const std::regex re("const " + name + ": u32 = [0-9]+u;");
  if (!std::regex_search(src, re)) {
    std::fprintf(stderr, "error: no const %s in the shader\n", name.c_str());
    std::exit(1);
  }
  return std::regex_replace(src, re, "const " + name + ": u32 = " + value + "u;");
}

std::vector<uint32_t> rows_to_check(const Case& c, uint32_t bi) {
  std::vector<uint32_t> rows;
  const bool all = double(c.batch) * c.m * c.n * c.k <= 3e8;
  if (!all && bi != 0 && bi + 1 != c.batch) return rows;
  const uint32_t stride = std::max<uint32_t>(13, c.m / 300);  // the 4096 probe: every 13th row is slow
  for (uint32_t i = 0; i < c.m; ++i)
    if (all || i % stride == 0 || i + 40 >= c.m) rows.push_back(i);
  return rows;
}

std::vector<float> cpu_matmul(const Case& c, const std::vector<float>& a, const std::vector<float>& b,
                              const std::vector<float>& bias) {
  std::vector<float> out(size_t{c.batch} * c.m * c.n, NAN);
  std::vector<double> row(c.n);
  for (uint32_t bi = 0; bi < c.batch; ++bi) {
    const float* A = a.data() + size_t{bi} * c.m * c.k;
    const float* B = b.data() + (c.trans_b ? 0 : size_t{bi} * c.k * c.n);
    for (uint32_t i : rows_to_check(c, bi)) {
      for (uint32_t j = 0; j < c.n; ++j) row[j] = c.bias ? bias[j] : 0.0;
      for (uint32_t kk = 0; kk < c.k; ++kk) {
        const double av = A[size_t{i} * c.k + kk];
        for (uint32_t j = 0; j < c.n; ++j)
          row[j] += av * (c.trans_b ? B[size_t{j} * c.k + kk] : B[size_t{kk} * c.n + j]);
      }
      for (uint32_t j = 0; j < c.n; ++j) out[(size_t{bi} * c.m + i) * c.n + j] = static_cast<float>(row[j]);
    }
  }
  return out;
}

double rel_error(const std::vector<float>& got, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(ref[i])) continue;
    if (std::isnan(got[i])) return INFINITY;
    const double d = double(got[i]) - ref[i];
    num += d * d;
    den += double(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<float> round_f16(const std::vector<float>& v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = half_to_float(float_to_half(v[i]));
  return out;
}

// Two f16 values to a u32, the first in the low half (unpack2x16float's order).
gpu::Buffer storage_f16(const std::shared_ptr<gpu::Device>& dev, const std::vector<float>& data, const char* label) {
  std::vector<uint16_t> h(data.size());
  for (size_t i = 0; i < data.size(); ++i) h[i] = float_to_half(data[i]);
  auto b = take(gpu::Buffer::create_storage(dev, std::max<uint64_t>(16, (h.size() * 2 + 15) / 16 * 16), label), label);
  h.resize((h.size() + 7) / 8 * 8, 0);
  check(b.write(h.data(), h.size() * 2), label);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::string filter;
  std::vector<int> only;
  bool null_backend = false;
  bool quick = false;  // --quick: the small cases only (SwiftShader)  // --null: Dawn's Null backend builds every pipeline, runs none
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--cases") && i + 1 < argc) filter = argv[++i];
    else if (!std::strcmp(argv[i], "--null")) null_backend = true;
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else only.push_back(std::atoi(argv[i]));
  }
  gpu::DeviceOptions opts;
  opts.request_subgroup_matrix = true;
  if (null_backend) opts.backend = gpu::Backend::kNull, opts.allow_null_backend = true;
  auto dev = take(gpu::Device::create(opts), "device");
  const auto& ai = dev->adapter_info();
  const bool has_ts = dev->has_feature(gpu::Feature::kTimestampQuery);
  const bool has_f16 = dev->has_feature(gpu::Feature::kShaderF16);
  const bool has_sg = dev->has_feature(gpu::Feature::kSubgroups);
  const bool has_sgm = dev->has_feature(gpu::Feature::kSubgroupMatrix);
  std::printf("adapter: %s\n  timestamps: %s  shader-f16: %s  subgroups: %s (%u-%u)  subgroup-matrix: %s  "
              "workgroup storage: %u B\n  features:",
              ai.summary().c_str(), has_ts ? "yes" : "no", has_f16 ? "yes" : "no", has_sg ? "yes" : "no",
              ai.subgroup_min_size, ai.subgroup_max_size, has_sgm ? "yes" : "no",
              dev->limits().max_compute_workgroup_storage_size);
  for (const auto& f : dev->feature_names()) std::printf(" %s", f.c_str());
  std::printf("\n  subgroup-matrix configs:");
  const gpu::AdapterInfo::SubgroupMatrixConfig* cfg = nullptr;
  for (const auto& c : ai.subgroup_matrix_configs) {
    std::printf(" [%s x %s -> %s, M %u N %u K %u]", c.component.c_str(), c.component.c_str(), c.result.c_str(), c.m,
                c.n, c.k);
    if (!cfg && c.component == "f16" && c.result == "f32") cfg = &c;
  }
  std::printf("\n");
  // The Null backend lists no shapes: build with NVIDIA's 16x16x16 (a stand-in).
  static const gpu::AdapterInfo::SubgroupMatrixConfig kNullConfig{"f16", "f32", 16, 16, 16};
  if (null_backend && !cfg) cfg = &kNullConfig;
  if (!has_f16) std::printf("no shader-f16: only the packed-f16-weight and f32 variants run\n");
  const uint32_t sg_size = null_backend ? 32 : ai.subgroup_max_size;  // the kernel assumes one fixed size
  gpu::PipelineCache cache(dev);
  int failures = 0;
  for (const Case& c : kCases) {
    if (!filter.empty() && std::string(c.name).find(filter) == std::string::npos) continue;
    if (quick && c.large) continue;
    const size_t an = size_t{c.batch} * c.m * c.k, bn = size_t{c.trans_b ? 1 : c.batch} * c.k * c.n;
    const auto ha = random_floats(an, 1), hb = random_floats(bn, 2), hbias = random_floats(c.n, 3);
    const auto ref32 = cpu_matmul(c, ha, hb, hbias);
    const auto ref16 = cpu_matmul(c, round_f16(ha), round_f16(hb), hbias);  // subgroup matrices: both f16
    const auto refw = c.trans_b ? cpu_matmul(c, ha, round_f16(hb), hbias) : ref32;  // f16 weights only
    auto da = storage(dev, ha, "a"), db32 = storage(dev, hb, "b"), dbias = storage(dev, hbias, "bias");
    auto db16 = storage_f16(dev, hb, "b16");
    auto dc = storage(dev, std::vector<float>(ref32.size()), "c");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    Params p{};
    p.m = c.m, p.n = c.n, p.k = c.k, p.batch = c.batch;
    p.a_bs = c.m * c.k, p.b_bs = c.trans_b ? 0 : c.k * c.n, p.c_bs = c.m * c.n;
    p.alpha = 1, p.beta = 1;
    if (c.bias) p.bias_mode = 1, p.bias_rs = 0, p.bias_cs = 1;
    check(dp.write(&p, sizeof p), "params");
    const double gflop = 2.0 * c.batch * c.m * c.n * c.k / 1e9;
    std::printf("\n%s  (%.3f GFLOP)\n", c.name, gflop);
    for (const Variant& v : kVariants) {
      if (!only.empty() && std::find(only.begin(), only.end(), v.id) == only.end()) continue;
      if (c.k % 4 || c.n % 4) continue;
      const bool f16_arith = v.kind == Kind::kF16Math || v.kind == Kind::kF16Tiles;  // a rounded to f16 too
      if ((v.kind == Kind::kSimtF16b || v.kind == Kind::kPackedF16w || f16_arith) && !c.trans_b) continue;  // weights only
      if ((v.kind == Kind::kSimtF16b || v.kind == Kind::kSgmat || f16_arith) && !has_f16) continue;
      std::string src = read_variant("matmul", v.file);
      gpu::PipelineKey key(std::string("bench_mmf16_") + std::to_string(v.id) + (c.trans_b ? "_f16b" : "_f32b"));
      key.set("trans_b", c.trans_b ? 1 : 0);
      const bool f16_inputs = v.kind != Kind::kF32;
      if (v.kind == Kind::kSgmat) {
        if (!has_sgm || !cfg || !has_sg) continue;
        const uint32_t fm = v.bm / (v.wgm * cfg->m), fn = v.bn / (v.wgn * cfg->n);
        if (fm * v.wgm * cfg->m != v.bm || fn * v.wgn * cfg->n != v.bn || v.bk % cfg->k || !fm || !fn) {
          std::printf("  v%-2d skipped: tile %ux%u does not fit the matrix shape\n", v.id, v.bm, v.bn);
          continue;
        }
        src = set_const(src, "SM", std::to_string(cfg->m));
        src = set_const(src, "SN", std::to_string(cfg->n));
        src = set_const(src, "SK", std::to_string(cfg->k));
        src = set_const(src, "FM", std::to_string(fm));
        src = set_const(src, "FN", std::to_string(fn));
        src = set_const(src, "WGM", std::to_string(v.wgm));
        src = set_const(src, "WGN", std::to_string(v.wgn));
        src = set_const(src, "BK", std::to_string(v.bk));
        src = set_const(src, "SG", std::to_string(sg_size));
        if (!c.trans_b) src = std::regex_replace(src, std::regex("alias BT = f16;"), "alias BT = f32;");
      } else {
        key.set("BM", v.bm).set("BN", v.bn).set("BK", v.bk).set("RM", v.rm).set("RN", v.rn);
        if (f16_arith) key.set("f16_math", v.kind == Kind::kF16Math ? 1 : 0);
      }
      auto pl_r = cache.get(key, src);
      if (!pl_r.ok()) {
        std::printf("  v%-2d %-26s FAILED to build: %s\n", v.id, v.file, pl_r.status().to_string().c_str());
        ++failures;
        continue;
      }
      auto pl = std::move(pl_r).value();
      if (null_backend) {
        std::printf("  v%-2d %-26s built\n", v.id, v.file);
        continue;
      }
      gpu::Buffer* b_buf = (f16_inputs && c.trans_b) ? &db16 : &db32;  // same bytes for both f16 layouts
      gpu::CommandList list(dev);
      gpu::Dispatch d;
      d.pipeline = pl;
      d.bindings = {{0, &da}, {1, b_buf}, {2, c.bias ? &dbias : &db32}, {3, &dc}, {4, &dp}};
      d.x = (c.n + v.bn - 1) / v.bn, d.y = (c.m + v.bm - 1) / v.bm, d.z = c.batch;
      take(list.add(d), "add");
      check(dc.write(std::vector<float>(ref32.size(), NAN).data(), ref32.size() * 4), "clear");
      auto st = list.submit();
      if (!st.ok()) {
        std::printf("  v%-2d %-26s FAILED to run: %s\n", v.id, v.file, st.status().to_string().c_str());
        ++failures;
        continue;
      }
      const auto got = read_back(dc, ref32.size());
      const bool all_written = std::none_of(got.begin(), got.end(), [](float x) { return std::isnan(x); });
      // f16 variants: their own arithmetic against ref16, the cost of f16 against ref32.
      const double err_own =
          rel_error(got, v.kind == Kind::kSgmat || f16_arith ? ref16 : f16_inputs ? refw : ref32);
      const double err32 = rel_error(got, ref32);
      const bool ok = all_written && err_own < (v.kind == Kind::kF16Math ? 2e-3 : 1e-4) && err32 < 5e-3;
      failures += !ok;
      for (int i = 1; i < kPerList; ++i) take(list.add(d), "add");
      check(list.submit().status(), "warm-up");
      std::vector<double> gpu_us, wall_us;
      for (int r = 0; r < reps; ++r) {
        auto stats = take(list.submit({.timestamps = has_ts}), "submit");
        for (uint64_t ns : stats.gpu_ns) gpu_us.push_back(ns / 1e3);
        auto start = Clock::now();
        check(list.submit().status(), "submit");
        wall_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kPerList);
      }
      const double t = has_ts ? median(gpu_us) : median(wall_us);
      std::printf("  v%-2d %-26s tile %3ux%-3u BK %2u  err(own) %.1e err(vs f32) %.1e %s  gpu %9.1f us  wall %9.1f us  "
                  "%7.2f TFLOP/s\n",
                  v.id, v.file, v.bm, v.bn, v.bk, err_own, err32, ok ? "ok  " : (all_written ? "FAIL" : "FAIL(unwritten)"),
                  has_ts ? median(gpu_us) : 0.0, median(wall_us), gflop / t * 1e3);
      std::fflush(stdout);
    }
  }
  std::printf("\n%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
