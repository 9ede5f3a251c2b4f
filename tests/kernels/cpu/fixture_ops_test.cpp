// Runs the single-op CPU programs of ../shared/fixtures/ops_undelegated (log, maximum,
// mean_hw, sum_dim) kernel by kernel: the case inputs go through the kernel with the
// arguments the program's KernelCall lists, and the result must match PyTorch's
// reference output within the manifest's tolerance.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "kernels/cpu/kernel_test_util.h"

#ifndef WICK_FIXTURES_DIR
#define WICK_FIXTURES_DIR ""
#endif

namespace wick::cpu::testing {
namespace {

bool read_floats(const std::string& path, std::vector<double>& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> vals(bytes.size() / 4);
  std::memcpy(vals.data(), bytes.data(), vals.size() * 4);
  out.assign(vals.begin(), vals.end());
  return true;
}

struct Fixture {
  std::string dir;
  std::vector<double> in0, in1, ref;
  bool load(const std::string& name, bool two_inputs) {
    dir = std::string(WICK_FIXTURES_DIR) + "/ops_undelegated/" + name + "/";
    return read_floats(dir + "case0_input0.bin", in0) && (!two_inputs || read_floats(dir + "case0_input1.bin", in1)) &&
           read_floats(dir + "case0_output0.bin", ref);
  }
};

void expect_within(const std::vector<double>& got, const std::vector<double>& ref, double atol, double rtol) {
  ASSERT_EQ(got.size(), ref.size());
  for (size_t k = 0; k < got.size(); ++k)
    ASSERT_LE(std::fabs(got[k] - ref[k]), atol + rtol * std::fabs(ref[k])) << "at " << k;
}

TEST(CpuKernelFixture, Log) {
  Fixture fx;
  if (!fx.load("log", false)) GTEST_SKIP() << "fixture ops_undelegated/log not found";
  Harness h;  // aten::log.out(x[2,8,12])
  int32_t x = h.tensor(ScalarType::kFloat, {2, 8, 12}, fx.in0);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 8, 12});
  ASSERT_TRUE(h.call("aten::log.out", {x, out, out}).ok());
  expect_within(h.data(out), fx.ref, 1e-5, 1e-5);
}

TEST(CpuKernelFixture, Maximum) {
  Fixture fx;
  if (!fx.load("maximum", true)) GTEST_SKIP() << "fixture ops_undelegated/maximum not found";
  Harness h;  // aten::maximum.out(a[2,8,12], b[2,8,12]), exact
  int32_t a = h.tensor(ScalarType::kFloat, {2, 8, 12}, fx.in0);
  int32_t b = h.tensor(ScalarType::kFloat, {2, 8, 12}, fx.in1);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 8, 12});
  ASSERT_TRUE(h.call("aten::maximum.out", {a, b, out, out}).ok());
  expect_within(h.data(out), fx.ref, 0, 0);
}

TEST(CpuKernelFixture, MeanHW) {
  Fixture fx;
  if (!fx.load("mean_hw", false)) GTEST_SKIP() << "fixture ops_undelegated/mean_hw not found";
  Harness h;  // aten::mean.out(x[2,8,16,20], [2,3], False, None)
  int32_t x = h.tensor(ScalarType::kFloat, {2, 8, 16, 20}, fx.in0);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 8});
  ASSERT_TRUE(h.call("aten::mean.out", {x, h.int_list({2, 3}), h.b(false), h.none(), out, out}).ok());
  expect_within(h.data(out), fx.ref, 1e-4, 1e-4);
}

TEST(CpuKernelFixture, SumDim) {
  Fixture fx;
  if (!fx.load("sum_dim", false)) GTEST_SKIP() << "fixture ops_undelegated/sum_dim not found";
  Harness h;  // aten::sum.IntList_out(x[2,8,16,20], [1], False, None)
  int32_t x = h.tensor(ScalarType::kFloat, {2, 8, 16, 20}, fx.in0);
  int32_t out = h.tensor(ScalarType::kFloat, {2, 16, 20});
  ASSERT_TRUE(h.call("aten::sum.IntList_out", {x, h.int_list({1}), h.b(false), h.none(), out, out}).ok());
  expect_within(h.data(out), fx.ref, 1e-4, 1e-4);
}

}  // namespace
}  // namespace wick::cpu::testing
