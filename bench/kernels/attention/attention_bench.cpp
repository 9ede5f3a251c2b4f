// Flash-style attention variants (bench/kernels/attention/v*.wgsl) at ViT-S (6 heads x
// 1,370 tokens x 64), Whisper-base encoder (8 heads x 1,500 x 64) and SAM 2.1 Hiera-tiny
// (head dim 96: global 4 heads x 4,096 tokens, windows, pooled queries) sizes, plus odd and
// masked cases: out = softmax(q k^T * scale + mask) v per (batch, head). Checked against a
// CPU reference in double (a sample of query rows of the first and last head), then timed
// (GPU timestamps per dispatch, median of reps x 10 dispatches). v1-v4 read [BH, S, D]
// contiguous tensors; v5+ (strided views) read q, k, v and write out in the [B, S, H, D]
// layout the exports' linear layers produce (the permutes they would need are left out).
//
//   . scripts/env.sh; build/wick_kernel_bench_attention [--reps N] [--quick] [--case NAME]... [variant...]
#include <cstring>
#include <optional>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct Params {
  uint32_t bh, sq, skv, mask_mode;
  float scale;
  uint32_t pad0, pad1, pad2;
};

// v5+: every operand a strided [B, H, S, D] view (flash_attention.wgsl's Params).
struct StridedParams {
  uint32_t heads, sq, skv, mask_mode;
  float scale;
  uint32_t pad0, pad1, pad2;
  uint32_t q[4], k[4], v[4], o[4], m[4];  // offset, batch, head, row strides
  uint32_t q_sd, k_sd, v_sd, o_sd;
  uint32_t m_sj, pad3, pad4, pad5;
};

struct Case {
  const char* name;
  uint32_t bh, sq, skv, d;
  bool mask;
  bool large;
  uint32_t heads = 1;  // v5+: bh = batch * heads, tensors [batch, S, heads, D]
};

struct Variant {
  int id;
  const char* file;
  uint32_t bq, bkv;
  bool strided = false;
  uint32_t rs = 4;  // v5+: score rows per invocation
  bool shared_kp = false;  // v18+: the P tile in the K tile's shared memory (v5-v17: P_AT puts it beside)
  uint32_t kvs = 1;  // v23+: key splits into a partial buffer, then v23_flash_combine.wgsl (timed as the pair)
  bool prefetch = true;  // v18+: the shipped kernel's PREFETCH (v29, v30: off, the kernel before it)
  bool score_chain = false;  // v31, v32: the shipped kernel's SCORE_CHAIN (scores as one FMA chain each)
  bool row_max_sg = false;   // v33, v34: flash_attention_sg.wgsl (row maxima by subgroup shuffles)
  bool rows = false;         // v35+: flash_attention_rows.wgsl (a query row per invocation; BQ invocations)
  bool db = false;           // v43+: its DB (two K and V tiles: one barrier a tile)
};

const Case kCases[] = {
    {"odd      [2,77,64] x 77 keys", 2, 77, 77, 64, false, false, 2},
    {"cross    [2,100,64] x 333 keys + mask", 2, 100, 333, 64, true, false, 2},
    {"d32      [3,45,32] x 70 keys + mask", 3, 45, 70, 32, true, false, 3},
    {"d96      [2,49,96] x 51 keys", 2, 49, 51, 96, false, false, 1},
    {"vit-s    [6,1370,64]", 6, 1370, 1370, 64, false, true, 6},
    {"whisper  [8,1500,64]", 8, 1500, 1500, 64, false, true, 8},
    {"whisper  [8,1500,64] + mask", 8, 1500, 1500, 64, true, true, 8},
    // Whisper base's shape with fewer and more heads: 24 query tiles of 64 a head, so 5 / 6 /
    // 11 heads are 120 / 144 / 264 workgroups on the H100's 132 multiprocessors. The time's
    // step between 5 and 6 heads tells how many workgroups a multiprocessor runs at once
    // (one: 144 take two rounds; bench/kernels/occupancy/).
    {"whisper5 [5,1500,64]", 5, 1500, 1500, 64, false, true, 5},
    {"whisper6 [6,1500,64]", 6, 1500, 1500, 64, false, true, 6},
    {"whisper11 [11,1500,64]", 11, 1500, 1500, 64, false, true, 11},
    {"sam-glob [4,4096,96]", 4, 4096, 4096, 96, false, true, 4},
    {"sam-win  [256x2,64,96] (8x8 windows)", 512, 64, 64, 96, false, true, 2},
    {"sam-pool [64x1,49,96] x 196 keys", 64, 49, 196, 96, false, true, 1},
    {"sam-s1   [1024x1,64,96] (stage 1 windows)", 1024, 64, 64, 96, false, true, 1},
    {"sam-s3   [25x4,196,96] (stage 3 windows)", 100, 196, 196, 96, false, true, 4},
    {"sam-s4   [25x8,49,96] (stage 4 windows)", 200, 49, 49, 96, false, true, 8},
};

const Variant kVariants[] = {
    {1, "v1_flash_sg4.wgsl", 64, 32},
    {2, "v1_flash_sg4.wgsl", 32, 32},
    {3, "v1_flash_sg4.wgsl", 16, 32},
    {4, "v1_flash_sg4.wgsl", 32, 16},
    {5, "v5_fa2_blocked.wgsl", 64, 32, true},
    {6, "v5_fa2_blocked.wgsl", 32, 32, true},
    {7, "v5_fa2_blocked.wgsl", 64, 16, true},
    {8, "v5_fa2_blocked.wgsl", 16, 16, true},
    {9, "v5_fa2_blocked.wgsl", 32, 24, true},
    {10, "v5_fa2_blocked.wgsl", 64, 24, true},
    {11, "v5_fa2_blocked.wgsl", 32, 64, true},
    {12, "v5_fa2_blocked.wgsl", 64, 32, true, 8},
    {13, "v5_fa2_blocked.wgsl", 32, 32, true, 8},
    {14, "v5_fa2_blocked.wgsl", 64, 16, true, 8},
    {15, "v5_fa2_blocked.wgsl", 32, 24, true, 8},
    {16, "v5_fa2_blocked.wgsl", 64, 24, true, 8},
    {17, "v5_fa2_blocked.wgsl", 16, 24, true},
    // v18+: the shipped kernel (src/webgpu/ops/attention/flash_attention.wgsl, a link here).
    {18, "v18_flash_shipped.wgsl", 64, 32, true, 4, true},
    {19, "v18_flash_shipped.wgsl", 64, 24, true, 4, true},
    {20, "v18_flash_shipped.wgsl", 48, 32, true, 4, true},
    {21, "v18_flash_shipped.wgsl", 64, 48, true, 4, true},
    {22, "v18_flash_shipped.wgsl", 32, 48, true, 4, true},
    // v23+: the shipped kernel split over keys (GraphOptions::flash_splitkv): each of KVS
    // workgroups per query tile takes a share of the key tiles, flash_attention_combine merges.
    {23, "v18_flash_shipped.wgsl", 64, 32, true, 4, true, 2},
    {24, "v18_flash_shipped.wgsl", 64, 32, true, 4, true, 4},
    {25, "v18_flash_shipped.wgsl", 48, 32, true, 4, true, 2},
    {26, "v18_flash_shipped.wgsl", 48, 32, true, 4, true, 4},
    {27, "v18_flash_shipped.wgsl", 64, 32, true, 4, true, 8},
    {28, "v18_flash_shipped.wgsl", 48, 32, true, 4, true, 3},  // an odd count: pairs past a whole vec4
    // v29, v30: v18 and v23 without the prefetch of the next K and V tile into registers
    // (PREFETCH, 2026-12-05 evening): each tile's loads then wait at the top of its step.
    {29, "v18_flash_shipped.wgsl", 64, 32, true, 4, true, 1, false},
    {30, "v18_flash_shipped.wgsl", 64, 32, true, 4, true, 2, false},
    // v31, v32: v18 and v23 with SCORE_CHAIN (each score accumulated by one chain of FMAs,
    // 16 fewer adds per 64 FMAs of the score loop; 2026-12-05 evening, not yet timed).
    {31, "v18_flash_shipped.wgsl", 64, 32, true, 4, true, 1, true, true},
    {32, "v18_flash_shipped.wgsl", 64, 32, true, 4, true, 2, true, true},
    // v33, v34: v18 and v23 with the row maxima by subgroup shuffles (flash_attention_sg.wgsl,
    // a link here; GraphOptions::flash_subgroups) and P beside K: 3 barriers a key tile, not 4.
    // Only where the adapter's subgroups hold a row's BKV / 4 invocations.
    {33, "v33_flash_sg.wgsl", 64, 32, true, 4, false, 1, true, false, true},
    {34, "v33_flash_sg.wgsl", 64, 32, true, 4, false, 2, true, false, true},
    // v35+: flash_attention_rows.wgsl (a link here): one query row per invocation, q and the
    // output row in registers, K and V tiles only in shared memory (read as broadcasts), no
    // exchange between invocations: 2 barriers a tile. (BQ, BKV, KVS).
    {35, "v35_flash_rows.wgsl", 64, 32, true, 4, false, 1, true, false, false, true},
    {36, "v35_flash_rows.wgsl", 64, 32, true, 4, false, 2, true, false, false, true},
    {37, "v35_flash_rows.wgsl", 64, 32, true, 4, false, 3, true, false, false, true},
    {38, "v35_flash_rows.wgsl", 64, 32, true, 4, false, 4, true, false, false, true},
    {39, "v35_flash_rows.wgsl", 128, 32, true, 4, false, 2, true, false, false, true},
    {40, "v35_flash_rows.wgsl", 128, 32, true, 4, false, 4, true, false, false, true},
    {41, "v35_flash_rows.wgsl", 64, 16, true, 4, false, 2, true, false, false, true},
    {42, "v35_flash_rows.wgsl", 32, 32, true, 4, false, 4, true, false, false, true},
    // v43+: v35 with DB (the next K and V tile stored into a second pair while this one is
    // computed: one barrier a tile).
    {43, "v35_flash_rows.wgsl", 64, 32, true, 4, false, 2, true, false, false, true, true},
    {44, "v35_flash_rows.wgsl", 64, 32, true, 4, false, 3, true, false, false, true, true},
    {45, "v35_flash_rows.wgsl", 128, 32, true, 4, false, 2, true, false, false, true, true},
    // v46+: v31 (the shipped kernel, chain on, no key split) at smaller tiles, which take less
    // workgroup memory (36 KiB at (64, 32)) and so may run more workgroups per multiprocessor
    // (bench/kernels/occupancy/). (BQ, BKV): (48, 32) 31.7 KiB, 96 invocations; (32, 32) 26.8
    // KiB, 64; (64, 16) 27.1 KiB, 64; (32, 16) 17.7 KiB, 32; v50: (48, 32) with 2 key splits.
    {46, "v18_flash_shipped.wgsl", 48, 32, true, 4, true, 1, true, true},
    {47, "v18_flash_shipped.wgsl", 32, 32, true, 4, true, 1, true, true},
    {48, "v18_flash_shipped.wgsl", 64, 16, true, 4, true, 1, true, true},
    {49, "v18_flash_shipped.wgsl", 32, 16, true, 4, true, 1, true, true},
    {50, "v18_flash_shipped.wgsl", 48, 32, true, 4, true, 2, true, true},
    // v51+: the shipped kernel with RS 2 (2 score rows per invocation: 256 invocations at
    // (64, 32)). The occupancy probe found that a multiprocessor holds 48 KiB of workgroup
    // memory, so one (64, 32) workgroup at a time: RS 2 doubles its warps (8) in the same
    // memory. v51 / v52: 1 / 2 key splits; v53 / v54: the same with subgroup row maxima.
    {51, "v18_flash_shipped.wgsl", 64, 32, true, 2, true, 1, true, true},
    {52, "v18_flash_shipped.wgsl", 64, 32, true, 2, true, 2, true, true},
    {53, "v33_flash_sg.wgsl", 64, 32, true, 2, false, 1, true, true, true},
    {54, "v33_flash_sg.wgsl", 64, 32, true, 2, false, 2, true, true, true},
    // v71-v74 (2026-12-08): v31 / v32 and the shipped subgroup kernel with the chain (v75 /
    // v76: 1 / 2 splits; Whisper base's pick on the H100 is v76) on the body as it was before
    // 2026-12-08 (flash_attention_body_flat.inc.wgsl: tx, ty, oc, og from li by % and /, so
    // robustness clamps the score and P @ V loops' shared reads; the shipped body takes them
    // from lid and has no clamp there: bench/kernels/robustness/README.md).
    {71, "v71_flash_flat.wgsl", 64, 32, true, 4, true, 1, true, true},
    {72, "v71_flash_flat.wgsl", 64, 32, true, 4, true, 2, true, true},
    {73, "v73_flash_sg_flat.wgsl", 64, 32, true, 4, false, 1, true, true, true},
    {74, "v73_flash_sg_flat.wgsl", 64, 32, true, 4, false, 2, true, true, true},
    {75, "v33_flash_sg.wgsl", 64, 32, true, 4, false, 1, true, true, true},
    {76, "v33_flash_sg.wgsl", 64, 32, true, 4, false, 2, true, true, true},
};

// v5's constraints: 4 | BQ, BKV, D; the output phase's D / 4 columns divide the invocations
// (BQ / 4) * (BKV / 4) and leave at most 16 rows each; shared memory within the device's limit.
bool fits(const Variant& v, uint32_t d, uint32_t limit) {
  if (!v.strided) return d % 16 == 0 && d <= 64;
  if (v.rows) return d % 4 == 0 && d <= 64 && (v.db ? 4 : 2) * v.bkv * d * 4 <= limit;
  const uint32_t nt = v.bq / v.rs * (v.bkv / 4), d4 = d / 4;
  if (d % 4 || v.bq % v.rs || nt % d4 || v.bq % (nt / d4) || v.bq / (nt / d4) > 16) return false;
  const uint32_t k_tile = v.bkv * (d4 + 1), p_tile = v.bq * v.bkv / 4;
  const uint32_t floats = 4 * (v.bq * (d4 + 1) + (v.shared_kp ? std::max(k_tile, p_tile) : k_tile + p_tile) + v.bkv * d4) +
                          v.bq * v.bkv / 4 + v.bq;
  return floats * 4 <= limit;
}

std::vector<uint32_t> rows_to_check(const Case& c) {
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < c.sq; ++i)
    if (!c.large || i % 17 == 0 || i + 20 >= c.sq) rows.push_back(i);
  return rows;
}

// Row i of (batch-head) h of an [S, D] operand: [BH, S, D] or (bshd) [B, S, H, D].
size_t row_at(const Case& c, bool bshd, uint32_t h, uint32_t i, uint32_t s) {
  if (!bshd) return (size_t{h} * s + i) * c.d;
  return ((size_t{h / c.heads} * s + i) * c.heads + h % c.heads) * c.d;
}

std::vector<float> cpu_attention(const Case& c, const std::vector<float>& q, const std::vector<float>& k,
                                 const std::vector<float>& v, const std::vector<float>& mask, float scale, bool bshd) {
  std::vector<float> out(size_t{c.bh} * c.sq * c.d, NAN);
  std::vector<double> s(c.skv);
  for (uint32_t h = 0; h < c.bh; ++h) {
    if (c.large && h != 0 && h + 1 != c.bh) continue;
    for (uint32_t i : rows_to_check(c)) {
      const float* qr = &q[row_at(c, bshd, h, i, c.sq)];
      double mx = -1e300;
      for (uint32_t j = 0; j < c.skv; ++j) {
        const float* kr = &k[row_at(c, bshd, h, j, c.skv)];
        double acc = 0;
        for (uint32_t e = 0; e < c.d; ++e) acc += double(qr[e]) * kr[e];
        s[j] = acc * scale + (c.mask ? mask[size_t{i} * c.skv + j] : 0.0);
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (uint32_t j = 0; j < c.skv; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (uint32_t e = 0; e < c.d; ++e) {
        double acc = 0;
        for (uint32_t j = 0; j < c.skv; ++j) acc += s[j] * v[row_at(c, bshd, h, j, c.skv) + e];
        out[row_at(c, bshd, h, i, c.sq) + e] = static_cast<float>(acc / sum);
      }
    }
  }
  return out;
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x.empty() ? 0 : x[x.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool quick = false;
  std::vector<int> only;
  std::vector<std::string> cases;  // --case NAME: only the cases whose name contains NAME
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--case") && i + 1 < argc) cases.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else only.push_back(std::atoi(argv[i]));
  }
  auto dev = take(gpu::Device::create(), "device");
  const bool has_ts = dev->has_feature(gpu::Feature::kTimestampQuery);
  const bool has_sg = dev->has_feature(gpu::Feature::kSubgroups);
  const uint32_t smem = dev->limits().max_compute_workgroup_storage_size;
  std::printf("adapter: %s  subgroups: %s  workgroup storage: %u B\n", dev->adapter_info().summary().c_str(),
              has_sg ? "yes" : "no (v1-v4 left out)", smem);
  gpu::PipelineCache cache(dev);
  int failures = 0;
  for (const Case& c : kCases) {
    if (quick && c.large) continue;
    if (!cases.empty() && std::none_of(cases.begin(), cases.end(), [&](const std::string& n) {
          return std::string(c.name).find(n) != std::string::npos;
        }))
      continue;
    const size_t qn = size_t{c.bh} * c.sq * c.d, kn = size_t{c.bh} * c.skv * c.d;
    const auto hq = random_floats(qn, 1), hk = random_floats(kn, 2), hv = random_floats(kn, 3);
    const auto hm = random_floats(size_t{c.sq} * c.skv, 4, -3.f, 0.f);
    const float scale = 1.f / std::sqrt(float(c.d));
    std::vector<float> ref_plain, ref_bshd;  // computed when a variant needs them
    auto dq = storage(dev, hq, "q"), dk = storage(dev, hk, "k"), dv = storage(dev, hv, "v"), dm = storage(dev, hm, "mask");
    auto dout = storage(dev, std::vector<float>(qn), "out");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    Params p{c.bh, c.sq, c.skv, c.mask ? 1u : 0u, scale, 0, 0, 0};
    check(dp.write(&p, sizeof p), "params");
    // v5+: [B, S, H, D] operands, the mask [Sq, Skv] broadcast over batch and heads.
    auto dsp = take(gpu::Buffer::create_uniform(dev, sizeof(StridedParams), "params"), "params");
    {
      StridedParams sp{};
      sp.heads = c.heads, sp.sq = c.sq, sp.skv = c.skv, sp.mask_mode = c.mask ? 1u : 0u, sp.scale = scale;
      const uint32_t hd = c.heads * c.d;
      const uint32_t qs[4] = {0, c.sq * hd, c.d, hd}, ks[4] = {0, c.skv * hd, c.d, hd};
      std::memcpy(sp.q, qs, 16), std::memcpy(sp.o, qs, 16), std::memcpy(sp.k, ks, 16), std::memcpy(sp.v, ks, 16);
      const uint32_t ms[4] = {0, 0, 0, c.skv};
      std::memcpy(sp.m, ms, 16);
      sp.q_sd = sp.k_sd = sp.v_sd = sp.o_sd = sp.m_sj = 1;
      check(dsp.write(&sp, sizeof sp), "params");
    }
    // Scores and weighted sums: 4 * BH * Sq * Skv * D FLOP (the exponentials not counted).
    const double gflop = 4.0 * c.bh * c.sq * c.skv * c.d / 1e9;
    std::printf("\n%s  (%.3f GFLOP)\n", c.name, gflop);
    for (const Variant& v : kVariants) {
      if (!only.empty() && std::find(only.begin(), only.end(), v.id) == only.end()) continue;
      if ((!v.strided && !has_sg) || !fits(v, c.d, smem)) continue;
      if (v.row_max_sg && (!has_sg || dev->adapter_info().subgroup_min_size < v.bkv / 4)) continue;
      // v5-v17 link to the shipped kernel, whose RS became a constant (4) when its register
      // arrays were indexed by literals only (bench/kernels/robustness): the RS 8 rows are history.
      if (v.strided && v.rs != 4 && v.rs != 2) continue;
      std::vector<float>& ref = v.strided ? ref_bshd : ref_plain;
      if (ref.empty()) ref = cpu_attention(c, hq, hk, hv, hm, scale, v.strided);
      gpu::PipelineKey key(std::string("bench_attention_") + v.file);
      key.set("D", c.d).set("BQ", v.bq).set("BKV", v.bkv);
      if (v.strided && !v.shared_kp && !v.rows) key.set("P_AT", v.bkv * (c.d / 4 + 1));  // P beside the K tile
      if (v.kvs > 1) key.set("KVS", v.kvs);
      if (v.strided && !v.prefetch && !v.rows) key.set("PREFETCH", 0);
      if (v.score_chain) key.set("SCORE_CHAIN", 1);
      if (v.strided && !v.rows && v.rs == 2) key.set("RS", 2);
      if (v.db) key.set("DB", 1);
      auto pl = take(cache.get(key, read_variant("attention", v.file)), v.file);
      gpu::CommandList list(dev);
      gpu::Dispatch d;
      d.pipeline = pl;
      d.bindings = {{0, &dq}, {1, &dk}, {2, &dv}, {3, &dm}, {4, &dout}, {5, v.strided ? &dsp : &dp}};
      d.x = (c.sq + v.bq - 1) / v.bq, d.y = c.bh;
      // Key splits: the kernel writes each split's rows and (max, sum) pairs, the combine finishes out.
      const uint32_t per = v.kvs > 1 ? 2 : 1;  // dispatches per attention
      std::optional<gpu::Buffer> partial;
      gpu::Dispatch cd;
      if (v.kvs > 1) {
        // Whole vec4s: the combine reads the (max, sum) pairs as vec4s.
        partial = storage(dev, std::vector<float>((size_t{v.kvs} * c.bh * c.sq * (c.d + 2) + 3) / 4 * 4), "partial");
        d.bindings[4] = {4, &*partial};
        d.z = v.kvs;
        gpu::PipelineKey ckey("bench_attention_v23_flash_combine.wgsl");
        ckey.set("D", c.d).set("KVS", v.kvs).set("wg_size", 256);
        cd.pipeline = take(cache.get(ckey, read_variant("attention", "v23_flash_combine.wgsl")), "combine");
        cd.bindings = {{0, &*partial}, {1, &dout}, {2, &dsp}};
        cd.x = (c.sq * (c.d / 4) + 255) / 256, cd.y = c.bh;
      }
      auto add_attention = [&]() {
        take(list.add(d), "add");
        if (v.kvs > 1) take(list.add(cd), "add combine");
      };
      add_attention();
      check(dout.write(std::vector<float>(qn, NAN).data(), qn * 4), "clear");
      check(list.submit().status(), "run");
      const auto got = read_back(dout, qn);
      double err = 0;
      bool all_written = true;
      for (size_t i = 0; i < qn; ++i) {
        if (std::isnan(got[i])) all_written = false;
        if (!std::isnan(ref[i])) err = std::max(err, std::fabs(double(got[i]) - ref[i]));
      }
      const bool ok = all_written && err < 1e-4;
      failures += !ok;
      for (int i = 1; i < 10; ++i) add_attention();
      // Warm-up for 100 ms, not one submit: the H100 call of 2026-12-05 night timed the first
      // two variants of the first large case 5x slow (ViT-S v18 976 us, v29 after them 203 us,
      // the same pipeline at Whisper's shape 377 us), clocks still ramping up.
      warm_up(list);
      std::vector<double> gpu_us, wall_us;
      for (int r = 0; r < reps; ++r) {
        auto stats = take(list.submit({.timestamps = has_ts}), "submit");
        append_group_sums(stats.gpu_ns, per, 1e3, gpu_us);
        auto start = Clock::now();
        check(list.submit().status(), "submit");
        wall_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() / 10);
      }
      const double t = has_ts ? median(gpu_us) : median(wall_us);
      std::printf("  v%-2d %-20s BQ %2u BKV %2u RS %u KVS %u%s%s  max|err| %.1e %s  gpu %9.1f us  wall %9.1f us  %6.2f TFLOP/s\n", v.id,
                  v.file, v.bq, v.bkv, v.strided && !v.rows ? v.rs : 0, v.kvs, v.strided && !v.prefetch ? " no-prefetch" : "",
                  v.score_chain ? " fma-chain" : v.db ? " db" : "", err, ok ? "ok  " : (all_written ? "FAIL" : "FAIL(unwritten)"),
                  has_ts ? median(gpu_us) : 0.0, median(wall_us), gflop / t * 1e3);
    }
  }
  std::printf("\n%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
