// Outputs read back through one shared MapRead buffer with one map per call
// (GraphOptions::readback_staging) against one buffer and one map per output: several
// outputs of odd sizes (not multiples of the 256-byte offsets they get in the shared
// buffer), an int64 output (converted from the GPU's i32 words), and later calls of the
// same graph with other values and a smaller shape, each checked element by element
// against the host's own computation.
#include <gtest/gtest.h>

#include <random>

#include "single_op.h"

namespace wick {
namespace {

struct Call {
  Tensor x, y, z;
};

Call make_call(std::vector<int64_t> x_shape, std::mt19937& rng) {
  Call c{test::random_tensor(ScalarType::kFloat, std::move(x_shape), rng, -3, 3),
         test::random_tensor(ScalarType::kFloat, {1, 13}, rng, -3, 3),
         test::random_tensor(ScalarType::kLong, {9}, rng, -1000, 1000)};
  return c;
}

// relu(x), -y and z itself: what the graph below must return.
void expect_outputs(const Call& c, const std::vector<Value>& out, const std::string& what) {
  ASSERT_EQ(out.size(), 3u) << what;
  const Tensor &r = out[0].tensor, &n = out[1].tensor, &z = out[2].tensor;
  ASSERT_EQ(r.sizes, c.x.sizes) << what;
  ASSERT_EQ(n.sizes, c.y.sizes) << what;
  ASSERT_EQ(z.sizes, c.z.sizes) << what;
  ASSERT_EQ(z.dtype, ScalarType::kLong) << what;
  for (int64_t i = 0; i < r.numel(); ++i) {
    const float v = c.x.data_as<float>()[i];
    ASSERT_EQ(r.data_as<float>()[i], v > 0 ? v : 0.f) << what << ": relu output at " << i;
  }
  for (int64_t i = 0; i < n.numel(); ++i) ASSERT_EQ(n.data_as<float>()[i], -c.y.data_as<float>()[i]) << what << ": neg at " << i;
  for (int64_t i = 0; i < z.numel(); ++i) ASSERT_EQ(z.data_as<int64_t>()[i], c.z.data_as<int64_t>()[i]) << what << ": int64 at " << i;
}

TEST(ReadbackStaging, OddSizedOutputsAcrossCallsMatchPerOutputBuffers) {
  std::mt19937 rng(11);
  const Call first = make_call({3, 5, 7}, rng), second = make_call({3, 5, 7}, rng), smaller = make_call({3, 5, 4}, rng);
  for (bool shared : {true, false}) {
    test::VkGraphBuilder b;
    b.readback_staging = shared;
    const int x = b.input(ScalarType::kFloat, {3, 5, 7});  // 105 words: 420 bytes, not a multiple of 256
    const int y = b.input(ScalarType::kFloat, {1, 13});
    const int z = b.input(ScalarType::kLong, {9});
    const int r = b.tensor(ScalarType::kFloat, {3, 5, 7});
    const int n = b.tensor(ScalarType::kFloat, {1, 13});
    const int zc = b.tensor(ScalarType::kLong, {9});
    b.op("aten.relu.default", {x, r});
    b.op("aten.neg.default", {y, n});
    b.op("aten.clone.default", {z, b.none(), zc});
    b.output(r);
    b.output(n);
    b.output(zc);
    auto values = [](const Call& c) {
      return std::vector<Value>{Value::make_tensor(c.x), Value::make_tensor(c.y), Value::make_tensor(c.z)};
    };
    b.later_calls = {values(second), values(smaller)};
    auto out = b.run(values(first));
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const std::string mode = shared ? "shared readback buffer" : "a buffer per output";
    expect_outputs(first, *out, mode + ", first call");
    ASSERT_EQ(b.later_outputs.size(), 2u);
    expect_outputs(second, b.later_outputs[0], mode + ", second call");
    expect_outputs(smaller, b.later_outputs[1], mode + ", smaller input");
  }
}

}  // namespace
}  // namespace wick
