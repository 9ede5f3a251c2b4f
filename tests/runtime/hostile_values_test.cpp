// The CPU fixtures with each of their ints, and each of their tensors' sizes, replaced by
// extreme values, one at a time. A kernel must answer every one with an error (or a
// result) and never overflow, read out of bounds or allocate without bound: under
// -fsanitize=address,undefined (the ASan stage of scripts/test.sh) this sweep is a
// deterministic fuzzer aimed at the kernels' arithmetic on values from the file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "pte_patch.h"

namespace wick {
namespace {

// As low as the fuzzer's: a mutated size must meet the limit, not make a slow allocation.
MemoryLimits low_limits() {
  MemoryLimits l;
  l.max_planned_bytes = 16 << 20;
  l.max_io_bytes = 16 << 20;
  return l;
}

void expect_no_crash(const std::vector<uint8_t>& bytes, const std::string& what) {
  Status s = test::load_and_run(bytes, low_limits());
  if (!s.ok()) {
    EXPECT_FALSE(s.message().empty()) << what;
  }
}

const char* kPrograms[] = {"cpu/cnn_cpu/model.pte", "cpu/mlp_cpu/model.pte", "cpu/mlp_cpu_dynamic_batch/model.pte",
                           "ops_undelegated/log/model.pte", "ops_undelegated/maximum/model.pte",
                           "ops_undelegated/mean_hw/model.pte", "ops_undelegated/sum_dim/model.pte",
                           "samples/apple_add.pte", "samples/arduino_add.pte",
                           "samples/module_linear_inline_constants.pte"};

class HostileValues : public ::testing::TestWithParam<const char*> {};

TEST_P(HostileValues, ExtremeScalarsNeverCrash) {
  test::PtePatch pte(GetParam());
  ASSERT_TRUE(test::load_and_run(pte.bytes, low_limits()).ok()) << "the intact file must run";
  const auto* values = pte.plan().values();
  for (flatbuffers::uoffset_t v = 0; v < values->size(); ++v) {
    const fb::EValue& ev = pte.value(v);
    const std::string what = "value " + std::to_string(v) + " = ";
    // A scalar holding its default (0) is not stored: nothing to patch.
    if (ev.val_type() == fb::KernelTypes::Int && pte.int_field(v) != 0) {
      for (int64_t x : {INT64_MAX, INT64_MIN, int64_t{1} << 62, -(int64_t{1} << 62), int64_t{1} << 31,
                        -(int64_t{1} << 31), int64_t{-1}, int64_t{-2}})
        expect_no_crash(pte.with<int64_t>(pte.int_field(v), x), what + std::to_string(x));
    }
    if (ev.val_type() == fb::KernelTypes::Double) {
      const size_t at = pte.field(ev.val_as_Double(), fb::Double::VT_DOUBLE_VAL);
      if (at == 0) continue;
      for (double x : {double{NAN}, double{INFINITY}, -double{INFINITY}, 1e300, -1e300, 9.3e18, -9.3e18, 1e-300})
        expect_no_crash(pte.with<double>(at, x), what + std::to_string(x));
    }
  }
}

TEST_P(HostileValues, ExtremeTensorSizesNeverCrash) {
  test::PtePatch pte(GetParam());
  const auto* values = pte.plan().values();
  for (flatbuffers::uoffset_t v = 0; v < values->size(); ++v) {
    if (pte.value(v).val_type() != fb::KernelTypes::Tensor) continue;
    const auto* sizes = pte.tensor(v).sizes();
    if (sizes == nullptr) continue;
    for (flatbuffers::uoffset_t d = 0; d < sizes->size(); ++d) {
      for (int32_t x : {INT32_MAX, 1 << 20, 0, 1, -1}) {
        if (x == sizes->Get(d)) continue;
        expect_no_crash(pte.with<int32_t>(pte.at(sizes->data() + d), x),
                        "value " + std::to_string(v) + " size " + std::to_string(d) + " = " + std::to_string(x));
      }
    }
  }
}

// cpu/cnn_cpu.pte: the first convolution's stride, padding and dilation are the Int
// values 25/26, 28/29 and 31/32 (all 1). What the sweep above found first: 2 * padding
// overflowed int64 (undefined behaviour) before any check; geometry is now bounded first.
TEST(HostileConvolution, HugePaddingStrideOrDilationIsAnError) {
  test::PtePatch pte("cpu/cnn_cpu/model.pte");
  ASSERT_TRUE(test::load_and_run(pte.bytes).ok());
  for (int64_t pad : {int64_t{1} << 62, INT64_MAX})
    EXPECT_TRUE(test::fails_naming(test::load_and_run(pte.with<int64_t>(pte.int_field(28), pad)),
                                   ErrorCode::kInvalidArgument,
                                   {"aten::convolution.out", "padding", std::to_string(pad)}));
  for (flatbuffers::uoffset_t v : {25u, 31u})  // stride, dilation
    EXPECT_TRUE(test::fails_naming(test::load_and_run(pte.with<int64_t>(pte.int_field(v), INT64_MAX)),
                                   ErrorCode::kInvalidArgument, {"aten::convolution.out", "out of range"}));
}

// A bool is read through bool pointers, and a byte other than 0 or 1 loaded as one is
// undefined behaviour (what c_api_fuzzer found through convert_elements). Where bools enter
// the runtime the bytes are checked: cpu/mlp_cpu's first weight declared bool (its float
// bytes are not 0 / 1) fails the load naming the element; an input declared bool takes a
// tensor of 0 / 1 and refuses a byte 2.
TEST(HostileBools, BoolConstantWithOtherBytesIsAnError) {
  test::PtePatch pte("cpu/mlp_cpu/model.pte");
  const auto* values = pte.plan().values();
  flatbuffers::uoffset_t weight = 0;
  for (flatbuffers::uoffset_t v = 0; v < values->size() && weight == 0; ++v)
    if (pte.value(v).val_type() == fb::KernelTypes::Tensor && pte.tensor(v).data_buffer_idx() > 0 &&
        pte.tensor(v).allocation_info() == nullptr)
      weight = v;
  ASSERT_NE(weight, 0u) << "mlp_cpu has a constant weight";
  const size_t at = pte.field(&pte.tensor(weight), fb::Tensor::VT_SCALAR_TYPE);
  auto program = Program::load_bytes(pte.with<int8_t>(at, static_cast<int8_t>(ScalarType::kBool)), "bool_weight.pte");
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method("forward");
  EXPECT_TRUE(test::fails_naming(method.status(), ErrorCode::kInvalidProgram,
                                 {"value " + std::to_string(weight), "bool element", "holds the byte", "0 or 1"}));
}

TEST(HostileBools, BoolInputWithOtherBytesIsAnError) {
  test::PtePatch pte("cpu/mlp_cpu/model.pte");
  const flatbuffers::uoffset_t input = static_cast<flatbuffers::uoffset_t>(pte.plan().inputs()->Get(0));
  const size_t at = pte.field(&pte.tensor(input), fb::Tensor::VT_SCALAR_TYPE);
  auto program = Program::load_bytes(pte.with<int8_t>(at, static_cast<int8_t>(ScalarType::kBool)), "bool_input.pte");
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  const auto& sizes = pte.tensor(input).sizes();
  Tensor x = Tensor::make_owned(ScalarType::kBool, std::vector<int64_t>(sizes->begin(), sizes->end()));
  ASSERT_GT(x.nbytes(), 3u);
  static_cast<uint8_t*>(x.data)[1] = 1;
  EXPECT_TRUE((*method)->set_input(0, Value::make_tensor(x)).ok()) << "0 and 1 are bools";
  static_cast<uint8_t*>(x.data)[3] = 2;
  EXPECT_TRUE(test::fails_naming((*method)->set_input(0, Value::make_tensor(x)), ErrorCode::kInvalidArgument,
                                 {"input 0", "bool element 3", "the byte 2"}));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HostileValues, ::testing::ValuesIn(kPrograms),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace wick
