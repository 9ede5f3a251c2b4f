// embedding / index_select / index.Tensor / gather against direct CPU lookups. Values
// are copied, so comparisons are exact. An out-of-range index is an error naming the op
// and the index, as PyTorch raises one: checked on the host for graph-input and constant
// index tensors, and by a flag the shader sets and the delegate reads back after the run
// for indices computed on the GPU.
#include <gtest/gtest.h>

#include "single_op.h"

namespace wick {
namespace {

Tensor int_tensor(std::vector<int64_t> shape, const std::vector<int64_t>& v) {
  Tensor t = Tensor::make_owned(ScalarType::kLong, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

Result<std::vector<Value>> run_embedding(const Tensor& w, const Tensor& idx) {
  test::VkGraphBuilder b;
  int ii = b.input(ScalarType::kLong, idx.sizes);
  std::vector<int64_t> oshape = idx.sizes;
  oshape.push_back(w.sizes[1]);
  int out = b.tensor(ScalarType::kFloat, oshape);
  b.op("aten.embedding.default", {b.constant(w), ii, b.int_value(-1), b.bool_value(false), b.bool_value(false), out});
  b.output(out);
  return b.run({Value::make_tensor(idx)});
}

TEST(WebGpuIndexingOp, EmbeddingLooksUpRows) {
  std::mt19937 rng(41);
  Tensor w = test::random_tensor(ScalarType::kFloat, {100, 32}, rng);
  Tensor idx = int_tensor({2, 4}, {0, 99, 5, 42, 3, 7, 7, 1});
  auto r = run_embedding(w, idx);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{2, 4, 32}));
  for (int64_t j = 0; j < 8; ++j)
    for (int64_t d = 0; d < 32; ++d)
      ASSERT_EQ((*r)[0].tensor.data_as<float>()[j * 32 + d], w.data_as<float>()[idx.data_as<int64_t>()[j] * 32 + d]);
}

// 1,000,000 into a 100-row table once gave zeros and success; PyTorch raises IndexError.
TEST(WebGpuIndexingOp, EmbeddingOutOfRangeIndexIsAnError) {
  std::mt19937 rng(41);
  Tensor w = test::random_tensor(ScalarType::kFloat, {100, 32}, rng);
  for (int64_t bad : {int64_t{1000000}, int64_t{100}, int64_t{-1}}) {
    auto r = run_embedding(w, int_tensor({2, 2}, {0, 99, bad, 7}));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("aten.embedding.default: index " + std::to_string(bad) + " is out of bounds"),
              std::string::npos)
        << r.status().to_string();
  }
}

TEST(WebGpuIndexingOp, IndexSelectEveryDim) {
  std::mt19937 rng(42);
  const std::vector<int64_t> shape = {3, 5, 7};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  const std::vector<int64_t> sel = {2, 0, 2, 1};
  for (int64_t dim = -1; dim < 3; ++dim) {
    const int64_t d = dim < 0 ? dim + 3 : dim;
    std::vector<int64_t> oshape = shape;
    oshape[d] = 4;
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int ii = b.input(ScalarType::kLong, {4});
    int out = b.tensor(ScalarType::kFloat, oshape);
    b.op("aten.index_select.default", {xi, b.int_value(dim), ii, out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x), Value::make_tensor(int_tensor({4}, sel))});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ((*r)[0].tensor.sizes, oshape);
    for (int64_t i = 0; i < oshape[0]; ++i)
      for (int64_t j = 0; j < oshape[1]; ++j)
        for (int64_t k = 0; k < oshape[2]; ++k) {
          int64_t c[3] = {i, j, k};
          c[d] = sel[static_cast<size_t>(c[d])];
          ASSERT_EQ((*r)[0].tensor.data_as<float>()[(i * oshape[1] + j) * oshape[2] + k],
                    x.data_as<float>()[(c[0] * 5 + c[1]) * 7 + c[2]]) << "dim " << dim;
        }
  }
}

TEST(WebGpuIndexingOp, IndexTensorOneIndexWithNegatives) {
  std::mt19937 rng(43);
  // self[idx] on dim 0 (the llama rope-table lookup), and self[:, idx] via a leading None.
  Tensor x = test::random_tensor(ScalarType::kFloat, {32, 8}, rng);
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {32, 8});
    int ii = b.input(ScalarType::kLong, {3});
    int out = b.tensor(ScalarType::kFloat, {3, 8});
    b.op("aten.index.Tensor", {xi, b.value_list({ii}), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x), Value::make_tensor(int_tensor({3}, {5, -1, -32}))});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int64_t d = 0; d < 8; ++d) {
      EXPECT_EQ((*r)[0].tensor.data_as<float>()[d], x.data_as<float>()[5 * 8 + d]);
      EXPECT_EQ((*r)[0].tensor.data_as<float>()[8 + d], x.data_as<float>()[31 * 8 + d]);
      EXPECT_EQ((*r)[0].tensor.data_as<float>()[16 + d], x.data_as<float>()[d]);
    }
    // 32 and -33 are outside [-32, 32): PyTorch raises, so does the delegate.
    for (int64_t bad : {int64_t{32}, int64_t{-33}}) {
      test::VkGraphBuilder e;
      int exi = e.input(ScalarType::kFloat, {32, 8});
      int eii = e.input(ScalarType::kLong, {3});
      int eout = e.tensor(ScalarType::kFloat, {3, 8});
      e.op("aten.index.Tensor", {exi, e.value_list({eii}), eout});
      e.output(eout);
      auto er = e.run({Value::make_tensor(x), Value::make_tensor(int_tensor({3}, {5, bad, 0}))});
      ASSERT_FALSE(er.ok()) << bad;
      EXPECT_NE(er.status().message().find("aten.index.Tensor: index " + std::to_string(bad)), std::string::npos)
          << er.status().to_string();
    }
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {32, 8});
    int ii = b.input(ScalarType::kLong, {2, 2});
    int out = b.tensor(ScalarType::kFloat, {32, 2, 2});
    b.op("aten.index.Tensor", {xi, b.value_list({b.none(), ii}), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x), Value::make_tensor(int_tensor({2, 2}, {7, 0, -8, 3}))});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{32, 2, 2}));
    const int64_t cols[4] = {7, 0, 0, 3};
    for (int64_t i = 0; i < 32; ++i)
      for (int64_t j = 0; j < 4; ++j)
        ASSERT_EQ((*r)[0].tensor.data_as<float>()[i * 4 + j], x.data_as<float>()[i * 8 + cols[j]]);
  }
}

TEST(WebGpuIndexingOp, GatherRandom) {
  std::mt19937 rng(44);
  const std::vector<int64_t> shape = {1, 33, 5};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  for (int64_t dim : {1, 2, 0}) {
    std::vector<int64_t> ishape = {1, 7, 4};
    Tensor idx = Tensor::make_owned(ScalarType::kLong, ishape);
    std::uniform_int_distribution<int64_t> u(0, shape[static_cast<size_t>(dim)] - 1);
    for (int64_t i = 0; i < idx.numel(); ++i) idx.data_as<int64_t>()[i] = u(rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int ii = b.input(ScalarType::kLong, ishape);
    int out = b.tensor(ScalarType::kFloat, ishape);
    b.op("aten.gather.default", {xi, b.int_value(dim), ii, b.bool_value(false), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x), Value::make_tensor(idx)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int64_t j = 0; j < 7; ++j)
      for (int64_t k = 0; k < 4; ++k) {
        int64_t c[3] = {0, j, k};
        const int64_t v = idx.data_as<int64_t>()[j * 4 + k];
        c[dim] = v;
        ASSERT_EQ((*r)[0].tensor.data_as<float>()[j * 4 + k], x.data_as<float>()[(c[0] * 33 + c[1]) * 5 + c[2]])
            << "dim " << dim << " at " << j << "," << k;
      }
    // One index past the end, then one negative (gather does not wrap): both errors.
    for (int64_t bad : {shape[static_cast<size_t>(dim)], int64_t{-1}}) {
      idx.data_as<int64_t>()[5] = bad;
      test::VkGraphBuilder e;
      int exi = e.input(ScalarType::kFloat, shape);
      int eii = e.input(ScalarType::kLong, ishape);
      int eout = e.tensor(ScalarType::kFloat, ishape);
      e.op("aten.gather.default", {exi, e.int_value(dim), eii, e.bool_value(false), eout});
      e.output(eout);
      auto er = e.run({Value::make_tensor(x), Value::make_tensor(idx)});
      ASSERT_FALSE(er.ok()) << "dim " << dim << " index " << bad;
      EXPECT_NE(er.status().message().find("aten.gather.default: index " + std::to_string(bad)), std::string::npos)
          << er.status().to_string();
    }
  }
}

TEST(WebGpuIndexingOp, IndexSelectOutOfRangeIsAnError) {
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {3, 5});
  int ii = b.input(ScalarType::kLong, {2});
  int out = b.tensor(ScalarType::kFloat, {3, 2});
  b.op("aten.index_select.default", {xi, b.int_value(1), ii, out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {3, 5})),
                  Value::make_tensor(int_tensor({2}, {4, 5}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("aten.index_select.default: index 5 is out of bounds for dim 1 of size 5"),
            std::string::npos)
      << r.status().to_string();
}

// embedding(w, ids + offsets): the index tensor is computed on the GPU by aten.add.Tensor,
// so no host check sees it; only the shader's flag can. Once returned zeros and success.
Result<std::vector<Value>> run_computed_embedding(const Tensor& w, const std::vector<int64_t>& ids,
                                                  const std::vector<int64_t>& offsets) {
  const int64_t n = static_cast<int64_t>(ids.size());
  test::VkGraphBuilder b;
  int ii = b.input(ScalarType::kLong, {n});
  int sum = b.tensor(ScalarType::kLong, {n});
  b.op("aten.add.Tensor", {ii, b.constant(int_tensor({n}, offsets)), b.int_value(1), sum});
  int out = b.tensor(ScalarType::kFloat, {n, w.sizes[1]});
  b.op("aten.embedding.default", {b.constant(w), sum, b.int_value(-1), b.bool_value(false), b.bool_value(false), out});
  b.output(out);
  return b.run({Value::make_tensor(int_tensor({n}, ids))});
}

TEST(WebGpuIndexingOp, ComputedIndexOutOfRangeIsAnError) {
  std::mt19937 rng(45);
  Tensor w = test::random_tensor(ScalarType::kFloat, {100, 8}, rng);
  auto good = run_computed_embedding(w, {0, 1, 2, 3}, {5, 0, 90, 96});
  ASSERT_TRUE(good.ok()) << good.status().to_string();
  const int64_t rows[4] = {5, 1, 92, 99};
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t d = 0; d < 8; ++d)
      ASSERT_EQ((*good)[0].tensor.data_as<float>()[j * 8 + d], w.data_as<float>()[rows[j] * 8 + d]);
  for (int64_t bad : {int64_t{1000000}, int64_t{100}, int64_t{-1}}) {
    auto r = run_computed_embedding(w, {0, 1, 2, 3}, {0, 0, bad - 2, 0});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("aten.embedding.default: index " + std::to_string(bad) +
                                        " is out of bounds for dim 0 of size 100"),
              std::string::npos)
        << r.status().to_string();
    EXPECT_NE(r.status().message().find("computed on the GPU"), std::string::npos) << r.status().to_string();
  }
}

// The same graph called again after a call whose GPU-computed index was out of range: the
// failed call leaves nothing behind (its outputs' readback buffer, mapped as the wait for the
// GPU, GraphOptions::readback_map_wait, is unmapped again), so the next call's copies into
// it are valid and its rows right. Both ways of waiting.
TEST(WebGpuIndexingOp, CallAfterComputedIndexErrorSucceeds) {
  std::mt19937 rng(46);
  Tensor w = test::random_tensor(ScalarType::kFloat, {100, 8}, rng);
  const int64_t n = 4;
  auto ids = [&](std::vector<int64_t> v) { return std::vector<Value>{Value::make_tensor(int_tensor({n}, v))}; };
  for (const bool map_wait : {true, false}) {
    test::VkGraphBuilder b;
    b.readback_map_wait = map_wait;
    int ii = b.input(ScalarType::kLong, {n});
    int sum = b.tensor(ScalarType::kLong, {n});
    b.op("aten.add.Tensor", {ii, b.constant(int_tensor({n}, {5, 0, 90, 96})), b.int_value(1), sum});
    int out = b.tensor(ScalarType::kFloat, {n, 8});
    b.op("aten.embedding.default", {b.constant(w), sum, b.int_value(-1), b.bool_value(false), b.bool_value(false), out});
    b.output(out);
    b.later_calls = {ids({0, 1, 20, 3}), ids({1, 2, 3, 0})};
    b.later_errors_continue = true;
    auto first = b.run(ids({0, 1, 2, 3}));
    ASSERT_TRUE(first.ok()) << first.status().to_string();
    ASSERT_EQ(b.later_statuses.size(), 2u);
    EXPECT_FALSE(b.later_statuses[0].ok()) << "index 110 of 100 rows";
    EXPECT_NE(b.later_statuses[0].message().find("computed on the GPU"), std::string::npos) << b.later_statuses[0].to_string();
    ASSERT_TRUE(b.later_statuses[1].ok()) << (map_wait ? "map wait: " : "queue wait: ") << b.later_statuses[1].to_string();
    const int64_t rows[4] = {6, 2, 93, 96};
    for (int64_t j = 0; j < n; ++j)
      for (int64_t d = 0; d < 8; ++d)
        ASSERT_EQ(b.later_outputs[1][0].tensor.data_as<float>()[j * 8 + d], w.data_as<float>()[rows[j] * 8 + d]) << j;
  }
}

// gather with an index computed on the GPU (idx + 0), past the end of dim 1.
TEST(WebGpuIndexingOp, ComputedGatherIndexOutOfRangeIsAnError) {
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {2, 3});
  int ii = b.input(ScalarType::kLong, {2, 2});
  int sum = b.tensor(ScalarType::kLong, {2, 2});
  b.op("aten.add.Tensor", {ii, b.constant(int_tensor({2, 2}, {0, 0, 0, 1})), b.int_value(1), sum});
  int out = b.tensor(ScalarType::kFloat, {2, 2});
  b.op("aten.gather.default", {xi, b.int_value(1), sum, b.bool_value(false), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {2, 3})),
                  Value::make_tensor(int_tensor({2, 2}, {0, 2, 1, 2}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("aten.gather.default: index 3 is out of bounds for dim 1 of size 3"),
            std::string::npos)
      << r.status().to_string();
}

// A constant index tensor is checked on the host when the graph is built.
TEST(WebGpuIndexingOp, ConstantIndexOutOfRangeIsAnError) {
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {4, 3});
  int out = b.tensor(ScalarType::kFloat, {2, 3});
  b.op("aten.index_select.default", {xi, b.int_value(0), b.constant(int_tensor({2}, {1, 4})), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4, 3}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("aten.index_select.default: index 4 is out of bounds for dim 0 of size 4"),
            std::string::npos)
      << r.status().to_string();
}

TEST(WebGpuIndexingOp, IndexTensorWithTwoIndicesIsNotSupported) {
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {4, 4});
  int i0 = b.input(ScalarType::kLong, {2});
  int i1 = b.input(ScalarType::kLong, {2});
  int out = b.tensor(ScalarType::kFloat, {2});
  b.op("aten.index.Tensor", {xi, b.value_list({i0, i1}), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4, 4})),
                  Value::make_tensor(int_tensor({2}, {0, 1})), Value::make_tensor(int_tensor({2}, {0, 1}))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotSupported) << r.status().to_string();
}

}  // namespace
}  // namespace wick
