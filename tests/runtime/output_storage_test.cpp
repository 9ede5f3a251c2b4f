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

}  // namespace
}  // namespace wick
