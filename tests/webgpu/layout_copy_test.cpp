// The layout copies' kernels (ops/shape/copy.h: shape_copy, shape_copy_vec4,
// shape_copy_tiled) against CPU references computed here with plain index math: every
// permutation of 3, 4 and 5 dims at shapes that reach each kernel (odd sizes, partial tiles),
// slices with steps and offsets, and a pad by nothing that costs no dispatch.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "dims_index.h"
#include "single_op.h"

namespace wick {
namespace {

using test::Dims;
using test::strides_of;
using test::unravel;

// The kernel name of each dispatch label ("<op> <shader>"), counted.
void count_kernels(const std::vector<std::string>& labels, std::map<std::string, int>& seen) {
  for (const std::string& l : labels) seen[l.substr(l.rfind(' ') + 1)]++;
}

// Runs `b` and compares its one output with `ref(flat index)`, exactly (copies move words).
template <class Ref>
void expect_copy(test::VkGraphBuilder& b, const Tensor& x, const Dims& want_shape, Ref ref, const std::string& what,
                 std::map<std::string, int>& seen) {
  b.profile = true;
  auto r = b.run({Value::make_tensor(x)});
  ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
  const Tensor& got = (*r)[0].tensor;
  ASSERT_EQ(got.sizes, want_shape) << what;
  for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(test::at_f(got, i), ref(i)) << what << " at " << i;
  count_kernels(b.kernels, seen);
}

TEST(WebGpuLayoutCopy, EveryPermutationOf3To5Dims) {
  std::mt19937 rng(1111);
  std::map<std::string, int> seen;
  // Per rank: a shape whose innermost dim is a multiple of 4 (the vec4 form where it stays
  // innermost) and one of odd sizes above a tile edge (partial 32 x 32 tiles).
  const std::vector<Dims> shapes = {{5, 12, 8}, {33, 3, 37}, {3, 9, 2, 12}, {2, 35, 3, 9},
                                    {2, 3, 9, 2, 8}, {2, 9, 3, 1, 11}};
  int iter = 0;
  for (const Dims& shape : shapes) {
    const int rank = static_cast<int>(shape.size());
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    do {
      ScalarType dt = ++iter % 5 == 0 ? ScalarType::kInt : ScalarType::kFloat;
      Tensor x = test::random_tensor(dt, shape, rng, -50, 50);
      Dims out_shape(shape.size());
      for (int i = 0; i < rank; ++i) out_shape[i] = shape[perm[i]];
      test::VkGraphBuilder b;
      b.gpu_kernels = true;  // the tiled kernel is a GPU kernel choice
      int xi = b.input(dt, shape);
      int out = b.tensor(dt, out_shape);
      b.op("aten.permute_copy.default", {xi, b.int_list(perm), out});
      b.output(out);
      const Dims st = strides_of(shape);
      expect_copy(b, x, out_shape, [&](int64_t i) {
        Dims c = unravel(i, out_shape);
        int64_t src = 0;
        for (int d = 0; d < rank; ++d) src += c[d] * st[perm[d]];
        return test::at_f(x, src);
      }, "permute " + shape_to_string(shape) + " by " + shape_to_string(perm), seen);
      if (HasFatalFailure()) return;
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  EXPECT_GT(seen["shape_copy_tiled"], 0);
  EXPECT_GT(seen["shape_copy_vec4"], 0);
  EXPECT_GT(seen["shape_copy"], 0);
}

TEST(WebGpuLayoutCopy, SlicesWithStepsAndOffsets) {
  std::mt19937 rng(7);
  std::map<std::string, int> seen;
  // SAM 2's q/k/v unbind (a slice of one along the middle dim of [B, N, 3, heads, d]) and
  // odd ones: steps, starts off a multiple of 4, an innermost slice.
  struct Case {
    Dims shape;
    int64_t dim, start, end, step;
  };
  const std::vector<Case> cases = {{{4, 6, 3, 2, 8}, 2, 1, 2, 1}, {{4, 6, 3, 2, 8}, 2, 0, 3, 2},
                                   {{5, 7, 12}, 2, 4, 12, 1},     {{5, 7, 12}, 2, 1, 11, 3},
                                   {{5, 7, 12}, 1, 2, 7, 1},      {{9, 5, 3}, 0, 3, 8, 2},
                                   {{2, 16, 20}, 1, 4, 16, 1}};
  for (const Case& k : cases) {
    Tensor x = test::random_tensor(ScalarType::kFloat, k.shape, rng, -9, 9);
    Dims out_shape = k.shape;
    out_shape[static_cast<size_t>(k.dim)] = (k.end - k.start + k.step - 1) / k.step;
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, k.shape);
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.slice_copy.Tensor", {xi, b.int_value(k.dim), b.int_value(k.start), b.int_value(k.end),
                                    b.int_value(k.step), out});
    b.output(out);
    const Dims st = strides_of(k.shape);
    expect_copy(b, x, out_shape, [&](int64_t i) {
      Dims c = unravel(i, out_shape);
      c[static_cast<size_t>(k.dim)] = k.start + c[static_cast<size_t>(k.dim)] * k.step;
      int64_t src = 0;
      for (size_t d = 0; d < c.size(); ++d) src += c[d] * st[d];
      return test::at_f(x, src);
    }, "slice " + shape_to_string(k.shape) + " dim " + std::to_string(k.dim), seen);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(seen["shape_copy_vec4"], 0);
  EXPECT_GT(seen["shape_copy"], 0);
}

// The vec4 form is only built for fixed shapes: without them (GraphOptions::fixed_shapes
// off, as after the delegate's rebuild for a smaller input) the same copy runs generic,
// with the same words; a smaller live input rebuilds and still gives the right values.
TEST(WebGpuLayoutCopy, Vec4OnlyForFixedShapes) {
  std::mt19937 rng(3);
  const Dims shape = {4, 8, 3, 8};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  std::map<std::string, int> fixed, free;
  for (bool f : {true, false}) {
    test::VkGraphBuilder b;
    b.fixed_shapes = f;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, {4, 3, 8, 8});
    b.op("aten.permute_copy.default", {xi, b.int_list({0, 2, 1, 3}), out});
    b.output(out);
    expect_copy(b, x, {4, 3, 8, 8}, [&](int64_t i) {
      Dims c = unravel(i, {4, 3, 8, 8});
      return test::at_f(x, ((c[0] * 8 + c[2]) * 3 + c[1]) * 8 + c[3]);
    }, f ? "fixed" : "free", f ? fixed : free);
  }
  EXPECT_EQ(fixed["shape_copy_vec4"], 1);
  EXPECT_EQ(free["shape_copy_vec4"], 0);
  EXPECT_EQ(free["shape_copy"], 1);
  // Bounds [6, 8, 3, 8], live [2, 8, 3, 8]: the first build has the vec4 kernel, the run rebuilds.
  Tensor small = test::random_tensor(ScalarType::kFloat, {2, 8, 3, 8}, rng);
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {6, 8, 3, 8});
  int out = b.tensor(ScalarType::kFloat, {6, 3, 8, 8});
  b.op("aten.permute_copy.default", {xi, b.int_list({0, 2, 1, 3}), out});
  b.output(out);
  std::map<std::string, int> seen;
  expect_copy(b, small, {2, 3, 8, 8}, [&](int64_t i) {
    Dims c = unravel(i, {2, 3, 8, 8});
    return test::at_f(small, ((c[0] * 8 + c[2]) * 3 + c[1]) * 8 + c[3]);
  }, "smaller live input", seen);
}

// The tiled transpose is the GPU kernel choice; CPU adapters (SwiftShader, where its
// barrier costs 7x) keep the generic kernel for the same copy.
TEST(WebGpuLayoutCopy, TiledOnlyOnGpuKernelChoice) {
  std::mt19937 rng(9);
  Tensor x = test::random_tensor(ScalarType::kFloat, {3, 40, 36}, rng);
  for (bool gpu : {true, false}) {
    test::VkGraphBuilder b;
    b.gpu_kernels = gpu;
    int xi = b.input(ScalarType::kFloat, {3, 40, 36});
    int out = b.tensor(ScalarType::kFloat, {3, 36, 40});
    b.op("aten.permute_copy.default", {xi, b.int_list({0, 2, 1}), out});
    b.output(out);
    std::map<std::string, int> seen;
    expect_copy(b, x, {3, 36, 40}, [&](int64_t i) {
      Dims c = unravel(i, {3, 36, 40});
      return test::at_f(x, (c[0] * 40 + c[2]) * 36 + c[1]);
    }, gpu ? "gpu choice" : "cpu choice", seen);
    EXPECT_EQ(seen[gpu ? "shape_copy_tiled" : "shape_copy"], 1);
  }
}

// F.pad by zeros (SAM 2 pads every window partition's map, by nothing at these sizes):
// the pad shares its input's buffer and records no dispatch, with the same values.
TEST(WebGpuLayoutCopy, PadByNothingIsNoDispatch) {
  std::mt19937 rng(5);
  Tensor x = test::random_tensor(ScalarType::kFloat, {1, 6, 6, 5}, rng);
  size_t dispatches[2] = {0, 0};
  for (int with_pad = 0; with_pad < 2; ++with_pad) {
    test::VkGraphBuilder b;
    b.fuse_chains = false;  // without the pad between them, relu and neg would be one chain
    int xi = b.input(ScalarType::kFloat, {1, 6, 6, 5}, 0);
    int y = b.tensor(ScalarType::kFloat, {1, 6, 6, 5}, 1);
    int p = b.tensor(ScalarType::kFloat, {1, 6, 6, 5}, 2);
    int out = b.tensor(ScalarType::kFloat, {1, 6, 6, 5}, 3);
    b.op("aten.relu.default", {xi, y});
    if (with_pad) {
      b.op("aten.constant_pad_nd.default", {y, b.int_list({0, 0, 0, 0, 0, 0}), b.double_value(0), p});
      b.op("aten.neg.default", {p, out});
    } else {
      b.op("aten.neg.default", {y, out});
    }
    b.output(out);
    auto r = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    dispatches[with_pad] = b.dispatches;
    const Tensor& got = (*r)[0].tensor;
    for (int64_t i = 0; i < got.numel(); ++i)
      ASSERT_EQ(got.data_as<float>()[i], -std::max(0.f, x.data_as<float>()[i])) << "at " << i;
  }
  EXPECT_EQ(dispatches[1], dispatches[0]);
  // A pad by something is still a copy (with its fill), and one by nothing with views off is too.
  test::VkGraphBuilder b;
  b.alias_views = false;
  int xi = b.input(ScalarType::kFloat, {2, 3});
  int out = b.tensor(ScalarType::kFloat, {2, 3});
  b.op("aten.constant_pad_nd.default", {xi, b.int_list({0, 0}), b.double_value(7), out});
  b.output(out);
  Tensor small = test::random_tensor(ScalarType::kFloat, {2, 3}, rng);
  auto r = b.run({Value::make_tensor(small)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ((*r)[0].tensor.data_as<float>()[i], small.data_as<float>()[i]);
}

// A slice along the outermost non-1 dim at a multiple of the view alignment (the device's
// storage offset alignment: 256 bytes on SwiftShader; MODNet's IBNorm halves, Depth
// Anything's class-token drop) is a view of its input's buffer: no dispatch, the same
// values; one at an unaligned offset, or with a step, is still a copy. Which offsets are
// aligned is read from the graph: one ctest run of the whole GPU suite (2026-12-06) saw
// the 64-byte offset taken as a view, i.e. a device with a smaller alignment.
TEST(WebGpuLayoutCopy, OuterSliceAtAlignedOffsetIsAView) {
  std::mt19937 rng(13);
  const Dims shape = {1, 12, 16};  // a row is 64 bytes: rows 4, 8 start at 256-byte multiples
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  struct Case {
    int64_t start, end, step;
  };
  for (const Case& c : {Case{4, 12, 1}, Case{8, 100, 1}, Case{1, 12, 1}, Case{4, 12, 2}, Case{0, 4, 1}}) {
    const int64_t len = (std::min<int64_t>(c.end, 12) - c.start + c.step - 1) / c.step;
    const Dims out_shape = {1, len, 16};
    size_t dispatches[2] = {0, 0};
    uint64_t align = 0;
    std::string adapter;
    for (int with_slice = 0; with_slice < 2; ++with_slice) {
      test::VkGraphBuilder b;
      b.fuse = false;
      int xi = b.input(ScalarType::kFloat, shape, 0);
      int y = b.tensor(ScalarType::kFloat, shape, 1);
      int sl = b.tensor(ScalarType::kFloat, out_shape, 2);
      int out = b.tensor(ScalarType::kFloat, with_slice ? out_shape : shape, 3);
      b.op("aten.relu.default", {xi, y});
      if (with_slice) {
        b.op("aten.slice_copy.Tensor", {y, b.int_value(1), b.int_value(c.start), b.int_value(c.end),
                                        b.int_value(c.step), sl});
        b.op("aten.neg.default", {sl, out});
      } else {
        b.op("aten.neg.default", {y, out});
      }
      b.output(out);
      auto r = b.run({Value::make_tensor(x)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      dispatches[with_slice] = b.dispatches;
      align = b.view_alignment;
      adapter = b.adapter;
      if (!with_slice) continue;
      const Tensor& got = (*r)[0].tensor;
      ASSERT_EQ(got.sizes, out_shape);
      for (int64_t i = 0; i < got.numel(); ++i) {
        const int64_t row = c.start + (i / 16) * c.step, col = i % 16;
        ASSERT_EQ(got.data_as<float>()[i], -std::max(0.f, x.data_as<float>()[row * 16 + col]))
            << "slice [" << c.start << ":" << c.end << ":" << c.step << "] at " << i;
      }
    }
    ASSERT_GT(align, 0u);
    const size_t extra = c.step != 1 || (c.start * 16 * 4) % static_cast<int64_t>(align) != 0 ? 1 : 0;
    EXPECT_EQ(dispatches[1], dispatches[0] + extra)
        << "slice [" << c.start << ":" << c.end << ":" << c.step << "], view alignment " << align << " on " << adapter;
  }
}

}  // namespace
}  // namespace wick
