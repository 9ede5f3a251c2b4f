// Delegate runs fused across host operators (runtime/fuse_runs.cpp, vkgraph/merge_plans.h):
// the tiny Whisper encoder, exported with transformers' default SDPA attention, has five
// VulkanBackend delegates with aten.mul.Scalar and aten.any.dim on the CPU between them.
// Fused, it is one delegate call; unfused (WICK_FUSE_DELEGATES=0) it is five. Plus the two operators the fusion moves onto the GPU,
// against direct computations: any.dim exactly, mul.Scalar within 1 ulp-ish (1e-6 rel).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "require_backend.h"
#include "runtime/backend.h"
#include "runtime/program.h"
#include "single_op.h"
#include "test_util.h"

namespace wick {
namespace {

// Delegate calls of the loaded method. That the fused method matches PyTorch is
// DelegateFixture's run of the same fixture (delegate_fixtures_test.cpp): fusion is on by
// default, so it runs the fused graph; a forward here would only repeat it (~8 s in CI).
size_t delegate_calls(const test::Fixture& f) {
  auto program = Program::load_file(f.pte());
  EXPECT_TRUE(program.ok()) << program.status().to_string();
  if (!program.ok()) return 0;
  auto method = (*program)->load_method(f.method);
  EXPECT_TRUE(method.ok()) << method.status().to_string();
  return method.ok() ? (*method)->delegate_calls() : 0;
}

TEST(FusedRuns, WhisperSdpaEncoderIsOneDelegate) {
  test::require_backend();
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture("demos/whisper_tiny_encoder", &f));
  EXPECT_EQ(delegate_calls(f), 1u);
  ASSERT_EQ(setenv("WICK_FUSE_DELEGATES", "0", 1), 0);
  EXPECT_EQ(delegate_calls(f), 5u);
  unsetenv("WICK_FUSE_DELEGATES");
}

// Real programs with the host ops of D-FINE and MODNet between delegates (made on the
// device by scripts/export_ops/export_fused_runs.py, tests/fixtures/ops/fused_*): fused, one
// delegate call; unfused, several. OpFixture (op_fixtures_test.cpp) checks the fused run
// against PyTorch; here the unfused one (host ops on Wick's CPU kernels) is checked too.
TEST(FusedRuns, HostOpFixturesFuseIntoOneCall) {
  test::require_backend();
  for (const char* name : {"fused_grid_sampler_2d", "fused_query_select", "fused_instance_norm"}) {
    SCOPED_TRACE(name);
    test::Fixture f;
    ASSERT_TRUE(test::load_fixture_at(test::source_dir() + "/tests/fixtures/ops/" + name, std::string("ops/") + name, &f));
    EXPECT_EQ(delegate_calls(f), 1u);
    ASSERT_EQ(setenv("WICK_FUSE_DELEGATES", "0", 1), 0);
    EXPECT_GT(delegate_calls(f), 1u);
    test::expect_fixture_matches(f);
    unsetenv("WICK_FUSE_DELEGATES");
  }
}

// A run built here: delegate A (relu), the host max_pool2d_with_indices.out (two outputs,
// int-list arguments, then its return as one TensorList value, as ExecuTorch's emitter
// writes a call with several outputs), delegate B (y + scale * x,
// reading A's input too). Fused through the registered backend, executed once, and
// compared with a direct computation; the pool's indices and A's relu stay inside.
TEST(FusedRuns, MaxPoolBetweenTwoDelegatesMatchesDirect) {
  test::require_backend();
  const std::vector<int64_t> in_shape{1, 3, 8, 10}, pooled{1, 3, 4, 5};
  test::VkGraphBuilder a;
  const int ax = a.input(ScalarType::kFloat, in_shape), ay = a.tensor(ScalarType::kFloat, in_shape);
  a.op("aten.relu.default", {ax, ay});
  a.output(ay);
  test::VkGraphBuilder b;
  const int bp = b.input(ScalarType::kFloat, pooled), bq = b.input(ScalarType::kFloat, pooled);
  const int bz = b.tensor(ScalarType::kFloat, pooled);
  b.op("aten.add.Tensor", {bp, bq, b.double_value(0.5), bz});
  b.output(bz);
  const std::vector<uint8_t> blob_a = a.blob(), blob_b = b.blob();

  // The method's values: 0 x, 1 relu(x), 2-6 the pool's arguments, 7 pooled, 8 indices,
  // 9 a second input (pooled-shaped), 10 z, 11 the pool's return [7, 8].
  ValueTable t;
  std::mt19937 rng(11);
  Tensor x = test::random_tensor(ScalarType::kFloat, in_shape, rng);
  Tensor x2 = test::random_tensor(ScalarType::kFloat, pooled, rng);
  auto tensor = [](ScalarType dt, std::vector<int64_t> shape) {
    Tensor u = Tensor::make_owned(dt, shape);
    u.dynamism = ShapeDynamism::kDynamicBound;
    return Value::make_tensor(std::move(u));
  };
  auto int_list = [&](std::vector<int64_t> v) {
    Value l;
    l.tag = ValueTag::kListInt;
    for (int64_t i : v) {
      t.values.push_back(Value::make_int(i));
      l.items.push_back(static_cast<int32_t>(t.values.size()) - 1);
    }
    return l;
  };
  std::vector<Value> head = {Value::make_tensor(x), tensor(ScalarType::kFloat, in_shape)};
  for (Value& v : head) t.values.push_back(std::move(v));
  // The list items go after the 12 named values: reserve those slots first.
  t.values.resize(12);
  Value k = int_list({2, 2}), st = int_list({2, 2}), pad = int_list({0, 0}), dil = int_list({1, 1});
  t.values[2] = k, t.values[3] = st, t.values[4] = pad, t.values[5] = dil;
  t.values[6] = Value::make_bool(false);
  t.values[7] = tensor(ScalarType::kFloat, pooled);
  t.values[8] = tensor(ScalarType::kLong, pooled);
  t.values[9] = Value::make_tensor(x2);
  t.values[10] = tensor(ScalarType::kFloat, pooled);
  t.values[11].tag = ValueTag::kListTensor;
  t.values[11].items = {7, 8};

  FusedRun run;
  run.values = &t;
  for (const auto* blob : {&blob_a, &blob_b}) {
    DelegateInitContext ctx;
    ctx.processed = *blob;
    run.delegates.push_back(ctx);
  }
  const std::vector<int32_t> args_a{0, 1}, args_pool{1, 2, 3, 4, 5, 6, 7, 8, 11}, args_b{7, 9, 10};
  run.parts = {{0, "", args_a}, {-1, "aten::max_pool2d_with_indices.out", args_pool}, {1, "", args_b}};
  run.read_after.assign(t.values.size(), false);
  run.read_after[10] = true;

  std::shared_ptr<Backend> backend = find_backend("VulkanBackend");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->runs_operator("aten::max_pool2d_with_indices.out"));
  EXPECT_TRUE(backend->runs_operator("aten::grid_sampler_2d.out"));
  EXPECT_FALSE(backend->runs_operator("aten::sin.out"));
  auto fused = backend->init_fused(run);
  ASSERT_TRUE(fused.ok()) << fused.status().to_string();
  // Inputs x and x2, then the one output z: relu(x), the pool and its indices stay inside.
  EXPECT_EQ(fused->args, (std::vector<int32_t>{0, 9, 10}));
  Status s = fused->instance->execute(t, fused->args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  const Tensor& z = t.values[10].tensor;
  ASSERT_EQ(z.sizes, pooled);
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        float m = 0;  // relu first, so the max is at least 0
        for (int64_t di = 0; di < 2; ++di)
          for (int64_t dj = 0; dj < 2; ++dj)
            m = std::max(m, x.data_as<float>()[(c * 8 + 2 * i + di) * 10 + 2 * j + dj]);
        const int64_t o = (c * 4 + i) * 5 + j;
        ASSERT_NEAR(z.data_as<float>()[o], m + 0.5f * x2.data_as<float>()[o], 1e-6) << o;
      }
}

// A graph input that two parts read: delegate A reads x, and its exporter planned x's
// memory object for A's result once x is dead (u = (W x)^2 written over x; a graph with a
// convolution keeps the exporter's plan); delegate B reads x again after the host op. The
// fused graph must keep x in a buffer of its own (MODNet's image, read by several
// branches, came out wrong before it did).
TEST(FusedRuns, InputReadByTwoPartsKeepsItsValue) {
  test::require_backend();
  const std::vector<int64_t> shape{1, 3, 4, 5};
  std::mt19937 rng(12);
  test::VkGraphBuilder a;
  const int ax = a.input(ScalarType::kFloat, shape, 0), at = a.tensor(ScalarType::kFloat, shape, 1);
  const int au = a.tensor(ScalarType::kFloat, shape, 0);  // x's memory object, x being dead
  Tensor w = test::random_tensor(ScalarType::kFloat, {3, 3, 1, 1}, rng);
  a.op("aten.convolution.default", {ax, a.constant(w), a.none(), a.int_list({1, 1}), a.int_list({0, 0}), a.int_list({1, 1}),
                                    a.bool_value(false), a.int_list({0, 0}), a.int_value(1), at});
  a.op("aten.mul.Tensor", {at, at, au});
  a.output(au);
  test::VkGraphBuilder b;
  const int bp = b.input(ScalarType::kFloat, shape), bq = b.input(ScalarType::kFloat, shape);
  const int bz = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.add.Tensor", {bp, bq, b.double_value(1.0), bz});
  b.output(bz);
  const std::vector<uint8_t> blob_a = a.blob(), blob_b = b.blob();

  // Method values: 0 x, 1 u, 2 the scalar 0.5, 3 v = 0.5 u (host mul.Scalar), 4 z = v + x.
  ValueTable t;
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  auto tensor = [&]() {
    Tensor u = Tensor::make_owned(ScalarType::kFloat, shape);
    u.dynamism = ShapeDynamism::kDynamicBound;
    return Value::make_tensor(std::move(u));
  };
  t.values = {Value::make_tensor(x), tensor(), Value::make_double(0.5), tensor(), tensor()};
  FusedRun run;
  run.values = &t;
  const std::unique_ptr<NamedDataMap> named = a.named_data();  // W (b has no constants)
  for (const auto* blob : {&blob_a, &blob_b}) {
    DelegateInitContext ctx;
    ctx.processed = *blob;
    ctx.named_data = named.get();
    run.delegates.push_back(ctx);
  }
  const std::vector<int32_t> args_a{0, 1}, args_mul{1, 2, 3}, args_b{3, 0, 4};
  run.parts = {{0, "", args_a}, {-1, "aten::mul.Scalar_out", args_mul}, {1, "", args_b}};
  run.read_after.assign(t.values.size(), false);
  run.read_after[4] = true;
  auto fused = find_backend("VulkanBackend")->init_fused(run);
  ASSERT_TRUE(fused.ok()) << fused.status().to_string();
  Status s = fused->instance->execute(t, fused->args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  const Tensor& z = t.values[4].tensor;
  const float* xp = x.data_as<float>();
  const float* wp = w.data_as<float>();
  const int64_t hw = 4 * 5;
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < hw; ++i) {
      double y = 0;
      for (int64_t k = 0; k < 3; ++k) y += static_cast<double>(wp[c * 3 + k]) * xp[k * hw + i];
      const double want = 0.5 * y * y + xp[c * hw + i];
      ASSERT_NEAR(z.data_as<float>()[c * hw + i], want, 1e-5 * (1 + std::abs(want))) << c << "," << i;
    }
}

// A run with an operator the backend does not take is declined with a message, and the
// method keeps it as it was (fuse_runs.cpp never offers such a run; this is the backstop).
TEST(FusedRuns, UnknownHostOpIsDeclined) {
  test::require_backend();
  test::VkGraphBuilder a;
  const int ax = a.input(ScalarType::kFloat, {4}), ay = a.tensor(ScalarType::kFloat, {4});
  a.op("aten.relu.default", {ax, ay});
  a.output(ay);
  const std::vector<uint8_t> blob = a.blob();
  ValueTable t;
  t.values = {Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4})),
              Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4})),
              Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4}))};
  FusedRun run;
  run.values = &t;
  DelegateInitContext ctx;
  ctx.processed = blob;
  run.delegates = {ctx, ctx};
  const std::vector<int32_t> a1{0, 1}, op{1, 2}, a2{2, 0};
  run.parts = {{0, "", a1}, {-1, "aten::sin.out", op}, {1, "", a2}};
  run.read_after.assign(3, true);
  auto fused = find_backend("VulkanBackend")->init_fused(run);
  ASSERT_FALSE(fused.ok());
  EXPECT_NE(fused.status().message().find("aten::sin.out"), std::string::npos) << fused.status().to_string();
}

TEST(FusedRunOps, AnyDimMatchesDirect) {
  test::require_backend();
  std::mt19937 rng(7);
  struct Case {
    std::vector<int64_t> shape;
    int64_t dim;
    bool keepdim;
  };
  for (const Case& c : std::vector<Case>{{{1, 4, 37, 53}, -1, true}, {{3, 5, 7}, 1, false}, {{6, 300}, 0, true}}) {
    Tensor x = *Tensor::allocate(ScalarType::kBool, c.shape);
    // Sparse trues, and whole rows of false, so that both answers occur.
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<uint8_t>()[i] = (rng() % 97) == 0;
    test::VkGraphBuilder b;
    const int in = b.input(ScalarType::kBool, c.shape);
    std::vector<int64_t> out_shape = c.shape;
    const size_t d = static_cast<size_t>(c.dim < 0 ? c.dim + static_cast<int64_t>(c.shape.size()) : c.dim);
    if (c.keepdim) out_shape[d] = 1;
    else out_shape.erase(out_shape.begin() + static_cast<std::ptrdiff_t>(d));
    const int out = b.tensor(ScalarType::kBool, out_shape);
    b.op("aten.any.dim", {in, b.int_value(c.dim), b.bool_value(c.keepdim), out});
    b.output(out);
    auto got = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    const Tensor& y = (*got)[0].tensor;
    ASSERT_EQ(y.sizes, out_shape);
    // Direct: outer x reduced x inner.
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < d; ++k) outer *= c.shape[k];
    for (size_t k = d + 1; k < c.shape.size(); ++k) inner *= c.shape[k];
    const int64_t n = c.shape[d];
    int trues = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        bool any = false;
        for (int64_t r = 0; r < n; ++r) any |= x.data_as<uint8_t>()[(o * n + r) * inner + i] != 0;
        trues += any;
        ASSERT_EQ(test::at_f(y, o * inner + i) != 0, any) << "row " << o << "," << i;
      }
    EXPECT_GT(trues, 0);
    EXPECT_LT(trues, outer * inner);
  }
}

TEST(FusedRunOps, AnyDimRefusesFloats) {
  test::require_backend();
  test::VkGraphBuilder b;
  const int in = b.input(ScalarType::kFloat, {2, 3});
  const int out = b.tensor(ScalarType::kBool, {2, 1});
  b.op("aten.any.dim", {in, b.int_value(-1), b.bool_value(true), out});
  b.output(out);
  std::mt19937 rng(1);
  auto got = b.run({Value::make_tensor(test::random_tensor(ScalarType::kFloat, {2, 3}, rng))});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("aten.any.dim"), std::string::npos) << got.status().to_string();
}

TEST(FusedRunOps, MulScalarMatchesDirect) {
  test::require_backend();
  std::mt19937 rng(3);
  Tensor x = test::random_tensor(ScalarType::kFloat, {3, 129, 17}, rng);
  test::VkGraphBuilder b;
  const int in = b.input(ScalarType::kFloat, {3, 129, 17});
  const int out = b.tensor(ScalarType::kFloat, {3, 129, 17});
  b.op("aten.mul.Scalar", {in, b.double_value(0.3535533905932738), out});
  b.output(out);
  auto got = b.run({Value::make_tensor(x)});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  const Tensor& y = (*got)[0].tensor;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double want = static_cast<double>(x.data_as<float>()[i]) * 0.3535533905932738;
    ASSERT_NEAR(y.data_as<float>()[i], want, 1e-6 * (1 + std::abs(want))) << i;
  }
}

}  // namespace
}  // namespace wick
