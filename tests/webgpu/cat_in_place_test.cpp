// Concatenations built in place (webgpu/cat_plan.h): producers write into their slice of
// the cat's output. Each graph runs on SwiftShader three ways: in place, with every cat
// copying (GraphOptions::cat_in_place off) and on the CPU executor of VK00 graphs (vkcpu,
// an independent implementation); the outputs must agree, and the placement counts say
// which edge case took which path. 8x8 planes are 256 bytes, so channel slices meet any
// minStorageBufferOffsetAlignment; planes of 3 words (12 bytes) never do.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "single_op.h"
#include "webgpu/cat_plan.h"

namespace wick {
namespace {

using Dims = std::vector<int64_t>;

// Runs `make` (which fills a builder) in place, copying and on the CPU; returns the in-place
// builder's counters through `in_place`.
void expect_same_three_ways(const std::function<void(test::VkGraphBuilder&)>& make, const std::vector<Tensor>& inputs,
                            test::VkGraphBuilder& in_place, size_t* copying_dispatches = nullptr) {
  std::vector<Value> in;
  for (const Tensor& t : inputs) in.push_back(Value::make_tensor(t));
  make(in_place);
  auto placed = in_place.run(in);
  ASSERT_TRUE(placed.ok()) << placed.status().to_string();
  test::VkGraphBuilder copying;
  make(copying);
  copying.cat_in_place = false;
  auto copied = copying.run(in);
  ASSERT_TRUE(copied.ok()) << copied.status().to_string();
  EXPECT_EQ(copying.cat_placed, 0u);
  if (copying_dispatches) *copying_dispatches = copying.dispatches;
  test::VkGraphBuilder cpu;
  make(cpu);
  cpu.cpu = true;
  auto reference = cpu.run(in);
  ASSERT_TRUE(reference.ok()) << reference.status().to_string();
  ASSERT_EQ(placed->size(), reference->size());
  for (size_t j = 0; j < placed->size(); ++j) {
    const Tensor& got = (*placed)[j].tensor;
    const Tensor& base = (*copied)[j].tensor;
    const Tensor& want = (*reference)[j].tensor;
    ASSERT_EQ(got.sizes, want.sizes) << "output " << j;
    for (int64_t i = 0; i < want.numel(); ++i) {
      // Same kernels in place and copying: bit-identical. The CPU within fp32 rounding.
      ASSERT_EQ(test::at_f(got, i), test::at_f(base, i)) << "output " << j << " at " << i;
      ASSERT_NEAR(test::at_f(got, i), test::at_f(want, i), 1e-4 + 1e-4 * std::abs(test::at_f(want, i)))
          << "output " << j << " at " << i;
    }
  }
}

int relu(test::VkGraphBuilder& b, int x, const Dims& shape, int mem) {
  int y = b.tensor(ScalarType::kFloat, shape, mem);
  b.op("aten.relu.default", {x, y});
  return y;
}

int cat(test::VkGraphBuilder& b, std::vector<int> pieces, const Dims& shape, int mem, int64_t dim = 1) {
  int y = b.tensor(ScalarType::kFloat, shape, mem);
  b.op("aten.cat.default", {b.value_list(pieces), b.int_value(dim), y});
  return y;
}

int conv3x3(test::VkGraphBuilder& b, int x, int64_t c, int64_t oc, int mem, std::mt19937& rng) {
  int w = b.constant(test::random_tensor(ScalarType::kFloat, {oc, c, 3, 3}, rng, -0.3, 0.3));
  int bias = b.constant(test::random_tensor(ScalarType::kFloat, {oc}, rng, -0.1, 0.1));
  int y = b.tensor(ScalarType::kFloat, {1, oc, 8, 8}, mem);
  b.op("aten.convolution.default", {x, w, bias, b.int_list({1, 1}), b.int_list({1, 1}), b.int_list({1, 1}),
                                    b.bool_value(false), b.int_list({0, 0}), b.int_value(1), y});
  return y;
}

// RRDB's dense block in small: x1 = relu(conv(x)), x2 = relu(conv(cat(x, x1))), then
// conv(cat(x, x1, x2)) + x. Each conv reads the previous cat, which lives in the buffer its
// output would be placed in: those outputs stay in their own buffers and are copied once;
// x is placed, and cat(x, x1) is a view of cat(x, x1, x2) with nothing to copy again.
TEST(WebGpuCatInPlace, DenseBlockCopiesEachGrowthOnce) {
  auto make = [](test::VkGraphBuilder& b) {
    std::mt19937 rng(11);
    int in = b.input(ScalarType::kFloat, {1, 4, 8, 8});
    int x = relu(b, in, {1, 4, 8, 8}, 0);
    int x1 = relu(b, conv3x3(b, x, 4, 2, 1, rng), {1, 2, 8, 8}, 2);
    int c1 = cat(b, {x, x1}, {1, 6, 8, 8}, 3);
    int x2 = relu(b, conv3x3(b, c1, 6, 2, 4, rng), {1, 2, 8, 8}, 5);
    int c2 = cat(b, {x, x1, x2}, {1, 8, 8, 8}, 6);
    int y = conv3x3(b, c2, 8, 4, 7, rng);
    int out = b.tensor(ScalarType::kFloat, {1, 4, 8, 8});
    b.op("aten.add.Tensor", {y, x, b.int_value(1), out});
    b.output(out);
  };
  std::mt19937 rng(3);
  test::VkGraphBuilder b;
  size_t copying = 0;
  expect_same_three_ways(make, {test::random_tensor(ScalarType::kFloat, {1, 4, 8, 8}, rng)}, b, &copying);
  // x in c2's buffer and c1 as its prefix; x1 and x2 written by convs that read that buffer.
  EXPECT_EQ(b.cat_placed, 2u);
  // Not copied: x into c1 and c2 (in place), x1 into c2 (c1 put it there).
  EXPECT_EQ(b.cat_not_copied, 3u);
  EXPECT_EQ(copying - b.dispatches, 3u);
}

// A piece whose slice starts 12 bytes in cannot be bound there: it is copied; the first
// piece (offset 0) is placed.
TEST(WebGpuCatInPlace, UnalignedOffsetFallsBackToACopy) {
  auto make = [](test::VkGraphBuilder& b) {
    int in_a = b.input(ScalarType::kFloat, {1, 3, 1, 1});
    int in_b = b.input(ScalarType::kFloat, {1, 5, 1, 1});
    int a = relu(b, in_a, {1, 3, 1, 1}, 0);
    int bb = relu(b, in_b, {1, 5, 1, 1}, 1);
    int c = cat(b, {a, bb}, {1, 8, 1, 1}, 2);
    int out = b.tensor(ScalarType::kFloat, {1, 8, 1, 1});
    b.op("aten.neg.default", {c, out});
    b.output(out);
  };
  std::mt19937 rng(5);
  test::VkGraphBuilder b;
  expect_same_three_ways(make, {test::random_tensor(ScalarType::kFloat, {1, 3, 1, 1}, rng),
                                test::random_tensor(ScalarType::kFloat, {1, 5, 1, 1}, rng)}, b);
  EXPECT_EQ(b.cat_placed, 1u);
  EXPECT_EQ(b.cat_not_copied, 1u);
}

// A graph output keeps its own buffer (it is read back from there): copied into the cat.
TEST(WebGpuCatInPlace, GraphOutputPieceIsCopied) {
  auto make = [](test::VkGraphBuilder& b) {
    int in_a = b.input(ScalarType::kFloat, {1, 2, 8, 8});
    int in_b = b.input(ScalarType::kFloat, {1, 2, 8, 8});
    int a = b.tensor(ScalarType::kFloat, {1, 2, 8, 8});  // an output: no mem_obj_id, as the exporter writes it
    b.op("aten.relu.default", {in_a, a});
    int bb = relu(b, in_b, {1, 2, 8, 8}, 0);
    int c = cat(b, {a, bb}, {1, 4, 8, 8}, 1);
    int out = b.tensor(ScalarType::kFloat, {1, 4, 8, 8});
    b.op("aten.neg.default", {c, out});
    b.output(a);
    b.output(out);
  };
  std::mt19937 rng(7);
  test::VkGraphBuilder b;
  expect_same_three_ways(make, {test::random_tensor(ScalarType::kFloat, {1, 2, 8, 8}, rng),
                                test::random_tensor(ScalarType::kFloat, {1, 2, 8, 8}, rng)}, b);
  EXPECT_EQ(b.cat_placed, 1u);
  EXPECT_EQ(b.cat_not_copied, 1u);
}

// One value in two cats lives in the later one and is copied into the earlier; a value
// twice in one cat is placed once and copied (through scratch: same buffer) once.
TEST(WebGpuCatInPlace, SameInputInTwoCatsAndTwiceInOne) {
  auto make = [](test::VkGraphBuilder& b) {
    const Dims s2 = {1, 2, 8, 8}, s4 = {1, 4, 8, 8};
    int in = b.input(ScalarType::kFloat, s2);
    int a = relu(b, in, s2, 0);
    int p = b.tensor(ScalarType::kFloat, s2, 1);
    b.op("aten.neg.default", {in, p});
    int q = b.tensor(ScalarType::kFloat, s2, 2);
    b.op("aten.abs.default", {in, q});
    int c1 = cat(b, {a, p}, s4, 3);
    int c2 = cat(b, {a, q}, s4, 4);
    int c3 = cat(b, {a, a}, s4, 5);
    int t = b.tensor(ScalarType::kFloat, s4, 6);
    b.op("aten.add.Tensor", {c1, c2, b.int_value(1), t});
    int out = b.tensor(ScalarType::kFloat, s4);
    b.op("aten.mul.Tensor", {t, c3, out});
    b.output(out);
  };
  std::mt19937 rng(9);
  test::VkGraphBuilder b;
  expect_same_three_ways(make, {test::random_tensor(ScalarType::kFloat, {1, 2, 8, 8}, rng)}, b);
  // c3 (last) takes a; p and q go into c1 and c2.
  EXPECT_EQ(b.cat_placed, 3u);
  EXPECT_EQ(b.cat_not_copied, 3u);
}

// cat(cat(a, b), c): the inner cat is the outer one's prefix and its pieces live there too;
// nothing is copied.
TEST(WebGpuCatInPlace, CatOfACatCopiesNothing) {
  auto make = [](test::VkGraphBuilder& b) {
    const Dims s2 = {1, 2, 8, 8};
    int in = b.input(ScalarType::kFloat, s2);
    int a = relu(b, in, s2, 0);
    int bb = b.tensor(ScalarType::kFloat, s2, 1);
    b.op("aten.neg.default", {in, bb});
    int c = b.tensor(ScalarType::kFloat, s2, 2);
    b.op("aten.abs.default", {in, c});
    int inner = cat(b, {a, bb}, {1, 4, 8, 8}, 3);
    int outer = cat(b, {inner, c}, {1, 6, 8, 8}, 4);
    int out = b.tensor(ScalarType::kFloat, {1, 6, 8, 8});
    b.op("aten.neg.default", {outer, out});
    b.output(out);
  };
  std::mt19937 rng(13);
  test::VkGraphBuilder b;
  size_t copying = 0;
  expect_same_three_ways(make, {test::random_tensor(ScalarType::kFloat, {1, 2, 8, 8}, rng)}, b, &copying);
  EXPECT_EQ(b.cat_placed, 4u);  // inner, c; a and bb inside inner
  EXPECT_EQ(b.cat_not_copied, 4u);
  EXPECT_EQ(copying - b.dispatches, 4u);  // left: relu, neg, abs, neg and the output's readback copy
}

// Along a dim after a non-1 one the pieces interleave: no placement.
TEST(WebGpuCatInPlace, InterleavedPiecesAreCopied) {
  auto make = [](test::VkGraphBuilder& b) {
    const Dims s = {2, 2, 8, 8};
    int in = b.input(ScalarType::kFloat, s);
    int a = relu(b, in, s, 0);
    int bb = b.tensor(ScalarType::kFloat, s, 1);
    b.op("aten.neg.default", {in, bb});
    int c = cat(b, {a, bb}, {2, 4, 8, 8}, 2);
    int out = b.tensor(ScalarType::kFloat, {2, 4, 8, 8});
    b.op("aten.abs.default", {c, out});
    b.output(out);
  };
  std::mt19937 rng(17);
  test::VkGraphBuilder b;
  expect_same_three_ways(make, {test::random_tensor(ScalarType::kFloat, {2, 2, 8, 8}, rng)}, b);
  EXPECT_EQ(b.cat_placed, 0u);
  EXPECT_EQ(b.cat_not_copied, 0u);
}

// Placements use the upper bounds' offsets: a graph built with them refuses a smaller input
// with a clear error (the delegate then builds the graph again without; the
// esrgan_slim_x4_dynamic fixture runs that way).
TEST(WebGpuCatInPlace, SmallerInputIsRefusedByAPlacedGraph) {
  test::VkGraphBuilder b;
  b.rebuild_for_smaller_inputs = false;  // the graph's own answer, not the delegate's rebuild
  const Dims s = {1, 2, 8, 8};
  int in = b.input(ScalarType::kFloat, s);
  int a = relu(b, in, s, 0);
  int n = b.tensor(ScalarType::kFloat, s, 1);
  b.op("aten.neg.default", {in, n});
  int c = cat(b, {a, n}, {1, 4, 8, 8}, 2);
  int out = b.tensor(ScalarType::kFloat, {1, 4, 8, 8});
  b.op("aten.abs.default", {c, out});
  b.output(out);
  std::mt19937 rng(23);
  Tensor small = test::random_tensor(ScalarType::kFloat, {1, 2, 4, 8}, rng);
  small.dynamism = ShapeDynamism::kDynamicBound;
  auto r = b.run({Value::make_tensor(small)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("below its upper bound"), std::string::npos) << r.status().to_string();
  EXPECT_EQ(b.cat_placed, 2u);
  b.cat_in_place = false;
  b.fixed_shapes = false;  // its cat copies would take the vec4 copy kernel (ops/shape/copy.h)
  auto ok = b.run({Value::make_tensor(small)});
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ((*ok)[0].tensor.sizes, (Dims{1, 4, 4, 8}));
}

// Chunked submission (SubmitOptions::first_chunk) splits the dispatches over several
// command buffers with the same results.
TEST(WebGpuCatInPlace, ChunkedSubmitSameResult) {
  auto make = [](test::VkGraphBuilder& b) {
    const Dims s = {1, 2, 8, 8};
    int x = b.input(ScalarType::kFloat, s);
    for (int i = 0; i < 12; ++i) x = relu(b, x, s, i % 2);
    int out = b.tensor(ScalarType::kFloat, s);
    b.op("aten.neg.default", {x, out});
    b.output(out);
  };
  std::mt19937 rng(19);
  const Tensor input = test::random_tensor(ScalarType::kFloat, {1, 2, 8, 8}, rng);
  test::VkGraphBuilder one, chunked;
  make(one);
  make(chunked);
  one.submit_first_chunk = 0;
  chunked.submit_first_chunk = 2;
  one.fuse_chains = chunked.fuse_chains = false;  // keeps the 13 dispatches
  auto a = one.run(std::vector<Value>{Value::make_tensor(input)});
  auto c = chunked.run(std::vector<Value>{Value::make_tensor(input)});
  ASSERT_TRUE(a.ok() && c.ok());
  EXPECT_EQ(one.submits, 1u);
  EXPECT_EQ(chunked.submits, 3u);  // 13 dispatches: 2, 4, then the other 7 with the output copy
  for (int64_t i = 0; i < input.numel(); ++i)
    ASSERT_EQ(test::at_f((*a)[0].tensor, i), test::at_f((*c)[0].tensor, i));
}

// The planner alone: a conflict undoes the written value's placement.
TEST(CatPlan, WriterReadingItsOwnBufferIsEvicted) {
  // 0: x; 1: y = f(x); 2: cat(x, y) -> 2. Op 0 writes y reading x.
  std::vector<webgpu::CatPlanTensor> t(3);
  for (auto& v : t) v.movable = true;
  t[0].dims = {1, 4};
  t[1].dims = {1, 4};
  t[2].dims = {1, 8};
  std::vector<webgpu::CatPlanOp> ops(2);
  ops[0].reads = {0};
  ops[0].writes = {1};
  ops[1].is_cat = true;
  ops[1].pieces = {0, 1};
  ops[1].dim = 1;
  ops[1].out = 2;
  const webgpu::CatPlacement p = webgpu::plan_cat_placement(t, ops, 1);
  EXPECT_EQ(p.root[0], 2);
  EXPECT_EQ(p.offset[0], 0);
  EXPECT_EQ(p.root[1], -1);
  EXPECT_EQ(p.evicted, 1u);
  EXPECT_EQ(p.placed, 1u);
}

}  // namespace
}  // namespace wick
