// Matmul variants (bench/kernels/matmul/v*.wgsl) on the attention and linear shapes of the
// demo fixtures and of real-size models (ViT-S of Depth Anything V2 Small: 1,370 tokens x
// 384; Whisper base: 1,500 positions x 512), plus a 4096^3 probe:
// c[b] = a[b] @ op(b[b]) (+ bias), op = transpose for linear weights. Each variant is
// checked against a CPU reference (double accumulation; all rows, or a sample of rows and
// the last tile's rows for the large cases), then timed: GPU time per dispatch from
// timestamp queries (median over reps x 10 dispatches) where the adapter has them, and the
// wall time of submit+wait of 10 dispatches / 10.
//
//   . scripts/env.sh; build/wick_kernel_bench_matmul [--reps N] [--quick | --large]
//       [--cases SUBSTRING] [variant-number...]
// --quick: the small cases only (SwiftShader); --large: the real-size cases only.
#include <cstring>
#include <optional>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct Params {
  uint32_t m, n, k, batch;
  uint32_t a_bs, b_bs, c_bs, bias_mode;
  uint32_t bias_rs, bias_cs, epi, res_mode;  // epi, res_mode: the shipped kernels' epilogue (0: none)
  float alpha, beta, pad2, pad3;
  float epi_a[4];
};

struct Case {
  const char* name;
  uint32_t batch, m, k, n;
  bool trans_b;
  bool bias;   // bias [N] (a linear's)
  bool large;  // real-size: skipped by --quick
};

struct Override {
  const char* name;
  double value;
};

struct Variant {
  int id;
  const char* file;
  uint32_t tm, tn;      // output tile per workgroup
  uint32_t max_n;       // 0: any N; else only cases with N <= max_n
  bool vec4;            // needs K % 4 == 0 and N % 4 == 0
  std::vector<Override> overrides;
  uint32_t smem_bytes;  // workgroup storage it needs (skipped where the limit is lower)
  bool shipped = false;  // a shipped kernel (a link into src/webgpu): bindings 5-6 of its epilogue too
  uint32_t ks = 1;       // split-K: KS splits into a partial buffer, then v35_shipped_splitk_reduce.wgsl
};

// The attention products of demos/whisper_tiny_encoder (4 heads of 16), a Whisper-base-size
// head (64), a linear and odd sizes (quick); then the real-size linears (with bias) and
// attention products, and the 4096^3 probe (large).
const Case kCases[] = {
    {"whisper qk^T [4,1500,16]x[4,16,1500]", 4, 1500, 16, 1500, false, false, false},
    {"whisper pv   [4,1500,1500]x[4,1500,16]", 4, 1500, 1500, 16, false, false, false},
    {"base qk^T    [1,1500,64]x[1,64,1500]", 1, 1500, 64, 1500, false, false, false},
    {"base pv      [1,1500,1500]x[1,1500,64]", 1, 1500, 1500, 64, false, false, false},
    {"linear       [1500,64]x[256,64]^T", 1, 1500, 64, 256, true, false, false},
    {"odd          [3,77,33]x[3,33,45]", 3, 77, 33, 45, false, false, false},
    {"odd linear   [77,33]x[45,33]^T", 1, 77, 33, 45, true, false, false},
    {"edge linear  [131,68]x[132,68]^T+b", 1, 131, 68, 132, true, true, false},
    {"edge mm      [2,200,36]x[2,36,260]", 2, 200, 36, 260, false, false, false},
    {"vit qkv      [1370,384]x[1152,384]^T+b", 1, 1370, 384, 1152, true, true, true},
    {"vit proj     [1370,384]x[384,384]^T+b", 1, 1370, 384, 384, true, true, true},
    {"vit fc1      [1370,384]x[1536,384]^T+b", 1, 1370, 384, 1536, true, true, true},
    {"vit fc2      [1370,1536]x[384,1536]^T+b", 1, 1370, 1536, 384, true, true, true},
    {"whisper q    [1500,512]x[512,512]^T+b", 1, 1500, 512, 512, true, true, true},
    {"whisper qkv  [1500,512]x[1536,512]^T+b", 1, 1500, 512, 1536, true, true, true},  // joined (qkv_fusion.h)
    {"whisper fc1  [1500,512]x[2048,512]^T+b", 1, 1500, 512, 2048, true, true, true},
    {"whisper fc2  [1500,2048]x[512,2048]^T+b", 1, 1500, 2048, 512, true, true, true},
    {"vit qk^T     [6,1370,64]x[6,64,1370]", 6, 1370, 64, 1370, false, false, true},
    {"vit pv       [6,1370,1370]x[6,1370,64]", 6, 1370, 1370, 64, false, false, true},
    {"base qk^T    [8,1500,64]x[8,64,1500]", 8, 1500, 64, 1500, false, false, true},
    {"base pv      [8,1500,1500]x[8,1500,64]", 8, 1500, 1500, 64, false, false, true},
    {"probe mm     [4096,4096]x[4096,4096]", 1, 4096, 4096, 4096, false, false, true},
    {"probe linear [4096,4096]x[4096,4096]^T", 1, 4096, 4096, 4096, true, false, true},
};

// v8-v12: one shader (v8_tiled_vec4_db.wgsl) at several tiles; v13-v14 its scalar-load
// twin for any K and N.
const Variant kVariants[] = {
    {1, "v1_tiled64_smem.wgsl", 64, 64, 0, false, {}, 8192},
    {2, "v2_direct.wgsl", 32, 32, 0, false, {{"wg_x", 8}, {"wg_y", 8}}, 0},
    {3, "v3_tiled64_rb8.wgsl", 64, 64, 0, false, {}, 8192},
    {4, "v2_direct.wgsl", 64, 16, 16, false, {{"wg_x", 4}, {"wg_y", 16}}, 0},
    {5, "v5_direct_unrolled.wgsl", 32, 32, 0, false, {{"wg_x", 8}, {"wg_y", 8}}, 0},
    {6, "v5_direct_unrolled.wgsl", 64, 16, 16, false, {{"wg_x", 4}, {"wg_y", 16}}, 0},
    {7, "v5_direct_unrolled.wgsl", 64, 64, 0, false, {{"wg_x", 16}, {"wg_y", 16}}, 0},
    {8, "v8_tiled_vec4_db.wgsl", 128, 128, 0, true, {{"BM", 128}, {"BN", 128}, {"BK", 8}, {"RM", 8}, {"RN", 8}}, 16384},
    {9, "v8_tiled_vec4_db.wgsl", 128, 128, 0, true, {{"BM", 128}, {"BN", 128}, {"BK", 16}, {"RM", 8}, {"RN", 8}}, 32768},
    {10, "v8_tiled_vec4_db.wgsl", 128, 64, 0, true, {{"BM", 128}, {"BN", 64}, {"BK", 16}, {"RM", 8}, {"RN", 8}}, 24576},
    {11, "v8_tiled_vec4_db.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 8}, {"RN", 4}}, 16384},
    {12, "v8_tiled_vec4_db.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}}, 16384},
    {13, "v13_tiled_scalar_db.wgsl", 128, 128, 0, false, {{"BM", 128}, {"BN", 128}, {"BK", 8}, {"RM", 8}, {"RN", 8}}, 16384},
    {14, "v13_tiled_scalar_db.wgsl", 64, 64, 0, false, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 8}, {"RN", 4}}, 16384},
    {15, "v8_tiled_vec4_db.wgsl", 128, 64, 0, true, {{"BM", 128}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 8}}, 12288},
    {16, "v13_tiled_scalar_db.wgsl", 128, 64, 0, false, {{"BM", 128}, {"BN", 64}, {"BK", 16}, {"RM", 8}, {"RN", 8}}, 24576},
    // v31: v15 with the FMA block by literal indices (v8's fma_literal; the robustness candidate, README).
    {31, "v8_tiled_vec4_db.wgsl", 128, 64, 0, true, {{"BM", 128}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 8}, {"fma_literal", 1}}, 12288},
    // v32-v34: the shipped matmul_large_vec4.wgsl (epilogue store included) at register.cpp's
    // three tiles, so that a kernel change shows here before it shows in a model.
    {32, "v32_shipped_large_vec4.wgsl", 128, 128, 0, true, {{"BM", 128}, {"BN", 128}, {"BK", 8}, {"RM", 8}, {"RN", 8}}, 16384, true},
    {33, "v32_shipped_large_vec4.wgsl", 128, 64, 0, true, {{"BM", 128}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 8}}, 12288, true},
    {34, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}}, 16384, true},
    // v35-v37: v34 split over K (register.cpp's split-K: KS splits of the K tiles store raw
    // sums, then matmul_splitk_reduce adds them and applies the bias); timed as the pair.
    {35, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}, {"KS", 2}}, 16384, true, 2},
    {36, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}, {"KS", 4}}, 16384, true, 4},
    {37, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}, {"KS", 8}}, 16384, true, 8},
    // v38-v45: the shipped kernel at tiles of at most 12 KiB (a multiprocessor holds 48 KiB of
    // workgroup memory under Dawn on NVIDIA, bench/kernels/occupancy: 8 KiB tiles run 6 at
    // once, 12 KiB 4, 16 KiB 3). Some have fewer vec4s in a K tile than threads (the partial
    // share of matmul_large_vec4_body.inc.wgsl).
    {38, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"RM", 4}, {"RN", 4}}, 8192, true},
    {39, "v32_shipped_large_vec4.wgsl", 128, 64, 0, true, {{"BM", 128}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 4}}, 12288, true},
    {40, "v32_shipped_large_vec4.wgsl", 128, 128, 0, true, {{"BM", 128}, {"BN", 128}, {"BK", 4}, {"RM", 8}, {"RN", 8}}, 8192, true},
    {41, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 4}}, 8192, true},
    {42, "v32_shipped_large_vec4.wgsl", 64, 128, 0, true, {{"BM", 64}, {"BN", 128}, {"BK", 8}, {"RM", 4}, {"RN", 8}}, 12288, true},
    {43, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"RM", 4}, {"RN", 4}, {"KS", 2}}, 8192, true, 2},
    {44, "v32_shipped_large_vec4.wgsl", 32, 64, 0, true, {{"BM", 32}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}}, 12288, true},
    {45, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"RM", 4}, {"RN", 4}, {"KS", 4}}, 8192, true, 4},
    // v46-v48 (2026-12-07 late): 8x8 a thread in 64-row tiles (16 FMAs per shared vec4 pair,
    // v41's 8x4 has 10.7): 64x64 / BK 8 (64 invocations, 8 KiB), 64x128 / BK 8 (128, 12 KiB),
    // 64x64 / BK 4 (64, 4 KiB).
    {46, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 8}}, 8192, true},
    {47, "v32_shipped_large_vec4.wgsl", 64, 128, 0, true, {{"BM", 64}, {"BN", 128}, {"BK", 8}, {"RM", 8}, {"RN", 8}}, 12288, true},
    {48, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 4}, {"RM", 8}, {"RN", 8}}, 4096, true},
    // v49-v51: one shared buffer (NBUF 1, two barriers a K step), twice the workgroups a
    // multiprocessor: v49 v34's tile (8 KiB), v50 v41's (4 KiB), v51 64x64 / BK 32, 4x4 (16 KiB).
    {49, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}, {"NBUF", 1}}, 8192, true},
    {50, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 4}, {"NBUF", 1}}, 4096, true},
    {51, "v32_shipped_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"RM", 4}, {"RN", 4}, {"NBUF", 1}}, 16384, true},
    // v52-v55 (2026-12-07 night): the warp's shape (matmul_large_tile.inc.wgsl's WARP_ROWS): 32
    // consecutive invocations as 4 rows of 8 threads instead of lid's 2 of 16, so that a K
    // step's vec4 reads of the B tile touch 8 addresses (one shared-memory wavefront) instead
    // of 16 (two): v52 v34's tile, v53 v41's, v54 v32's (128x128, 8x8); v55 v34's as 8 rows
    // of 4 (B one wavefront, A 8 addresses: one).
    {52, "v60_flat_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}, {"WARP_ROWS", 4}}, 16384, true},
    {53, "v60_flat_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 4}, {"WARP_ROWS", 4}}, 8192, true},
    {54, "v60_flat_large_vec4.wgsl", 128, 128, 0, true, {{"BM", 128}, {"BN", 128}, {"BK", 8}, {"RM", 8}, {"RN", 8}, {"WARP_ROWS", 4}}, 16384, true},
    {55, "v60_flat_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}, {"WARP_ROWS", 8}}, 16384, true},
    // (v52-v55 run on the tile as it was, v60's file, since 2026-12-08: the shipped one reads
    // lid's layout only.) v60 / v61 (2026-12-08): v34's / v41's tile as it was before
    // 2026-12-08, the K step's shared reads at a run-time buffer base that Dawn's robustness
    // clamps; the shipped tile's indices are proven in bounds, no clamp
    // (bench/kernels/robustness/README.md, "Indices Tint can bound").
    {60, "v60_flat_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 16}, {"RM", 4}, {"RN", 4}}, 16384, true},
    {61, "v60_flat_large_vec4.wgsl", 64, 64, 0, true, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"RM", 8}, {"RN", 4}}, 8192, true},
};

constexpr int kPerList = 10;  // dispatches per timed list

// Rows of batch `bi` the check covers: all of them for small cases; else every 13th row
// and the last 40 (the partial tile), in the first and the last batch.
std::vector<uint32_t> rows_to_check(const Case& c, uint32_t bi) {
  std::vector<uint32_t> rows;
  const bool all = double(c.batch) * c.m * c.n * c.k <= 3e8;
  if (!all && bi != 0 && bi + 1 != c.batch) return rows;
  for (uint32_t i = 0; i < c.m; ++i)
    if (all || i % 13 == 0 || i + 40 >= c.m) rows.push_back(i);
  return rows;
}

// Reference values at the checked rows (NaN elsewhere: not compared).
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

// Relative L2 error over the checked elements; infinity if any checked output is NaN.
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

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool quick = false, large = false;
  std::string filter;
  std::vector<int> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--large")) large = true;
    else if (!std::strcmp(argv[i], "--cases") && i + 1 < argc) filter = argv[++i];
    else only.push_back(std::atoi(argv[i]));
  }
  auto dev = take(gpu::Device::create(), "device");
  const bool has_ts = dev->has_feature(gpu::Feature::kTimestampQuery);
  std::printf("adapter: %s  timestamps: %s  subgroups: %s (%u-%u)  workgroup storage: %u B\n",
              dev->adapter_info().summary().c_str(), has_ts ? "yes" : "no",
              dev->has_feature(gpu::Feature::kSubgroups) ? "yes" : "no", dev->adapter_info().subgroup_min_size,
              dev->adapter_info().subgroup_max_size, dev->limits().max_compute_workgroup_storage_size);
  gpu::PipelineCache cache(dev);
  int failures = 0;
  for (const Case& c : kCases) {
    if ((quick && c.large) || (large && !c.large)) continue;
    if (!filter.empty() && std::string(c.name).find(filter) == std::string::npos) continue;
    const size_t an = size_t{c.batch} * c.m * c.k, bn = size_t{c.trans_b ? 1 : c.batch} * c.k * c.n;
    const auto ha = random_floats(an, 1), hb = random_floats(bn, 2), hbias = random_floats(c.n, 3);
    const auto ref = cpu_matmul(c, ha, hb, hbias);
    auto da = storage(dev, ha, "a"), db = storage(dev, hb, "b"), dbias = storage(dev, hbias, "bias");
    auto dc = storage(dev, std::vector<float>(ref.size()), "c");
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
      if (v.max_n && c.n > v.max_n) continue;
      if (v.vec4 && (c.k % 4 || c.n % 4)) continue;
      if (v.smem_bytes > dev->limits().max_compute_workgroup_storage_size) {
        std::printf("  v%-2d skipped: needs %u B of workgroup storage\n", v.id, v.smem_bytes);
        continue;
      }
      gpu::PipelineKey key(std::string("bench_matmul_") + v.file);
      key.set("trans_b", c.trans_b ? 1 : 0);
      for (const Override& o : v.overrides) key.set(o.name, o.value);
      auto pl = take(cache.get(key, read_variant("matmul", v.file)), v.file);
      gpu::CommandList list(dev);
      gpu::Dispatch d;
      d.pipeline = pl;
      d.bindings = {{0, &da}, {1, &db}, {2, c.bias ? &dbias : &db}, {3, &dc}, {4, &dp}};
      if (v.shipped) d.bindings.insert(d.bindings.end(), {{5, &db}, {6, &db}});  // unread: epi = 0
      d.x = (c.n + v.tn - 1) / v.tn, d.y = (c.m + v.tm - 1) / v.tm, d.z = c.batch;
      // Split-K: the matmul writes KS partial sums per output, the reduce finishes c.
      const uint32_t per = v.ks > 1 ? 2 : 1;  // dispatches per product
      std::optional<gpu::Buffer> partial;
      gpu::Dispatch r;
      if (v.ks > 1) {
        partial = storage(dev, std::vector<float>(size_t{v.ks} * ref.size()), "partial");
        d.bindings[3] = {3, &*partial};
        d.z = c.batch * v.ks;
        gpu::PipelineKey rkey("bench_matmul_v35_shipped_splitk_reduce.wgsl");
        rkey.set("KS", v.ks).set("wg_size", 256);
        r.pipeline = take(cache.get(rkey, read_variant("matmul", "v35_shipped_splitk_reduce.wgsl")), "reduce");
        r.bindings = {{0, &*partial}, {2, c.bias ? &dbias : &db}, {3, &dc}, {4, &dp}, {5, &db}, {6, &db}};
        r.x = static_cast<uint32_t>((ref.size() / 4 + 255) / 256), r.y = 1, r.z = 1;
      }
      auto add_product = [&]() {
        take(list.add(d), "add");
        if (v.ks > 1) take(list.add(r), "add reduce");
      };
      add_product();
      check(dc.write(std::vector<float>(ref.size(), NAN).data(), ref.size() * 4), "clear");
      check(list.submit().status(), "run");
      // Every output written (NaN poison gone) and the checked ones right.
      const auto got = read_back(dc, ref.size());
      const bool all_written = std::none_of(got.begin(), got.end(), [](float x) { return std::isnan(x); });
      const double err = rel_error(got, ref);
      const bool ok = all_written && err < 1e-5;
      failures += !ok;
      for (int i = 1; i < kPerList; ++i) add_product();
      check(list.submit().status(), "warm-up");
      std::vector<double> gpu_us, wall_us;
      for (int r = 0; r < reps; ++r) {
        auto stats = take(list.submit({.timestamps = has_ts}), "submit");
        append_group_sums(stats.gpu_ns, per, 1e3, gpu_us);
        auto start = Clock::now();
        check(list.submit().status(), "submit");
        wall_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kPerList);
      }
      const double t = has_ts ? median(gpu_us) : median(wall_us);
      std::printf("  v%-2d %-26s tile %3ux%-3u rel.err %.1e %s  gpu %9.1f us  wall %9.1f us  %7.2f TFLOP/s\n", v.id,
                  v.file, v.tm, v.tn, err, ok ? "ok  " : (all_written ? "FAIL" : "FAIL(unwritten)"),
                  has_ts ? median(gpu_us) : 0.0, median(wall_us), gflop / t * 1e3);  // 1 GFLOP/us = 1000 TFLOP/s
    }
  }
  std::printf("\n%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
