// select_copy, split_with_sizes_copy and slice_copy outputs that are one aligned range of
// their input's words are views of its buffer (ops/shape/copy.h range_views, GraphOptions::
// range_views): no dispatch, the same values. Random graphs (ranks 2 to 4, negative dims,
// batch > 1 along dim 0, dims before the cut that are not 1, inner sizes whose rows meet the
// 256-byte view alignment and sizes that never do), each view output used four ways: read
// by an op, a graph output itself, viewed again (flattened and sliced at 64 words), and fed
// to a cat. Every graph runs with the views and without (range_views off) on SwiftShader and
// on the CPU executor of VK00 graphs (vkcpu, an independent implementation): relu, neg and
// copies are exact, so all three must agree bit for bit; the dispatch counts say how many
// outputs became views.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "single_op.h"

namespace wick {
namespace {

using Dims = std::vector<int64_t>;

int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

struct Trial {
  int kind = 0;  // 0 select, 1 split, 2 slice
  int use = 0;   // 0 read by neg, 1 graph output, 2 viewed again, 3 fed to a cat
  Dims shape;
  int64_t dim = 0;      // as written (maybe negative)
  int64_t index = 0;    // select
  Dims sizes;           // split
  int64_t start = 0, end = 0;  // slice
  std::string what;
};

// The view outputs' shapes and their starts along the dim.
struct Cut {
  Dims shape;
  int64_t start;
};

std::vector<Cut> cuts(const Trial& t) {
  const int64_t r = static_cast<int64_t>(t.shape.size()), d = t.dim < 0 ? t.dim + r : t.dim;
  std::vector<Cut> out;
  if (t.kind == 0) {
    Dims s = t.shape;
    s.erase(s.begin() + d);
    out.push_back({s, t.index < 0 ? t.index + t.shape[static_cast<size_t>(d)] : t.index});
  } else if (t.kind == 1) {
    int64_t start = 0;
    for (int64_t n : t.sizes) {
      Dims s = t.shape;
      s[static_cast<size_t>(d)] = n;
      out.push_back({s, start});
      start += n;
    }
  } else {
    Dims s = t.shape;
    s[static_cast<size_t>(d)] = t.end - t.start;
    out.push_back({s, t.start});
  }
  return out;
}

// How many outputs the plan can make views: every dim before the cut is 1, and the start
// is a multiple of 64 words (256 bytes, SwiftShader's minStorageBufferOffsetAlignment).
size_t expected_views(const Trial& t) {
  const int64_t r = static_cast<int64_t>(t.shape.size()), d = t.dim < 0 ? t.dim + r : t.dim;
  for (int64_t k = 0; k < d; ++k)
    if (t.shape[static_cast<size_t>(k)] != 1) return 0;
  int64_t inner = 1;
  for (int64_t k = d + 1; k < r; ++k) inner *= t.shape[static_cast<size_t>(k)];
  size_t n = 0;
  for (const Cut& c : cuts(t)) n += (c.start * inner) % 64 == 0 ? 1 : 0;
  return n;
}

void build(test::VkGraphBuilder& b, const Trial& t) {
  b.fuse_chains = false;  // relu and neg stay one dispatch each, so the counts are the views'
  int x = b.input(ScalarType::kFloat, t.shape, 0);
  int y = b.tensor(ScalarType::kFloat, t.shape, 1);
  b.op("aten.relu.default", {x, y});
  const std::vector<Cut> cs = cuts(t);
  std::vector<int> outs;
  int mem = 2;
  for (const Cut& c : cs) outs.push_back(b.tensor(ScalarType::kFloat, c.shape, mem++));
  if (t.kind == 0) {
    b.op("aten.select_copy.int", {y, b.int_value(t.dim), b.int_value(t.index), outs[0]});
  } else if (t.kind == 1) {
    b.op("aten.split_with_sizes_copy.default", {y, b.int_list(t.sizes), b.int_value(t.dim), b.value_list(outs)});
  } else {
    b.op("aten.slice_copy.Tensor", {y, b.int_value(t.dim), b.int_value(t.start), b.int_value(t.end), b.int_value(1), outs[0]});
  }
  auto neg = [&](int v, const Dims& shape) {
    int z = b.tensor(ScalarType::kFloat, shape, mem++);
    b.op("aten.neg.default", {v, z});
    b.output(z);
  };
  if (t.use == 3) {
    // The pieces in reverse order (one piece twice) along the cut dim (a select's first).
    const int64_t r = static_cast<int64_t>(t.shape.size());
    const size_t cd = t.kind == 0 ? 0 : static_cast<size_t>(t.dim < 0 ? t.dim + r : t.dim);
    std::vector<size_t> order;
    for (size_t k = outs.size(); k-- > 0;) order.push_back(k);
    if (order.size() == 1) order.push_back(0);
    std::vector<int> pieces;
    Dims shape = cs[0].shape;
    shape[cd] = 0;
    for (size_t k : order) {
      pieces.push_back(outs[k]);
      shape[cd] += cs[k].shape[cd];
    }
    int c = b.tensor(ScalarType::kFloat, shape, mem++);
    b.op("aten.cat.default", {b.value_list(pieces), b.int_value(static_cast<int64_t>(cd)), c});
    neg(c, shape);
    return;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const Dims& shape = cs[k].shape;
    if (t.use == 0) {
      neg(outs[k], shape);
    } else if (t.use == 1) {
      b.output(outs[k]);
    } else {
      // Flattened (a flat view), then its words from 64 on (a view at 256 bytes, when the
      // flat view is one).
      const int64_t n = numel(shape);
      int flat = b.tensor(ScalarType::kFloat, {n}, mem++);
      b.op("aten.view_copy.default", {outs[k], b.int_list({n}), flat});
      const int64_t from = n > 64 ? 64 : 0;
      int tail = b.tensor(ScalarType::kFloat, {n - from}, mem++);
      b.op("aten.slice_copy.Tensor", {flat, b.int_value(0), b.int_value(from), b.int_value(n), b.int_value(1), tail});
      neg(tail, {n - from});
    }
  }
}

Trial random_trial(std::mt19937& rng) {
  Trial t;
  t.kind = static_cast<int>(rng() % 3);
  t.use = static_cast<int>(rng() % 4);
  const int64_t r = 2 + static_cast<int64_t>(rng() % 3);
  const int64_t d = static_cast<int64_t>(rng() % static_cast<uint32_t>(r));
  // The dims after the cut: rows of 64 words (every start aligned), 32 (every other), or
  // odd sizes (only a start of 0).
  static const std::vector<Dims> inners = {{64}, {8, 8}, {2, 32}, {4, 8}, {3, 5}, {7}, {5, 3, 3}};
  Dims inner = inners[rng() % inners.size()];
  if (r - d - 1 == 0) inner.clear();  // the cut is the last dim: rows of one word
  while (static_cast<int64_t>(inner.size()) > r - d - 1) {  // fold into fewer dims
    const int64_t last = inner.back();
    inner.pop_back();
    inner.back() *= last;
  }
  while (static_cast<int64_t>(inner.size()) < r - d - 1) inner.insert(inner.begin(), 1);
  const int64_t size = 2 + static_cast<int64_t>(rng() % 5);
  Dims shape(static_cast<size_t>(d), 1);
  // Batch > 1 in front of the cut half the time when there is a dim before it (a copy then).
  if (d > 0 && rng() % 2) shape[0] = 2;
  shape.push_back(size);
  shape.insert(shape.end(), inner.begin(), inner.end());
  t.shape = shape;
  t.dim = rng() % 2 ? d - r : d;
  if (t.kind == 0) {
    t.index = static_cast<int64_t>(rng() % static_cast<uint32_t>(size));
    if (rng() % 2) t.index -= size;
  } else if (t.kind == 1) {
    int64_t left = size;
    while (left > 0) {
      const int64_t n = 1 + static_cast<int64_t>(rng() % static_cast<uint32_t>(left));
      t.sizes.push_back(n);
      left -= n;
    }
  } else {
    t.start = static_cast<int64_t>(rng() % static_cast<uint32_t>(size));
    t.end = t.start + 1 + static_cast<int64_t>(rng() % static_cast<uint32_t>(size - t.start));
  }
  t.what = std::string(t.kind == 0 ? "select" : t.kind == 1 ? "split" : "slice") + " of " + shape_to_string(shape) +
           " dim " + std::to_string(t.dim) + " use " + std::to_string(t.use) +
           (t.kind == 0 ? " index " + std::to_string(t.index)
            : t.kind == 1 ? " sizes " + shape_to_string(t.sizes)
                          : " [" + std::to_string(t.start) + ":" + std::to_string(t.end) + "]");
  return t;
}

TEST(WebGpuRangeViews, RandomGraphsMatchCpuAndSaveDispatches) {
  std::mt19937 rng(2026);
  size_t views_seen = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const Trial t = random_trial(rng);
    SCOPED_TRACE(t.what);
    Tensor x = test::random_tensor(ScalarType::kFloat, t.shape, rng);
    const std::vector<Value> in = {Value::make_tensor(x)};
    test::VkGraphBuilder on, off, cpu;
    build(on, t);
    build(off, t);
    build(cpu, t);
    off.range_views = false;
    cpu.cpu = true;
    auto got = on.run(in);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    auto base = off.run(in);
    ASSERT_TRUE(base.ok()) << base.status().to_string();
    auto want = cpu.run(in);
    ASSERT_TRUE(want.ok()) << want.status().to_string();
    ASSERT_EQ(got->size(), want->size());
    for (size_t j = 0; j < want->size(); ++j) {
      const Tensor &g = (*got)[j].tensor, &o = (*base)[j].tensor, &w = (*want)[j].tensor;
      ASSERT_EQ(g.sizes, w.sizes) << "output " << j;
      ASSERT_EQ(o.sizes, w.sizes) << "output " << j;
      for (int64_t i = 0; i < w.numel(); ++i) {
        ASSERT_EQ(test::at_f(g, i), test::at_f(w, i)) << "output " << j << " at " << i;
        ASSERT_EQ(test::at_f(o, i), test::at_f(w, i)) << "views off: output " << j << " at " << i;
      }
    }
    // Slices are views either way; each select or split output that is a view saves its copy
    // (outputs read by an op or read back; viewed-again and cat uses may move more).
    if (t.kind != 2 && t.use <= 1) {
      const size_t views = expected_views(t);
      EXPECT_EQ(off.dispatches - on.dispatches, views);
      views_seen += views;
    }
  }
  std::printf("%zu select/split outputs became views\n", views_seen);
  EXPECT_GT(views_seen, 5u) << "the random shapes hardly ever made views: the test checks little";
}

// D-FINE's CSP blocks split a batch-1 NCHW map in two along channels; its decoder selects
// the last layer's [1, 1, 100, 80] scores. Both are views: no dispatch at all here.
TEST(WebGpuRangeViews, ChannelSplitAndOuterSelectAreViews) {
  std::mt19937 rng(5);
  test::VkGraphBuilder b, cpu;
  for (test::VkGraphBuilder* g : {&b, &cpu}) {
    int x = g->input(ScalarType::kFloat, {1, 64, 8, 8}, 0);
    int y = g->tensor(ScalarType::kFloat, {1, 64, 8, 8}, 1);
    g->op("aten.relu.default", {x, y});
    int lo = g->tensor(ScalarType::kFloat, {1, 32, 8, 8}, 2), hi = g->tensor(ScalarType::kFloat, {1, 32, 8, 8}, 3);
    g->op("aten.split_with_sizes_copy.default", {y, g->int_list({32, 32}), g->int_value(1), g->value_list({lo, hi})});
    int s = g->tensor(ScalarType::kFloat, {1, 8, 8}, 4);
    g->op("aten.select_copy.int", {hi, g->int_value(1), g->int_value(-1), s});
    g->output(lo);
    g->output(s);
  }
  cpu.cpu = true;
  Tensor x = test::random_tensor(ScalarType::kFloat, {1, 64, 8, 8}, rng);
  auto got = b.run({Value::make_tensor(x)});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto want = cpu.run({Value::make_tensor(x)});
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  for (size_t j = 0; j < 2; ++j)
    for (int64_t i = 0; i < (*want)[j].tensor.numel(); ++i)
      ASSERT_EQ(test::at_f((*got)[j].tensor, i), test::at_f((*want)[j].tensor, i)) << "output " << j << " at " << i;
  EXPECT_EQ(b.dispatches, 1u + 2u);  // relu, and the two outputs' readback copies
}

}  // namespace
}  // namespace wick
