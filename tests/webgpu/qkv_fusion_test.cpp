// webgpu/qkv_fusion.h: the q, k and v linears of a fused attention that read one input
// become one product with stacked weights, and the attention reads its parts as column
// ranges. Graphs as eager-attention exports write them (linear -> view -> permute -> bmm,
// scale, softmax, bmm, permuted back), with random odd shapes, batches of 2, a part without
// bias; the result must match a double-precision reference (1e-4 absolute on O(1) values)
// with the join and without it (WICK_JOIN_QKV=0's path), on both kernel choices. Where only
// two parts share an input (DETR's q = k = x + pos, v = x; cross-attention's k, v), those two
// join; where a part is read elsewhere, nothing joins.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "single_op.h"

namespace wick {
namespace {

enum class Inputs { kOne, kQkShared, kKvShared };

struct QkvCase {
  int64_t b, h, sq, skv, d, c;  // c: the linears' input width (K)
  Inputs inputs = Inputs::kOne;
  bool k_read_elsewhere = false;  // k's projection is also a graph output
  // Each linear reads a view_copy of its own of the input, as SDPA exports do once
  // runtime/fuse_runs.cpp has joined their delegates (a squeeze per delegate).
  bool own_copies = false;
};

struct Built {
  test::VkGraphBuilder b;
  std::vector<Value> inputs;
  Tensor x[3];   // the input each of q, k, v projects (the same tensor where shared)
  Tensor w[3], bias[3];
  bool has_bias[3] = {true, false, true};
  double scale = 1;
};

void build(const QkvCase& s, Built& g, uint32_t seed) {
  auto& b = g.b;
  const int64_t hd = s.h * s.d, bh = s.b * s.h;
  std::mt19937 rng(seed);
  auto t = [&](std::vector<int64_t> shape) { return b.tensor(ScalarType::kFloat, std::move(shape), 0); };
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
  // The inputs: x (queries' length) and, for cross-attention, a second one of keys' length.
  const bool cross = s.inputs == Inputs::kKvShared;
  Tensor xa = test::random_tensor(ScalarType::kFloat, {s.b, s.sq, s.c}, rng, -1, 1);
  const int ia = b.input(ScalarType::kFloat, {s.b, s.sq, s.c});
  g.inputs = {Value::make_tensor(xa)};
  int in[3] = {ia, ia, ia};
  for (Tensor& x : g.x) x = xa;
  if (s.inputs != Inputs::kOne) {
    const int64_t len = cross ? s.skv : s.sq;
    Tensor xb = test::random_tensor(ScalarType::kFloat, {s.b, len, s.c}, rng, -1, 1);
    const int ib = b.input(ScalarType::kFloat, {s.b, len, s.c});
    g.inputs.push_back(Value::make_tensor(xb));
    if (cross) in[1] = in[2] = ib, g.x[1] = g.x[2] = xb;  // k, v from the second input
    else in[2] = ib, g.x[2] = xb;                          // v from the second input
  }
  if (s.own_copies)
    for (int j = 0; j < 3; ++j) {
      const auto& shape = g.x[j].sizes;
      in[j] = view(in[j], {shape[0] * shape[1], shape[2]});
      in[j] = view(in[j], shape);
    }
  int proj[3];
  for (int j = 0; j < 3; ++j) {
    const int64_t len = j == 0 ? s.sq : s.skv;
    g.w[j] = test::random_tensor(ScalarType::kFloat, {hd, s.c}, rng, -0.3, 0.3);
    g.bias[j] = test::random_tensor(ScalarType::kFloat, {hd}, rng, -0.5, 0.5);
    proj[j] = t({s.b, len, hd});
    b.op("aten.linear.default", {in[j], b.constant(g.w[j]), g.has_bias[j] ? b.constant(g.bias[j]) : b.none(), proj[j]});
  }
  const int q = perm(view(proj[0], {s.b, s.sq, s.h, s.d}), {s.b, s.h, s.sq, s.d}, {0, 2, 1, 3});
  const int k = perm(view(proj[1], {s.b, s.skv, s.h, s.d}), {s.b, s.h, s.skv, s.d}, {0, 2, 1, 3});
  const int v = perm(view(proj[2], {s.b, s.skv, s.h, s.d}), {s.b, s.h, s.skv, s.d}, {0, 2, 1, 3});
  const int kt = perm(k, {s.b, s.h, s.d, s.skv}, {0, 1, 3, 2});
  const int scores = t({bh, s.sq, s.skv});
  b.op("aten.bmm.default", {view(q, {bh, s.sq, s.d}), view(kt, {bh, s.d, s.skv}), scores});
  g.scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  Tensor c = Tensor::make_owned(ScalarType::kFloat, {});
  c.data_as<float>()[0] = static_cast<float>(g.scale);
  const int scaled = t({s.b, s.h, s.sq, s.skv});
  b.op("aten.mul.Tensor", {view(scores, {s.b, s.h, s.sq, s.skv}), b.constant(c), scaled});
  const int p = t({s.b, s.h, s.sq, s.skv});
  b.op("aten._softmax.default", {scaled, b.int_value(-1), b.bool_value(false), p});
  const int o = t({bh, s.sq, s.d});
  b.op("aten.bmm.default", {view(p, {bh, s.sq, s.skv}), view(v, {bh, s.skv, s.d}), o});
  b.output(view(perm(view(o, {s.b, s.h, s.sq, s.d}), {s.b, s.sq, s.h, s.d}, {0, 2, 1, 3}), {s.b, s.sq, hd}));
  if (s.k_read_elsewhere) b.output(proj[1]);  // the second output
}

// The projection j in double: [B, len, H*D].
std::vector<double> project(const QkvCase& s, const Built& g, int j, int64_t len) {
  const int64_t hd = s.h * s.d;
  std::vector<double> r(static_cast<size_t>(s.b * len * hd));
  const float *x = g.x[j].data_as<float>(), *w = g.w[j].data_as<float>(), *bias = g.bias[j].data_as<float>();
  for (int64_t row = 0; row < s.b * len; ++row)
    for (int64_t n = 0; n < hd; ++n) {
      double acc = g.has_bias[j] ? bias[n] : 0.0;
      for (int64_t e = 0; e < s.c; ++e) acc += double(x[row * s.c + e]) * w[n * s.c + e];
      r[static_cast<size_t>(row * hd + n)] = acc;
    }
  return r;
}

// out[b, i, h * D + e] in double.
std::vector<double> reference(const QkvCase& s, const Built& g) {
  const int64_t hd = s.h * s.d;
  const std::vector<double> q = project(s, g, 0, s.sq), k = project(s, g, 1, s.skv), v = project(s, g, 2, s.skv);
  std::vector<double> out(static_cast<size_t>(s.b * s.sq * hd)), w(static_cast<size_t>(s.skv));
  for (int64_t b = 0; b < s.b; ++b)
    for (int64_t h = 0; h < s.h; ++h)
      for (int64_t i = 0; i < s.sq; ++i) {
        double mx = -1e300;
        for (int64_t j = 0; j < s.skv; ++j) {
          double acc = 0;
          for (int64_t e = 0; e < s.d; ++e)
            acc += q[static_cast<size_t>((b * s.sq + i) * hd + h * s.d + e)] * k[static_cast<size_t>((b * s.skv + j) * hd + h * s.d + e)];
          w[static_cast<size_t>(j)] = acc * g.scale;
          mx = std::max(mx, w[static_cast<size_t>(j)]);
        }
        double sum = 0;
        for (double& x : w) sum += (x = std::exp(x - mx));
        for (int64_t e = 0; e < s.d; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < s.skv; ++j) acc += w[static_cast<size_t>(j)] * v[static_cast<size_t>((b * s.skv + j) * hd + h * s.d + e)];
          out[static_cast<size_t>((b * s.sq + i) * hd + h * s.d + e)] = acc / sum;
        }
      }
  return out;
}

struct Runs {
  size_t joined = 0;                          // linears dropped by the join
  size_t joined_dispatches = 0, plain_dispatches = 0;
};

// Runs with the join and without; both must match the reference.
Runs check(const QkvCase& s, uint32_t seed, bool gpu_kernels) {
  Runs r;
  std::vector<double> want;
  for (bool join : {true, false}) {
    Built g;
    build(s, g, seed);
    if (want.empty()) want = reference(s, g);
    g.b.join_qkv = join;
    g.b.gpu_kernels = gpu_kernels;
    auto outs = g.b.run(g.inputs);
    EXPECT_TRUE(outs.ok()) << outs.status().to_string();
    if (!outs.ok()) return r;
    const Tensor& out = (*outs)[0].tensor;
    EXPECT_EQ(out.sizes, (std::vector<int64_t>{s.b, s.sq, s.h * s.d}));
    double err = 0;
    for (int64_t i = 0; i < out.numel(); ++i)
      err = std::max(err, std::fabs(out.data_as<float>()[i] - want[static_cast<size_t>(i)]));
    EXPECT_LT(err, 1e-4) << (join ? "joined" : "plain") << " B" << s.b << " H" << s.h << " Sq" << s.sq << " Skv" << s.skv
                         << " D" << s.d << " C" << s.c << (gpu_kernels ? " gpu kernels" : "");
    if (s.k_read_elsewhere) {
      // k's projection, the second output, is still written in full.
      const std::vector<double> k = project(s, g, 1, s.skv);
      const Tensor& kt = (*outs)[1].tensor;
      double kerr = 0;
      for (int64_t i = 0; i < kt.numel(); ++i) kerr = std::max(kerr, std::fabs(kt.data_as<float>()[i] - k[static_cast<size_t>(i)]));
      EXPECT_LT(kerr, 1e-4);
    }
    if (join) r.joined = g.b.joined_linears, r.joined_dispatches = g.b.dispatches;
    else r.plain_dispatches = g.b.dispatches;
  }
  return r;
}

TEST(QkvJoin, OneProductForQKVMatchesReference) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 3; ++trial) {
    const int64_t s = 17 + static_cast<int64_t>(rng() % 60);
    QkvCase c{1 + trial % 2, 1 + static_cast<int64_t>(rng() % 3), s, s, trial == 1 ? 64 : 32, trial == 2 ? 36 : 40};
    c.own_copies = trial == 2;
    for (bool gpu : {false, true}) {
      const Runs r = check(c, 100 + trial, gpu);
      EXPECT_EQ(r.joined, 2u) << "k and v folded into q's product";
      EXPECT_LT(r.joined_dispatches, r.plain_dispatches);
    }
  }
}

TEST(QkvJoin, TwoPartsShareAnInput) {
  // DETR's self-attention (q and k of one input, v of another), then cross-attention (k and
  // v of the memory, q of the queries).
  const Runs qk = check(QkvCase{2, 2, 29, 29, 32, 24, Inputs::kQkShared}, 7, true);
  EXPECT_EQ(qk.joined, 1u);
  const Runs kv = check(QkvCase{1, 2, 19, 45, 32, 20, Inputs::kKvShared}, 8, true);
  EXPECT_EQ(kv.joined, 1u);
}

TEST(QkvJoin, PartReadElsewhereKeepsTheLinears) {
  const Runs r = check(QkvCase{1, 2, 33, 33, 32, 40, Inputs::kOne, true}, 9, true);
  // k stays a linear of its own; q and v (one input) still join.
  EXPECT_EQ(r.joined, 1u);
}

}  // namespace
}  // namespace wick
