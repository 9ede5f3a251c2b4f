// Randomized tests of reduce.wgsl, reduce_rows.wgsl (the GPU kernel choice, forced on
// SwiftShader) and softmax_rows.wgsl (sum, mean, amax, argmax over dim sets; softmax and
// log_softmax) against direct CPU computations (in double). Tolerances: sums/means
// 1e-4 * (1 + sum|x|)/n-scaled; max/argmax exact; softmax 1e-5 abs + 1e-4 rel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "single_op.h"

namespace wick {
namespace {

struct Split {
  std::vector<int64_t> out_shape;   // keepdim applied
  std::vector<bool> reduced;
};

Split split(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims, bool keepdim) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  Split s;
  s.reduced.assign(shape.size(), dims.empty());
  for (int64_t d : dims) s.reduced[static_cast<size_t>(d < 0 ? d + rank : d)] = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!s.reduced[d]) s.out_shape.push_back(shape[d]);
    else if (keepdim) s.out_shape.push_back(1);
  }
  return s;
}

// For each output row, the flat input indices it reduces (in row-major order of the reduced dims).
std::vector<std::vector<int64_t>> groups(const std::vector<int64_t>& shape, const std::vector<bool>& reduced) {
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  int64_t rows = 1;
  for (size_t d = 0; d < shape.size(); ++d) if (!reduced[d]) rows *= shape[d];
  std::vector<std::vector<int64_t>> g(static_cast<size_t>(rows));
  for (int64_t i = 0; i < numel; ++i) {
    int64_t rem = i, row = 0, mul = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const int64_t c = rem % shape[static_cast<size_t>(d)];
      rem /= shape[static_cast<size_t>(d)];
      if (!reduced[static_cast<size_t>(d)]) { row += c * mul; mul *= shape[static_cast<size_t>(d)]; }
    }
    g[static_cast<size_t>(row)].push_back(i);
  }
  return g;
}

struct ReduceCase {
  std::vector<int64_t> shape;
  std::vector<int64_t> dims;  // empty = all
};

const std::vector<ReduceCase> kReduceCases = {
    {{1}, {0}},          {{7}, {-1}},           {{3, 5}, {1}},         {{3, 5}, {0}},
    {{4, 1, 6}, {1}},    {{2, 3, 4, 5}, {1, 3}}, {{2, 3, 4, 5}, {-1, -2}}, {{2, 3, 4, 5}, {}},
    {{5, 1031}, {-1}},   {{1, 1, 1}, {0, 2}},    {{3, 300, 2}, {1}},    {{2, 3, 4, 5}, {0, 2, 3}},
    {{600}, {0}},        {{9, 7, 1}, {2}},
};

TEST(WebGpuReduceOp, SumMeanAmaxOverDimSets) {
  std::mt19937 rng(17);
  const char* names[] = {"aten.sum.dim_IntList", "aten.mean.dim", "aten.amax.default", "aten.amin.default"};
  for (int op = 0; op < 4; ++op) {
    for (const ReduceCase& c : kReduceCases) {
      for (int variant = 0; variant < 4; ++variant) {
        // keepdim, and the GPU kernel choice (reduce_rows.wgsl where the reduced dims are innermost).
        const bool keepdim = variant & 1, gpu = variant & 2;
        Split s = split(c.shape, c.dims, keepdim);
        test::VkGraphBuilder b;
        b.gpu_kernels = gpu;
        int x = b.input(ScalarType::kFloat, c.shape);
        int out = b.tensor(ScalarType::kFloat, s.out_shape);
        // Empty dims: sum/mean pass Null (reduce all); amax passes [] (reduce all).
        int dims = c.dims.empty() && op < 2 ? b.none() : b.int_list(c.dims);
        if (op < 2) b.op(names[op], {x, dims, b.bool_value(keepdim), b.none(), out});
        else b.op(names[op], {x, dims, b.bool_value(keepdim), out});
        b.output(out);
        Tensor t = test::random_tensor(ScalarType::kFloat, c.shape, rng);
        auto r = b.run({Value::make_tensor(t)});
        ASSERT_TRUE(r.ok()) << names[op] << ": " << r.status().to_string();
        const Tensor& got = (*r)[0].tensor;
        ASSERT_EQ(got.sizes, s.out_shape) << names[op];
        auto g = groups(c.shape, s.reduced);
        ASSERT_EQ(static_cast<int64_t>(g.size()), got.numel());
        for (size_t row = 0; row < g.size(); ++row) {
          double acc = op == 2 ? -INFINITY : op == 3 ? INFINITY : 0, mag = 0;
          for (int64_t i : g[row]) {
            const double v = t.data_as<float>()[i];
            mag += std::fabs(v);
            if (op < 2) acc += v;
            else if (op == 2) acc = std::max(acc, v);
            else acc = std::min(acc, v);
          }
          double tol = 0;
          if (op < 2) {
            tol = 1e-5 * (1 + mag);
            if (op == 1) { acc /= static_cast<double>(g[row].size()); tol /= static_cast<double>(g[row].size()); }
          }
          ASSERT_NEAR(got.data_as<float>()[row], acc, tol) << names[op] << " row " << row << " keepdim " << keepdim << " gpu " << gpu;
        }
      }
    }
  }
}

TEST(WebGpuReduceOp, ArgmaxTakesFirstIndexOnTies) {
  std::mt19937 rng(19);
  std::uniform_int_distribution<int> small(-3, 3);  // many ties
  for (const ReduceCase& c : kReduceCases) {
    if (c.dims.size() > 1) continue;
    for (bool keepdim : {false, true}) {
      for (bool is_min : {false, true}) {
        const bool flat = c.dims.empty();
        Split s = split(c.shape, c.dims, keepdim);
        if (flat) s.out_shape = keepdim ? std::vector<int64_t>(c.shape.size(), 1) : std::vector<int64_t>{};
        test::VkGraphBuilder b;
        int x = b.input(ScalarType::kFloat, c.shape);
        int out = b.tensor(ScalarType::kLong, s.out_shape);
        b.op(is_min ? "aten.argmin.default" : "aten.argmax.default",
             {x, flat ? b.none() : b.int_value(c.dims[0]), b.bool_value(keepdim), out});
        b.output(out);
        Tensor t = Tensor::make_owned(ScalarType::kFloat, c.shape);
        for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = static_cast<float>(small(rng));
        auto r = b.run({Value::make_tensor(t)});
        ASSERT_TRUE(r.ok()) << r.status().to_string();
        const Tensor& got = (*r)[0].tensor;
        ASSERT_EQ(got.sizes, s.out_shape);
        auto g = groups(c.shape, s.reduced);
        for (size_t row = 0; row < g.size(); ++row) {
          int64_t best = 0;
          for (size_t k = 1; k < g[row].size(); ++k) {
            const float v = t.data_as<float>()[g[row][k]], bv = t.data_as<float>()[g[row][static_cast<size_t>(best)]];
            if (is_min ? v < bv : v > bv) best = static_cast<int64_t>(k);
          }
          ASSERT_EQ(static_cast<int64_t>(test::at_f(got, static_cast<int64_t>(row))), best)
              << "row " << row << " min " << is_min;
        }
      }
    }
  }
}

TEST(WebGpuReduceOp, SumOfIntsAndBools) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kBool, {4, 33});
  int out = b.tensor(ScalarType::kLong, {4});
  b.op("aten.sum.dim_IntList", {x, b.int_list({1}), b.bool_value(false), b.none(), out});
  b.output(out);
  std::mt19937 rng(23);
  Tensor t = test::random_tensor(ScalarType::kBool, {4, 33}, rng, 0, 1);
  auto r = b.run({Value::make_tensor(t)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  for (int64_t row = 0; row < 4; ++row) {
    int64_t want = 0;
    for (int64_t k = 0; k < 33; ++k) want += t.data_as<uint8_t>()[row * 33 + k];
    EXPECT_EQ(static_cast<int64_t>(test::at_f((*r)[0].tensor, row)), want);
  }
}

TEST(WebGpuReduceOp, SoftmaxAndLogSoftmaxAreStable) {
  std::mt19937 rng(29);
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{1}, 0}, {{7}, -1}, {{3, 5}, 1}, {{3, 5}, 0}, {{2, 3, 4, 5}, 1}, {{2, 3, 4, 5}, -1},
      {{4, 1031}, -1}, {{1, 1, 9}, 2}, {{6, 1, 3}, 1}, {{2, 300, 3}, -2},
      // Enough rows that the kernel gives each row fewer threads (32 and 64 per row).
      {{3000, 37}, -1}, {{1500, 300}, -1}, {{2, 1100, 300}, -1}, {{1100, 300, 2}, 1},
  };
  for (int variant = 0; variant < 4; ++variant) {
    // gpu: the GPU kernel choice, reduce_rows.wgsl for a softmax over the last dim of rows of
    // 256 or more ({4, 1031} here), reduce.wgsl's packed rows for shorter ones.
    const bool log = variant & 1, gpu = variant & 2;
    for (const auto& [shape, dim] : cases) {
      // reduce_rows.wgsl runs a 256-thread workgroup per row: on SwiftShader only the small
      // cases (RowsKernelLongRowsAndChunks has long rows of its own).
      int64_t numel = 1;
      for (int64_t d : shape) numel *= d;
      if (gpu && numel > 20000) continue;
      test::VkGraphBuilder b;
      b.gpu_kernels = gpu;
      int x = b.input(ScalarType::kFloat, shape);
      int out = b.tensor(ScalarType::kFloat, shape);
      b.op(log ? "aten._log_softmax.default" : "aten._softmax.default", {x, b.int_value(dim), b.bool_value(false), out});
      b.output(out);
      // Large logits: a naive exp would overflow.
      Tensor t = test::random_tensor(ScalarType::kFloat, shape, rng, -100, 100);
      auto r = b.run({Value::make_tensor(t)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      const Tensor& got = (*r)[0].tensor;
      ASSERT_EQ(got.sizes, shape);
      std::vector<bool> reduced(shape.size(), false);
      reduced[static_cast<size_t>(dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim)] = true;
      for (const auto& row : groups(shape, reduced)) {
        double m = -INFINITY, sum = 0;
        for (int64_t i : row) m = std::max(m, static_cast<double>(t.data_as<float>()[i]));
        for (int64_t i : row) sum += std::exp(t.data_as<float>()[i] - m);
        for (int64_t i : row) {
          const double v = t.data_as<float>()[i] - m;
          const double want = log ? v - std::log(sum) : std::exp(v) / sum;
          ASSERT_NEAR(got.data_as<float>()[i], want, 1e-5 + 1e-4 * std::fabs(want)) << "log " << log << " gpu " << gpu << " at " << i;
        }
      }
    }
  }
}

// Attention-style masks: -inf scores (the first element, runs of them, whole rows). Each row
// with a finite entry must match torch exactly in shape (masked entries 0); a row that is all
// -inf gives NaN, as torch's softmax does. Covers softmax_rows.wgsl's online max/sum.
TEST(WebGpuReduceOp, SoftmaxOfMaskedScores) {
  std::mt19937 rng(31);
  const std::vector<int64_t> shape = {1, 3, 67, 131};
  Tensor t = test::random_tensor(ScalarType::kFloat, shape, rng, -20, 20);
  float* v = t.data_as<float>();
  const int64_t rows = 3 * 67, len = 131;
  std::bernoulli_distribution masked(0.3);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < len; ++i)
      if (r % 5 == 0 || (r % 5 == 1 && i < 40) || (r % 5 == 2 && masked(rng))) v[r * len + i] = -INFINITY;
    if (r % 5 == 0 && r % 2 == 1) v[r * len + 70] = 3.f;  // a single live entry mid-row
  }
  for (int variant = 0; variant < 4; ++variant) {
    const bool log = variant & 1;
    test::VkGraphBuilder b;
    b.gpu_kernels = variant & 2;  // reduce_rows.wgsl (cached rows)
    int x = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, shape);
    b.op(log ? "aten._log_softmax.default" : "aten._softmax.default", {x, b.int_value(-1), b.bool_value(false), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(t)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const float* got = (*r)[0].tensor.data_as<float>();
    for (int64_t row = 0; row < rows; ++row) {
      double m = -INFINITY, sum = 0;
      for (int64_t i = 0; i < len; ++i) m = std::max(m, static_cast<double>(v[row * len + i]));
      for (int64_t i = 0; i < len; ++i) sum += std::exp(v[row * len + i] - m);
      for (int64_t i = 0; i < len; ++i) {
        const float g = got[row * len + i];
        if (m == -INFINITY) {
          ASSERT_TRUE(std::isnan(g)) << "log " << log << " all-masked row " << row << " at " << i << ": " << g;
          continue;
        }
        const double d = v[row * len + i] - m;
        const double want = log ? d - std::log(sum) : std::exp(d) / sum;
        if (std::isinf(want)) {
          ASSERT_EQ(g, want) << "log " << log << " row " << row << " at " << i;
        } else {
          ASSERT_NEAR(g, want, 1e-5 + 1e-4 * std::fabs(want)) << "log " << log << " row " << row << " at " << i;
        }
      }
    }
  }
}

// Many rows shorter than a workgroup on the GPU kernel choice (D-FINE's deformable-attention
// sum over 12 sampling points, [8 * 32 * 300, 12] there): reduce.wgsl with rows packed
// 256 / tpr a workgroup, not reduce_rows.wgsl's workgroup a row; sum and amax over the last
// dim, and a mean over the last two, against double CPU sums; the profile says which ran.
TEST(WebGpuReduceOp, ShortRowsTakeThePackedKernel) {
  std::mt19937 rng(38);
  struct C { std::vector<int64_t> shape; std::vector<int64_t> dims; const char* op; };
  const std::vector<C> cases = {
      {{8, 37, 30, 12}, {-1}, "aten.sum.dim_IntList"},
      {{3001, 12}, {1}, "aten.amax.default"},
      {{7, 9, 5, 11}, {2, 3}, "aten.mean.dim"},
  };
  for (const C& c : cases) {
    Tensor t = test::random_tensor(ScalarType::kFloat, c.shape, rng, -3, 5);
    Split s = split(c.shape, c.dims, false);
    auto g = groups(c.shape, s.reduced);
    const std::string op = c.op;
    test::VkGraphBuilder b;
    b.gpu_kernels = true;
    b.profile = true;
    int x = b.input(ScalarType::kFloat, c.shape);
    int out = b.tensor(ScalarType::kFloat, s.out_shape);
    if (op == "aten.amax.default") b.op(c.op, {x, b.int_list(c.dims), b.bool_value(false), out});
    else b.op(c.op, {x, b.int_list(c.dims), b.bool_value(false), b.none(), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(t)});
    ASSERT_TRUE(r.ok()) << op << ": " << r.status().to_string();
    ASSERT_EQ(b.kernels.size(), 1u) << op;
    EXPECT_EQ(test::count_kernel(b.kernels, " reduce"), 1u) << op << ": " << b.kernels[0];
    const Tensor& got = (*r)[0].tensor;
    ASSERT_EQ(static_cast<int64_t>(g.size()), got.numel());
    for (size_t row = 0; row < g.size(); ++row) {
      double acc = op == "aten.amax.default" ? -INFINITY : 0, mag = 0;
      for (int64_t i : g[row]) {
        const double v = t.data_as<float>()[i];
        mag += std::fabs(v);
        acc = op == "aten.amax.default" ? std::max(acc, v) : acc + v;
      }
      double tol = op == "aten.amax.default" ? 0 : 1e-5 * (1 + mag);
      if (op == "aten.mean.dim") { acc /= static_cast<double>(g[row].size()); tol /= static_cast<double>(g[row].size()); }
      ASSERT_NEAR(got.data_as<float>()[row], acc, tol) << op << " row " << row;
    }
  }
}

// reduce_rows.wgsl's own paths, on odd sizes: rows longer than a workgroup's register
// cache (softmax's two-read path, with -inf runs), and few long rows split into chunks
// whose partials a second dispatch combines (sum, mean, amax, amin). Against double CPU
// computations; the profile shows which kernel ran.
TEST(WebGpuReduceOp, RowsKernelLongRowsAndChunks) {
  std::mt19937 rng(37);
  struct C { std::vector<int64_t> shape; std::vector<int64_t> dims; size_t dispatches; };
  const std::vector<C> cases = {
      {{3, 5001}, {-1}, 2},           // 3 rows of 3 chunks
      {{2, 3, 71, 67}, {2, 3}, 2},    // MODNet-style mean over H*W: 6 rows, 3 chunks
      {{1, 40000}, {}, 2},            // one row, 20 chunks
      {{1031, 2049}, {1}, 1},         // enough rows: one dispatch
      {{2, 1, 3, 1, 2100}, {4, 3}, 2},  // size-1 dims among the kept and reduced ones
  };
  const char* names[] = {"aten.sum.dim_IntList", "aten.mean.dim", "aten.amax.default", "aten.amin.default"};
  for (const C& c : cases) {
    Tensor t = test::random_tensor(ScalarType::kFloat, c.shape, rng, -3, 5);
    Split s = split(c.shape, c.dims, false);
    auto g = groups(c.shape, s.reduced);
    for (int op = 0; op < 4; ++op) {
      test::VkGraphBuilder b;
      b.gpu_kernels = true;
      b.profile = true;
      int x = b.input(ScalarType::kFloat, c.shape);
      int out = b.tensor(ScalarType::kFloat, s.out_shape);
      int dims = c.dims.empty() && op < 2 ? b.none() : b.int_list(c.dims);
      if (op < 2) b.op(names[op], {x, dims, b.bool_value(false), b.none(), out});
      else b.op(names[op], {x, dims, b.bool_value(false), out});
      b.output(out);
      auto r = b.run({Value::make_tensor(t)});
      ASSERT_TRUE(r.ok()) << names[op] << ": " << r.status().to_string();
      ASSERT_EQ(b.kernels.size(), c.dispatches) << names[op];
      for (const std::string& k : b.kernels) EXPECT_NE(k.find("reduce_rows"), std::string::npos) << k;
      const Tensor& got = (*r)[0].tensor;
      ASSERT_EQ(static_cast<int64_t>(g.size()), got.numel());
      for (size_t row = 0; row < g.size(); ++row) {
        double acc = op == 2 ? -INFINITY : op == 3 ? INFINITY : 0, mag = 0;
        for (int64_t i : g[row]) {
          const double v = t.data_as<float>()[i];
          mag += std::fabs(v);
          if (op < 2) acc += v;
          else if (op == 2) acc = std::max(acc, v);
          else acc = std::min(acc, v);
        }
        double tol = op < 2 ? 1e-5 * (1 + mag) : 0;
        if (op == 1) { acc /= static_cast<double>(g[row].size()); tol /= static_cast<double>(g[row].size()); }
        ASSERT_NEAR(got.data_as<float>()[row], acc, tol) << names[op] << " row " << row;
      }
    }
  }
  // Softmax rows past the register cache (8 x 256 words), some with -inf runs or all -inf.
  const int64_t rows = 5, len = 2311;
  Tensor t = test::random_tensor(ScalarType::kFloat, {rows, len}, rng, -30, 30);
  for (int64_t i = 0; i < 700; ++i) t.data_as<float>()[1 * len + i] = -INFINITY;
  for (int64_t i = 0; i < len; ++i) t.data_as<float>()[3 * len + i] = -INFINITY;
  for (bool log : {false, true}) {
    test::VkGraphBuilder b;
    b.gpu_kernels = true;
    b.profile = true;
    int x = b.input(ScalarType::kFloat, {rows, len});
    int out = b.tensor(ScalarType::kFloat, {rows, len});
    b.op(log ? "aten._log_softmax.default" : "aten._softmax.default", {x, b.int_value(-1), b.bool_value(false), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(t)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(b.kernels.size(), 1u);
    EXPECT_NE(b.kernels[0].find("reduce_rows"), std::string::npos) << b.kernels[0];
    const float* v = t.data_as<float>();
    const float* got = (*r)[0].tensor.data_as<float>();
    for (int64_t row = 0; row < rows; ++row) {
      double m = -INFINITY, sum = 0;
      for (int64_t i = 0; i < len; ++i) m = std::max(m, static_cast<double>(v[row * len + i]));
      for (int64_t i = 0; i < len; ++i) sum += std::exp(v[row * len + i] - m);
      for (int64_t i = 0; i < len; ++i) {
        const float gv = got[row * len + i];
        if (m == -INFINITY) {
          ASSERT_TRUE(std::isnan(gv)) << "log " << log << " all -inf row " << row << " at " << i;
          continue;
        }
        const double d = v[row * len + i] - m;
        const double want = log ? d - std::log(sum) : std::exp(d) / sum;
        if (std::isinf(want)) ASSERT_EQ(gv, want) << "log " << log << " row " << row << " at " << i;
        else ASSERT_NEAR(gv, want, 1e-5 + 1e-4 * std::fabs(want)) << "log " << log << " row " << row << " at " << i;
      }
    }
  }
}

TEST(WebGpuReduceOp, DimOutOfRangeFailsAtBuild) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {3, 4});
  int out = b.tensor(ScalarType::kFloat, {3});
  b.op("aten.sum.dim_IntList", {x, b.int_list({2}), b.bool_value(false), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {3, 4}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("out of range"), std::string::npos) << r.status().message();
}

TEST(WebGpuReduceOp, OutputOfWrongRankFails) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {3, 4});
  int out = b.tensor(ScalarType::kFloat, {3});  // keepdim=true needs [3, 1]
  b.op("aten.mean.dim", {x, b.int_list({-1}), b.bool_value(true), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {3, 4}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not fit"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
