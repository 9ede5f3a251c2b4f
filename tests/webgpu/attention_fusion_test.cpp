// webgpu/attention_fusion.h: eager attention as the exports write it (linear outputs
// [B, S, H*D] viewed and permuted to heads, bmm(q, k^T), a scalar multiply, an optional
// additive mask, softmax, bmm with v, permuted back) becomes one flash_attention dispatch
// that matches a double-precision reference (1e-5 absolute on O(1) values) and the unfused
// ops (WICK_FLASH_ATTENTION=0's path); the score matrix then takes no memory. Shapes are
// random with odd lengths (partial query and key tiles), Sq != Skv, head dims 32 and 64.
// A graph whose scores are read elsewhere, or whose head dim is above the default bound, keeps its ops.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gpu/gpu_test_util.h"
#include "gpu/device.h"
#include "single_op.h"
#include "webgpu/attention_fusion.h"
#include "webgpu/gpu_multiprocessors.h"
#include "webgpu/ops/attention/flash_splitkv.h"

namespace wick {
namespace {

struct Shape {
  int64_t b, h, sq, skv, d;
  int mask = 0;  // 0 none, 1 [Sq, Skv], 2 [B, 1, Sq, Skv]
  bool prescaled = false;  // q and k^T each multiplied by sqrt(scale) (SDPA's math), no scale after
  bool scores_read_elsewhere = false;
  int splits = 0;  // GraphOptions::flash_splitkv for the fused run (n >= 2: n key splits)
  bool prefetch = true;  // GraphOptions::flash_prefetch
  bool score_chain = true;   // GraphOptions::flash_score_chain
  bool subgroups = true;     // GraphOptions::flash_subgroups (where the adapter's subgroups hold a row)
  uint32_t tile_bq = 0, tile_bkv = 0;  // GraphOptions::flash_tile_* (0: the kernel's first tile that fits)
  uint32_t score_rows = 4;             // GraphOptions::flash_score_rows
};

struct Built {
  test::VkGraphBuilder b;
  std::vector<Value> inputs;
  Tensor xq, xk, xv, mask;
  double scale;
};

void build(const Shape& s, Built& g, uint32_t seed) {
  auto& b = g.b;
  const int64_t hd = s.h * s.d, bh = s.b * s.h;
  constexpr int kPlanned = 0;  // every intermediate in the memory plan
  std::mt19937 rng(seed);
  g.xq = test::random_tensor(ScalarType::kFloat, {s.b, s.sq, hd}, rng, -1, 1);
  g.xk = test::random_tensor(ScalarType::kFloat, {s.b, s.skv, hd}, rng, -1, 1);
  g.xv = test::random_tensor(ScalarType::kFloat, {s.b, s.skv, hd}, rng, -1, 1);
  const int xq = b.input(ScalarType::kFloat, {s.b, s.sq, hd}), xk = b.input(ScalarType::kFloat, {s.b, s.skv, hd}),
            xv = b.input(ScalarType::kFloat, {s.b, s.skv, hd});
  g.inputs = {Value::make_tensor(g.xq), Value::make_tensor(g.xk), Value::make_tensor(g.xv)};
  auto t = [&](std::vector<int64_t> shape) { return b.tensor(ScalarType::kFloat, std::move(shape), kPlanned); };
  auto view = [&](int x, std::vector<int64_t> shape) {
    const int y = t(shape);
    b.op("aten.view_copy.default", {x, b.int_list(shape), y});
    return y;
  };
  auto perm = [&](int x, std::vector<int64_t> out_shape, std::vector<int64_t> p) {
    const int y = t(out_shape);
    b.op("aten.permute_copy.default", {x, b.int_list(p), y});
    return y;
  };
  g.scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  auto scalar_const = [&](double v) {
    Tensor c = Tensor::make_owned(ScalarType::kFloat, {});
    c.data_as<float>()[0] = static_cast<float>(v);
    return b.constant(c);
  };
  // Heads: [B, S, H*D] -> [B, S, H, D] -> [B, H, S, D].
  int q = perm(view(xq, {s.b, s.sq, s.h, s.d}), {s.b, s.h, s.sq, s.d}, {0, 2, 1, 3});
  int k = perm(view(xk, {s.b, s.skv, s.h, s.d}), {s.b, s.h, s.skv, s.d}, {0, 2, 1, 3});
  const int v = perm(view(xv, {s.b, s.skv, s.h, s.d}), {s.b, s.h, s.skv, s.d}, {0, 2, 1, 3});
  int kt = perm(k, {s.b, s.h, s.d, s.skv}, {0, 1, 3, 2});
  if (s.prescaled) {
    const double r = std::sqrt(g.scale);
    const int qs = t({s.b, s.h, s.sq, s.d}), ks = t({s.b, s.h, s.d, s.skv});
    b.op("aten.mul.Tensor", {q, scalar_const(r), qs});
    b.op("aten.mul.Tensor", {kt, scalar_const(r), ks});
    q = qs, kt = ks;
  }
  const int scores = t({bh, s.sq, s.skv});
  b.op("aten.bmm.default", {view(q, {bh, s.sq, s.d}), view(kt, {bh, s.d, s.skv}), scores});
  int x = view(scores, {s.b, s.h, s.sq, s.skv});
  if (!s.prescaled) {
    const int y = t({s.b, s.h, s.sq, s.skv});
    b.op("aten.mul.Tensor", {x, scalar_const(g.scale), y});
    x = y;
  }
  if (s.mask) {
    const std::vector<int64_t> ms = s.mask == 1 ? std::vector<int64_t>{s.sq, s.skv} : std::vector<int64_t>{s.b, 1, s.sq, s.skv};
    g.mask = test::random_tensor(ScalarType::kFloat, ms, rng, -4, 0);
    const int m = b.input(ScalarType::kFloat, ms);
    g.inputs.push_back(Value::make_tensor(g.mask));
    const int y = t({s.b, s.h, s.sq, s.skv});
    b.op("aten.add.Tensor", {x, m, b.int_value(1), y});
    x = y;
  }
  const int p = t({s.b, s.h, s.sq, s.skv});
  b.op("aten._softmax.default", {x, b.int_value(-1), b.bool_value(false), p});
  const int o = t({bh, s.sq, s.d});
  b.op("aten.bmm.default", {view(p, {bh, s.sq, s.skv}), view(v, {bh, s.skv, s.d}), o});
  const int out = view(perm(view(o, {s.b, s.h, s.sq, s.d}), {s.b, s.sq, s.h, s.d}, {0, 2, 1, 3}), {s.b, s.sq, hd});
  b.output(out);
  if (s.scores_read_elsewhere) b.output(p);
}

// out[b, i, h * D + e] in double.
std::vector<double> reference(const Shape& s, const Built& g) {
  const int64_t hd = s.h * s.d;
  std::vector<double> out(static_cast<size_t>(s.b * s.sq * hd));
  std::vector<double> w(static_cast<size_t>(s.skv));
  const float *q = g.xq.data_as<float>(), *k = g.xk.data_as<float>(), *v = g.xv.data_as<float>();
  for (int64_t b = 0; b < s.b; ++b)
    for (int64_t h = 0; h < s.h; ++h)
      for (int64_t i = 0; i < s.sq; ++i) {
        double mx = -1e300;
        for (int64_t j = 0; j < s.skv; ++j) {
          double acc = 0;
          for (int64_t e = 0; e < s.d; ++e) acc += double(q[(b * s.sq + i) * hd + h * s.d + e]) * k[(b * s.skv + j) * hd + h * s.d + e];
          acc *= g.scale;
          if (s.mask == 1) acc += g.mask.data_as<float>()[i * s.skv + j];
          if (s.mask == 2) acc += g.mask.data_as<float>()[(b * s.sq + i) * s.skv + j];
          w[static_cast<size_t>(j)] = acc;
          mx = std::max(mx, acc);
        }
        double sum = 0;
        for (double& x : w) sum += (x = std::exp(x - mx));
        for (int64_t e = 0; e < s.d; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < s.skv; ++j) acc += w[static_cast<size_t>(j)] * v[(b * s.skv + j) * hd + h * s.d + e];
          out[static_cast<size_t>((b * s.sq + i) * hd + h * s.d + e)] = acc / sum;
        }
      }
  return out;
}

// Runs the graph fused and unfused; both match the reference. Returns the dispatch counts
// (fused, unfused) and the planned activation bytes (fused, unfused).
struct Runs {
  size_t fused_dispatches, unfused_dispatches;
  uint64_t fused_bytes, unfused_bytes;
  size_t combines;  // flash_attention_combine dispatches of the fused run
  size_t subgroup_kernels;  // flash_attention_sg dispatches of the fused run
};
Runs check(const Shape& s, uint32_t seed) {
  Runs r{};
  std::vector<double> want;
  for (bool flash : {true, false}) {
    Built g;
    build(s, g, seed);
    if (want.empty()) want = reference(s, g);
    g.b.flash_attention = flash;
    g.b.flash_splitkv = flash ? s.splits : 0;
    g.b.flash_prefetch = s.prefetch;
    g.b.flash_score_chain = s.score_chain;
    g.b.flash_subgroups = s.subgroups;
    g.b.flash_tile_bq = s.tile_bq, g.b.flash_tile_bkv = s.tile_bkv;
    g.b.flash_score_rows = s.score_rows;
    g.b.profile = flash;
    g.b.gpu_kernels = true;
    auto outs = g.b.run(g.inputs);
    EXPECT_TRUE(outs.ok()) << outs.status().to_string();
    if (!outs.ok()) return r;
    const Tensor& out = (*outs)[0].tensor;
    EXPECT_EQ(out.sizes, (std::vector<int64_t>{s.b, s.sq, s.h * s.d}));
    double err = 0;
    for (int64_t i = 0; i < out.numel(); ++i)
      err = std::max(err, std::fabs(out.data_as<float>()[i] - want[static_cast<size_t>(i)]));
    EXPECT_LT(err, 1e-5) << (flash ? "fused" : "unfused") << " B" << s.b << " H" << s.h << " Sq" << s.sq << " Skv" << s.skv
                         << " D" << s.d << " mask " << s.mask << " splits " << s.splits;
    (flash ? r.fused_dispatches : r.unfused_dispatches) = g.b.dispatches;
    (flash ? r.fused_bytes : r.unfused_bytes) = g.b.planned_bytes;
    if (flash) r.combines = test::count_kernel(g.b.kernels, "flash_attention_combine");
    if (flash) r.subgroup_kernels = test::count_kernel(g.b.kernels, "flash_attention_sg");
  }
  return r;
}

TEST(AttentionFusion, OneDispatchMatchesReferenceAndUnfused) {
  // Random odd lengths: partial query and key tiles, Sq != Skv, masks of both layouts.
  std::mt19937 rng(11);
  // Head dims 64 and 32 only: each is a pipeline SwiftShader takes seconds to compile (96,
  // SAM's, is checked by bench/kernels/attention on SwiftShader and the H200).
  const int64_t dims[] = {64, 32, 64};
  for (int c = 0; c < 3; ++c) {
    Shape s;
    s.b = 1 + static_cast<int64_t>(rng() % 2);
    s.h = 1 + static_cast<int64_t>(rng() % 3);
    s.sq = 5 + static_cast<int64_t>(rng() % 70);
    s.skv = c == 0 ? s.sq : 3 + static_cast<int64_t>(rng() % 90);
    s.d = dims[c % 3];
    s.mask = c % 3;
    const Runs r = check(s, 100 + static_cast<uint32_t>(c));
    // One attention dispatch and the output's staging copy; the q/k/v permutes are gone too.
    EXPECT_EQ(r.fused_dispatches, 2u) << "case " << c;
    EXPECT_GT(r.unfused_dispatches, 6u);
    // The score matrix (and the copies' outputs) take no memory.
    EXPECT_LE(r.fused_bytes + static_cast<uint64_t>(s.b * s.h * s.sq * s.skv) * 4, r.unfused_bytes) << "case " << c;
  }
}

TEST(AttentionFusion, PrescaledQueriesAndKeys) {
  Shape s{1, 2, 33, 41, 32};
  s.prescaled = true;
  const Runs r = check(s, 7);
  EXPECT_EQ(r.fused_dispatches, 2u);
}

TEST(AttentionFusion, HeadDimAboveTheDefaultBoundIsLeftAlone) {
  // GraphOptions::flash_attention_max_head_dim (64): head dim 96 keeps its ops.
  const Runs r = check(Shape{1, 1, 9, 11, 96}, 5);
  EXPECT_EQ(r.fused_dispatches, r.unfused_dispatches);
}

TEST(AttentionFusion, ScoresReadElsewhereKeepTheOps) {
  Shape s{1, 2, 17, 17, 32};
  s.scores_read_elsewhere = true;
  const Runs r = check(s, 9);
  EXPECT_EQ(r.fused_dispatches, r.unfused_dispatches);
}

TEST(AttentionFusion, KeySplitsMatchReference) {
  // GraphOptions::flash_splitkv forced: each split takes its share of the key tiles (32 keys
  // a tile here) and flash_attention_combine merges them. 150 keys are 5 tiles: 4 splits of
  // 2, 2, 1 and none (a split with no keys adds nothing); 3 splits of 200 keys leave a short
  // last tile and an odd count of (max, sum) pairs (the partial buffer is padded to whole
  // vec4s, which the combine reads: on SwiftShader an unpadded one gave errors of 1e-2);
  // masks of both layouts; prescaled q and k.
  const Shape cases[] = {{1, 2, 37, 150, 64, 1, false, false, 4},
                         {2, 1, 70, 70, 32, 2, false, false, 2},
                         {1, 3, 5, 200, 64, 0, false, false, 3},
                         {2, 2, 33, 97, 32, 0, true, false, 2}};
  uint32_t seed = 40;
  for (const Shape& s : cases) {
    const Runs r = check(s, seed++);
    // The split dispatch, the combine and the output's staging copy.
    EXPECT_EQ(r.combines, 1u) << "Skv " << s.skv << " splits " << s.splits;
    EXPECT_EQ(r.fused_dispatches, 3u) << "Skv " << s.skv << " splits " << s.splits;
  }
  // Fewer key tiles than splits: as many splits as tiles (2 of 64 keys), still merged.
  EXPECT_EQ(check(Shape{1, 1, 20, 64, 32, 0, false, false, 8}, 50).combines, 1u);
  // One key tile: nothing to split, the plain kernel.
  EXPECT_EQ(check(Shape{1, 1, 20, 30, 32, 0, false, false, 4}, 51).combines, 0u);
}

TEST(AttentionFusion, KernelOptionsMatchReference) {
  // The kernel's switches against the reference: GraphOptions::flash_prefetch off (each
  // tile's K and V loaded at the top of its step, the kernel before the prefetch; every other
  // test runs with it), alone and with flash_score_chain off (each score a dot product per
  // vec4 of head dim, then an add: the kernel before the chain; every other test runs with
  // the chain), and both on. A mask and a partial last tile at head dim 64; 3 key splits (one
  // short) at head dim 32.
  for (const bool prefetch : {false, true}) {
    Shape plain{1, 2, 37, 150, 64, 1};
    Shape split{1, 3, 5, 200, 32, 0, false, false, 3};
    plain.prefetch = split.prefetch = prefetch;
    plain.score_chain = split.score_chain = prefetch;  // both off, or both on
    EXPECT_EQ(check(plain, 60).fused_dispatches, 2u) << "prefetch " << prefetch;
    EXPECT_EQ(check(split, 61).combines, 1u) << "prefetch " << prefetch;
  }
}

TEST(AttentionFusion, AskedTilesMatchReference) {
  // GraphOptions::flash_tile_* (WICK_FLASH_TILE): the smaller tiles the occupancy question
  // asks about (bench/kernels/attention v46, v48). The asked tile is taken where it fits
  // (both fit 32 KiB, SwiftShader's and lavapipe's limit), a tile the kernel does not have or
  // that does not fit is not, and each run with it matches the reference (a mask, partial
  // last query and key tiles, 2 key splits; head dim 32, whose pipelines SwiftShader
  // compiles faster).
  WICK_GPU_DEVICE_OR_FAIL(device);
  const auto& lim = device->limits();
  const uint32_t smem = lim.max_compute_workgroup_storage_size, inv = lim.max_compute_invocations_per_workgroup;
  const auto first = webgpu::flash_attention_tile(64, smem, inv);
  EXPECT_EQ(webgpu::flash_attention_tile(64, smem, inv, 40, 32), first) << "not one of the kernel's tiles";
  EXPECT_EQ(webgpu::flash_attention_tile(64, 16384, inv, 64, 32), webgpu::flash_attention_tile(64, 16384, inv))
      << "(64, 32) needs 36 KiB";
  for (const auto& [bq, bkv] : {std::pair{48u, 32u}, {64u, 16u}}) {
    EXPECT_EQ(webgpu::flash_attention_tile(64, smem, inv, bq, bkv), std::pair(bq, bkv));
    EXPECT_EQ(webgpu::flash_attention_tile(32, smem, inv, bq, bkv), std::pair(bq, bkv));
    Shape s{1, 2, 101, 150, 32, 1, false, false, 2};
    s.tile_bq = bq, s.tile_bkv = bkv;
    EXPECT_EQ(check(s, 80 + bq + bkv).combines, 1u) << bq << "x" << bkv;
  }
}

TEST(AttentionFusion, TilesWhoseKeyColumnsDivideTheHeadDim) {
  // The kernel's workgroup is (TXS, D4 / TXS, NG) invocations (TXS = BKV / 4, D4 = head dim /
  // 4), so that its hot loops index shared memory from lid's components, which robustness
  // leaves unclamped: only tiles whose TXS divides D4. At 48 KiB and 256 invocations (the
  // H100's): (64, 24) is refused at head dim 64 (TXS 6, D4 16) and taken at 96 (D4 24), where
  // (64, 32) does not fit; head dim 8 (D4 2, which every tile's invocations divided before)
  // has no such tile now and runs unfused; 48 (D4 12) takes (64, 24).
  EXPECT_EQ(webgpu::flash_attention_tile(64, 49152, 256, 64, 24), std::pair(64u, 32u));
  EXPECT_EQ(webgpu::flash_attention_tile(96, 49152, 256), std::pair(64u, 24u));
  EXPECT_FALSE(webgpu::attention_tile_fits(8, 49152, 256));
  EXPECT_EQ(webgpu::flash_attention_tile(48, 49152, 256), std::pair(64u, 24u));
  // Head dim 48 at (64, 24) runs: a workgroup of (6, 2, 8), the one layout here whose TXS is
  // not a power of two and whose score rows span two values of lid.y, fused in one dispatch
  // and matching the reference (a mask, partial tiles).
  WICK_GPU_DEVICE_OR_FAIL(device);
  const auto& lim = device->limits();
  ASSERT_EQ(webgpu::flash_attention_tile(48, lim.max_compute_workgroup_storage_size,
                                         lim.max_compute_invocations_per_workgroup),
            std::pair(64u, 24u));
  Shape s{1, 2, 70, 53, 48, 1};
  EXPECT_EQ(check(s, 48).fused_dispatches, 2u);
}

TEST(AttentionFusion, TwoScoreRowsMatchReference) {
  // GraphOptions::flash_score_rows = 2 (WICK_FLASH_RS=2; the kernel's RS): at head dim 32
  // the default tile takes it on every adapter (64, 32): 256 invocations), and the fused run
  // matches the reference with a mask, partial tiles and 3 key splits (one short). Where RS
  // 2's invocations would pass the device's limit (256 at (64, 32), given a limit of 128) it
  // stays at 4.
  WICK_GPU_DEVICE_OR_FAIL(device);
  const auto& lim = device->limits();
  const uint32_t smem = lim.max_compute_workgroup_storage_size, inv = lim.max_compute_invocations_per_workgroup;
  EXPECT_EQ(webgpu::flash_attention_score_rows(32, smem, inv, 2), 2u);
  EXPECT_EQ(webgpu::flash_attention_score_rows(32, smem, inv, 4), 4u);
  EXPECT_EQ(webgpu::flash_attention_tile(32, smem, 128), std::pair(64u, 32u));
  EXPECT_EQ(webgpu::flash_attention_score_rows(32, smem, 128, 2), 4u);
  Shape split{1, 3, 37, 200, 32, 1, false, false, 3};
  split.score_rows = 2;
  EXPECT_EQ(check(split, 91).combines, 1u);
}

TEST(AttentionFusion, SubgroupRowMaxMatchesReference) {
  // GraphOptions::flash_subgroups: the row maxima by subgroup shuffles (flash_attention_sg.wgsl,
  // P beside K) wherever the adapter's subgroups hold a row's 8 invocations (tiles of 32 keys)
  // and the tile fits the shared memory with P beside K (at head dim 32 on every adapter: 26
  // KiB at (64, 32); head dim 64 needs more than the CPU drivers' 32 KiB): lavapipe (8 lanes)
  // runs it, SwiftShader (4) keeps the shared-memory kernel. A mask and a partial last tile;
  // 3 key splits; prescaled q and k.
  WICK_GPU_DEVICE_OR_FAIL(device);
  const bool runs_sg = device->has_feature(gpu::Feature::kSubgroups) && device->adapter_info().subgroup_min_size >= 8;
  std::printf("[ subgroup ] %s: the subgroup kernel %s\n", device->adapter_info().summary().c_str(),
              runs_sg ? "runs" : "does not run (subgroups under 8 lanes)");
  Shape plain{1, 2, 37, 150, 32, 1};
  Shape split{1, 3, 5, 200, 32, 0, false, false, 3};
  Shape prescaled{2, 2, 33, 97, 32, 2, true};
  for (Shape* s : {&plain, &split, &prescaled}) s->subgroups = true;
  const Runs a = check(plain, 70), b = check(split, 71), c = check(prescaled, 72);
  EXPECT_EQ(a.subgroup_kernels, runs_sg ? 1u : 0u);
  EXPECT_EQ(b.subgroup_kernels, runs_sg ? 1u : 0u);
  EXPECT_EQ(b.combines, 1u);
  EXPECT_EQ(c.subgroup_kernels, runs_sg ? 1u : 0u);
}

TEST(AttentionFusion, KeySplitRuleOnRealShapes) {
  using webgpu::flash_splits;
  // The H100 / H200's 132 multiprocessors, one workgroup each at a time.
  // Whisper base: 1,500 / 64 = 24 query tiles x 8 heads = 192 workgroups, 2 waves, the second
  // 45% full; 47 key tiles of 32. Two splits: 3 half waves (measured 7-9% faster end to end).
  EXPECT_EQ(flash_splits(-1, 132, 24 * 8, 47), 2u);
  // ViT-S at 518: 22 x 6 = 132 workgroups fill one wave; a split gains nothing (it measured
  // slower on the H100).
  EXPECT_EQ(flash_splits(-1, 132, 22 * 6, 43), 1u);
  // SAM 2.1's global attention fused (WICK_FLASH_ATTENTION=all): 64 x 4 = 256, 2 full-ish waves.
  EXPECT_EQ(flash_splits(-1, 132, 64 * 4, 128), 1u);
  // One small grid: 16 workgroups, 64 key tiles -> as many splits as fill the waves (8: 128).
  EXPECT_EQ(flash_splits(-1, 132, 16, 64), 8u);
  // Few keys: each split keeps 8 tiles (a 96-key cross attention stays whole).
  EXPECT_EQ(flash_splits(-1, 132, 16, 3), 1u);
  // The multiprocessors unknown (any adapter gpu_multiprocessors.h does not list, CPU ones
  // included), the option off: no split. Forced counts are capped at the key tiles.
  EXPECT_EQ(flash_splits(-1, 0, 24 * 8, 47), 1u);
  EXPECT_EQ(flash_splits(0, 132, 24 * 8, 47), 1u);
  EXPECT_EQ(flash_splits(4, 0, 24 * 8, 47), 4u);
  EXPECT_EQ(flash_splits(8, 0, 24 * 8, 3), 3u);
}

TEST(AttentionFusion, MultiprocessorsKnownOnlyForMeasuredGpus) {
  gpu::AdapterInfo h100;
  h100.vendor = "nvidia", h100.vendor_id = 0x10de, h100.device = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(webgpu::known_multiprocessors(h100), 132u);
  gpu::AdapterInfo h200 = h100;
  h200.device = "NVIDIA H200";
  EXPECT_EQ(webgpu::known_multiprocessors(h200), 132u);
  gpu::AdapterInfo other = h100;
  other.device = "NVIDIA GeForce RTX 4090";
  EXPECT_EQ(webgpu::known_multiprocessors(other), 0u);
  gpu::AdapterInfo swiftshader;
  swiftshader.vendor = "google", swiftshader.device = "SwiftShader Device (Subzero)";
  EXPECT_EQ(webgpu::known_multiprocessors(swiftshader), 0u);
}

}  // namespace
}  // namespace wick
