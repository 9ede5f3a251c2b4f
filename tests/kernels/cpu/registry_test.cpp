#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kernels/cpu/kernel_test_util.h"

namespace wick::cpu::testing {
namespace {

TEST(CpuKernelRegistry, HasEveryKernelTheFixturesNeed) {
  // cpu_kernel_ops of ../shared/fixtures/index.json, plus add.out / mul.out.
  const char* needed[] = {
      "aten::_native_batch_norm_legit_no_training.out", "aten::add.Scalar_out", "aten::addmm.out", "aten::any.out",
      "aten::convolution.out", "aten::copy_", "aten::cumsum.out", "aten::grid_sampler_2d.out",
      "aten::index.Tensor_out", "aten::index_put.out", "aten::log.out", "aten::max.dim_max", "aten::maximum.out",
      "aten::mean.out", "aten::mul.Scalar_out", "aten::permute_copy.out", "aten::relu.out",
      "aten::scalar_tensor.out", "aten::sum.IntList_out", "aten::topk.values", "aten::add.out", "aten::mul.out",
  };
  for (const char* name : needed) EXPECT_NE(find_kernel(name), nullptr) << name;
  EXPECT_EQ(find_kernel("aten::add"), nullptr);
  EXPECT_EQ(find_kernel("aten::no_such_op.out"), nullptr);
  EXPECT_EQ(find_kernel(""), nullptr);
}

TEST(CpuKernelRegistry, NamesAreUniqueAndWellFormed) {
  std::set<std::string> seen;
  for (const KernelEntry& e : all_kernels()) {
    std::string name = e.name;
    EXPECT_TRUE(seen.insert(name).second) << "duplicate " << name;
    EXPECT_NE(name.find("::"), std::string::npos) << name;
    EXPECT_NE(e.fn, nullptr) << name;
    EXPECT_EQ(find_kernel(name), e.fn) << name;
  }
  EXPECT_GT(seen.size(), 100u);
}

// Every kernel, fed argument lists of the wrong length or type, must return an error
// that names it (or succeed, when the junk happens to be valid) and never crash. Run
// under -fsanitize=address,undefined to catch out-of-bounds accesses as well.
TEST(CpuKernelRegistry, GarbageArgumentsNeverCrash) {
  for (const KernelEntry& e : all_kernels()) {
    for (int filler = 0; filler < 10; ++filler) {
      for (size_t count = 0; count <= 12; ++count) {
        Harness h;
        int32_t ids[10] = {
            h.none(),
            h.i(0),
            h.i(-1),
            h.tensor(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6}),
            h.tensor(ScalarType::kFloat, {0}),
            h.b(true),
            h.int_list({0}),
            -1,  // not a value index at all
            h.tensor(ScalarType::kLong, {2}, {5, -9}),
            h.d(0.5),
        };
        int32_t list = h.tensor_list({ids[3], ids[3]});
        int32_t opt_list = h.optional_tensor_list({-1, ids[8]});
        std::vector<int32_t> args(count, ids[filler]);
        // Mix in list values in later positions so list-taking kernels get past their first checks.
        if (count > 1 && filler % 3 == 0) args[1] = filler == 0 ? list : opt_list;
        Status s = e.fn(h.vt, args);
        if (!s.ok()) {
          EXPECT_EQ(s.message().rfind(e.name, 0), 0u) << e.name << ": " << s.message();
        }
      }
    }
  }
}

}  // namespace
}  // namespace wick::cpu::testing
