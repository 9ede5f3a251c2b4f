// forward() returns copies of the outputs; their storage is reused by the next forward()
// only when the caller has let go of it (method.cpp's copy_out): outputs a caller keeps
// must never change under it, and a loop that drops them must not allocate (and zero)
// fresh memory for every call.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/program.h"
#include "test_util.h"

namespace wick {
namespace {

TEST(MethodOutputStorage, KeptOutputsStayAndDroppedOnesAreReused) {
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("ops_undelegated/log", &f));  // y = log(x), float32 [2, 8, 12]
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method(f.method);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  const Tensor& x = f.cases[0].inputs[0].tensor;
  Tensor x2 = Tensor::make_owned(ScalarType::kFloat, x.sizes);
  for (int64_t i = 0; i < x2.numel(); ++i) x2.data_as<float>()[i] = 2.0f * x.data_as<float>()[i] + 1.0f;

  auto kept = (*method)->forward({Value::make_tensor(x)});
  ASSERT_TRUE(kept.ok()) << kept.status().to_string();
  const void* kept_data = (*kept)[0].tensor.data;
  auto other = (*method)->forward({Value::make_tensor(x2)});
  ASSERT_TRUE(other.ok()) << other.status().to_string();
  // Held by the caller: a fresh copy, and the kept one still holds log(x).
  EXPECT_NE((*other)[0].tensor.data, kept_data);
  for (int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_NEAR((*kept)[0].tensor.data_as<float>()[i], std::log(x.data_as<float>()[i]), 1e-5) << i;
    ASSERT_NEAR((*other)[0].tensor.data_as<float>()[i], std::log(x2.data_as<float>()[i]), 1e-5) << i;
  }
  // Dropped by the caller: the next call's copy goes into the same storage.
  const void* other_data = (*other)[0].tensor.data;
  other = Result<std::vector<Value>>(std::vector<Value>{});
  auto again = (*method)->forward({Value::make_tensor(x)});
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ((*again)[0].tensor.data, other_data);
  for (int64_t i = 0; i < x.numel(); ++i)
    ASSERT_NEAR((*again)[0].tensor.data_as<float>()[i], std::log(x.data_as<float>()[i]), 1e-5) << i;
}

TEST(MethodOutputStorage, DroppedOutputsAreWrittenInPlace) {
  // The output is written by one instruction and read by none: once the caller lets go of
  // a call's output, the next call's result goes straight into that storage (no copy), while
  // an output the caller keeps makes the next call copy into fresh storage. The lower-level
  // output() still reads the last forward()'s values; execute() writes the planned memory.
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("ops_undelegated/log", &f));
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method(f.method);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  const Tensor& x = f.cases[0].inputs[0].tensor;
  const uint64_t bytes = static_cast<uint64_t>(x.nbytes());
  Tensor x2 = Tensor::make_owned(ScalarType::kFloat, x.sizes);
  for (int64_t i = 0; i < x2.numel(); ++i) x2.data_as<float>()[i] = 2.0f * x.data_as<float>()[i] + 1.0f;
  auto expect_log = [&](const Tensor& got, const Tensor& in, const char* what) {
    for (int64_t i = 0; i < in.numel(); ++i)
      ASSERT_NEAR(got.data_as<float>()[i], std::log(in.data_as<float>()[i]), 1e-5) << what << " " << i;
  };
  { auto first = (*method)->forward({Value::make_tensor(x)}); ASSERT_TRUE(first.ok()); }
  EXPECT_EQ((*method)->last_output_copy_bytes(), bytes) << "the first call copies";
  // A CPU kernel reads the input: it is copied in (only delegates that declare their inputs
  // read-only get the caller's tensor, webgpu/borrowed_inputs_test.cpp).
  EXPECT_EQ((*method)->last_input_copy_bytes(), bytes);
  auto second = (*method)->forward({Value::make_tensor(x2)});
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  EXPECT_EQ((*method)->last_output_copy_bytes(), 0u) << "the first call's output was dropped: written in place";
  expect_log((*second)[0].tensor, x2, "in place");
  // Kept: the third call copies, and the second's stays log(x2).
  auto third = (*method)->forward({Value::make_tensor(x)});
  ASSERT_TRUE(third.ok()) << third.status().to_string();
  EXPECT_EQ((*method)->last_output_copy_bytes(), bytes);
  expect_log((*second)[0].tensor, x2, "kept");
  expect_log((*third)[0].tensor, x, "copied");
  // output() after a forward() that wrote in place; then execute() alone must not touch
  // the tensor the caller holds.
  third = Result<std::vector<Value>>(std::vector<Value>{});
  auto fourth = (*method)->forward({Value::make_tensor(x2)});
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ((*method)->last_output_copy_bytes(), 0u);
  auto again = (*method)->output(0);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  expect_log(again->tensor, x2, "output()");
  ASSERT_TRUE((*method)->set_input(0, Value::make_tensor(x)).ok());
  ASSERT_TRUE((*method)->execute().ok());
  expect_log((*fourth)[0].tensor, x2, "held across execute()");
  auto fifth = (*method)->output(0);
  ASSERT_TRUE(fifth.ok());
  expect_log(fifth->tensor, x, "execute() then output()");
}

}  // namespace
}  // namespace wick
