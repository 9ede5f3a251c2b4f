// Method::forward lends an input that one WebGPU delegate call reads, and nothing else
// names, to that call instead of copying it into the method's memory (the delegate uploads
// from the caller's bytes; runtime/method.cpp's borrowed inputs): no input bytes copied,
// the caller's tensor untouched, the result the same as through set_input + execute, and
// the planned memory back in place afterwards for the lower-level calls.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "runtime/program.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick {
namespace {

TEST(BorrowedInputs, DelegateReadsTheCallersTensor) {
  ASSERT_TRUE(webgpu::register_webgpu_backend({}).ok()) << "no WebGPU device";
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("ops/conv2d_3x3_s1_p1", &f));  // one input [1, 8, 16, 16], one delegate
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method(f.method);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  const Tensor& x = f.cases[0].inputs[0].tensor;
  Tensor x_before = Tensor::make_owned(x.dtype, x.sizes);
  std::memcpy(x_before.data, x.data, x.nbytes());

  auto out = (*method)->forward(f.cases[0].inputs);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_TRUE(test::values_close((*out)[0], f.cases[0].outputs[0], f.atol, f.rtol));
  EXPECT_EQ((*method)->last_input_copy_bytes(), 0u) << "the delegate's only input is lent, not copied";
  EXPECT_EQ(std::memcmp(x.data, x_before.data, x.nbytes()), 0) << "the caller's input changed";

  // Another input through forward(); then a third through the lower-level calls, which copy
  // into the planned memory: that memory must be back in place (not the second input's
  // bytes, which the caller still holds), and forward() of the third gives the same result.
  Tensor x2 = Tensor::make_owned(x.dtype, x.sizes), x3 = Tensor::make_owned(x.dtype, x.sizes);
  for (int64_t i = 0; i < x2.numel(); ++i) {
    x2.data_as<float>()[i] = 0.5f * x.data_as<float>()[i] - 0.25f;
    x3.data_as<float>()[i] = -x.data_as<float>()[i];
  }
  Tensor x2_before = Tensor::make_owned(x.dtype, x.sizes);
  std::memcpy(x2_before.data, x2.data, x2.nbytes());
  auto lent = (*method)->forward({Value::make_tensor(x2)});
  ASSERT_TRUE(lent.ok()) << lent.status().to_string();
  EXPECT_EQ((*method)->last_input_copy_bytes(), 0u);
  EXPECT_FALSE(test::values_close((*lent)[0], (*out)[0], 1e-6, 0)) << "the second input's result is another";
  ASSERT_TRUE((*method)->set_input(0, Value::make_tensor(x3)).ok());
  ASSERT_TRUE((*method)->execute().ok());
  auto copied = (*method)->output(0);
  ASSERT_TRUE(copied.ok()) << copied.status().to_string();
  EXPECT_EQ(std::memcmp(x2.data, x2_before.data, x2.nbytes()), 0) << "set_input wrote into the caller's earlier input";
  auto lent3 = (*method)->forward({Value::make_tensor(x3)});
  ASSERT_TRUE(lent3.ok()) << lent3.status().to_string();
  ASSERT_EQ(copied->tensor.nbytes(), (*lent3)[0].tensor.nbytes());
  EXPECT_EQ(std::memcmp(copied->tensor.data, (*lent3)[0].tensor.data, copied->tensor.nbytes()), 0);
}

}  // namespace
}  // namespace wick
