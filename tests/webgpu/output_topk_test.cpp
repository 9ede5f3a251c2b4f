// Top-k of a graph output's last row on the GPU (webgpu/output_topk.h, row_topk.wgsl),
// what the LLM sampler reads instead of the whole logits row. Checked exactly (same
// values, same ids, torch.topk's tie order: lower index first) against a host top-k of
// the same output: rows over several 2,048-element chunks, ties across chunks, -inf,
// k from 1 to the maximum; and through Method::request_output_topk on an LLM fixture.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runtime/program.h"
#include "single_op.h"
#include "test_util.h"
#include "webgpu/backend.h"
#include "webgpu/output_topk.h"

namespace wick {
namespace {

// Reference: the k best of `row` (value desc, index asc).
TopK host_topk(const std::vector<float>& row, int k) {
  std::vector<int32_t> ids(row.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  const size_t keep = std::min(ids.size(), static_cast<size_t>(k));
  std::partial_sort(ids.begin(), ids.begin() + keep, ids.end(),
                    [&](int32_t a, int32_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
  TopK t;
  t.ids.assign(ids.begin(), ids.begin() + keep);
  for (int32_t id : t.ids) t.values.push_back(row[id]);
  return t;
}

// relu(x) with x mostly negative: few positive entries, many tied zeros, so top-k runs into
// ties that span chunks; a few -inf stay -inf.
void check(int64_t rows, int64_t n, int k, uint32_t seed) {
  std::mt19937 rng(seed);
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {rows, n});
  int y = b.tensor(ScalarType::kFloat, {rows, n});
  b.op("aten.relu.default", {x, y});
  b.output(y);
  b.output_topk[0] = k;
  Tensor t = test::random_tensor(ScalarType::kFloat, {rows, n}, rng, -10.0, 0.3);
  for (int i = 0; i < 3; ++i) t.data_as<float>()[(rows - 1) * n + static_cast<int64_t>(rng() % n)] = 7.25f;  // exact ties
  auto r = b.run({Value::make_tensor(t)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(b.topk_results.count(0), 1u);
  const TopK& got = b.topk_results[0];
  std::vector<float> last(t.data_as<float>() + (rows - 1) * n, t.data_as<float>() + rows * n);
  for (float& v : last) v = std::max(v, 0.0f);
  TopK want = host_topk(last, k);
  EXPECT_EQ(got.ids, want.ids) << rows << "x" << n << " k " << k;
  EXPECT_EQ(got.values, want.values) << rows << "x" << n << " k " << k;
  // The output itself was not read back, but its shape is current.
  EXPECT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{rows, n}));
}

TEST(OutputTopK, MatchesHostTopKAcrossChunksAndTies) {
  check(1, 100, 1, 1);
  check(1, 2048, 5, 2);
  check(3, 5000, 40, 3);                           // 3 chunks, the last row
  check(2, 7000, webgpu::kMaxOutputTopK, 4);       // k = max
  check(1, 2049, 64, 5);                           // a one-element last chunk
  check(1, 10, 64, 6);                             // k > n: all of them
}

TEST(OutputTopK, ArgmaxIsTheFirstMaximum) {
  // Every entry equal: torch.argmax answers 0.
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {1, 4100});
  int y = b.tensor(ScalarType::kFloat, {1, 4100});
  b.op("aten.relu.default", {x, y});
  b.output(y);
  b.output_topk[0] = 1;
  Tensor t = Tensor::make_owned(ScalarType::kFloat, {1, 4100});
  std::fill(t.data_as<float>(), t.data_as<float>() + 4100, -1.0f);
  auto r = b.run({Value::make_tensor(t)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(b.topk_results[0].ids, std::vector<int32_t>{0});
}

TEST(OutputTopK, BadKIsAnError) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {1, 8});
  int y = b.tensor(ScalarType::kFloat, {1, 8});
  b.op("aten.relu.default", {x, y});
  b.output(y);
  b.output_topk[0] = webgpu::kMaxOutputTopK + 1;
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 8}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().to_string().find("k must be in"), std::string::npos) << r.status().to_string();
}

Value ids(std::vector<int64_t> v) {
  Tensor t = Tensor::make_owned(ScalarType::kLong, {1, static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data_as<int64_t>());
  return Value::make_tensor(std::move(t));
}
Value position(int64_t p) {
  Tensor t = Tensor::make_owned(ScalarType::kLong, {1});
  *t.data_as<int64_t>() = p;
  return Value::make_tensor(std::move(t));
}

// Each step runs twice at the same position (the second run rewrites the same KV-cache
// rows with the same values): first reading the logits back, then asking for their
// top-k on the GPU.
TEST(OutputTopK, MethodOnLlmLogits) {
  ASSERT_TRUE(webgpu::register_webgpu_backend().ok()) << "no WebGPU device";
  auto program = Program::load_file(test::fixtures_dir() + "/demos/qwen3_tiny_kv/model.pte");
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  Method& m = **method;
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> steps = {{{3, 14, 15, 92, 65}, 0}, {{35}, 5}, {{89}, 6}};
  for (const auto& [tokens, pos] : steps) {
    ASSERT_TRUE(m.request_output_topk(0, 0).ok());
    auto a = m.forward({ids(tokens), position(pos)});
    ASSERT_TRUE(a.ok()) << a.status().to_string();
    EXPECT_FALSE(m.output_topk(0).ok()) << "no top-k requested";
    ASSERT_TRUE(m.request_output_topk(0, 40).ok());
    EXPECT_TRUE(m.output_topk_on_device(0)) << "the logits come straight from the WebGPU delegate";
    ASSERT_TRUE(m.forward({ids(tokens), position(pos)}).ok());
    auto got = m.output_topk(0);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    const Tensor& logits = (*a)[0].tensor;
    const int64_t vocab = logits.sizes.back();
    std::vector<float> row(logits.data_as<float>() + (logits.numel() - vocab), logits.data_as<float>() + logits.numel());
    TopK want = host_topk(row, 40);
    EXPECT_EQ((*got)->ids, want.ids) << "position " << pos;
    EXPECT_EQ((*got)->values, want.values) << "position " << pos;
  }
  EXPECT_FALSE(m.request_output_topk(0, Method::kMaxTopK + 1).ok());
  EXPECT_FALSE(m.request_output_topk(3, 1).ok());
}

}  // namespace
}  // namespace wick
