// The CPU executor on plans built by hand (vkgraph::Plan is plain data): limits and
// errors a hostile or unsupported graph must meet, and the exporter's quirks it absorbs.
#include <gtest/gtest.h>

#include "vkcpu/cpu_graph.h"

namespace wick::vkcpu {
namespace {

using vkgraph::ValueKind;

struct PlanBuilder {
  vkgraph::Plan plan;
  int32_t add(vkgraph::ValueDecl v) {
    plan.values.push_back(std::move(v));
    return static_cast<int32_t>(plan.values.size() - 1);
  }
  int32_t tensor(std::vector<int64_t> dims, int mem_obj = -1) {
    vkgraph::ValueDecl v;
    v.kind = ValueKind::kTensor;
    v.tensor.dims = std::move(dims);
    v.tensor.mem_obj_id = mem_obj;
    return add(std::move(v));
  }
  int32_t scalar(ValueKind kind, int64_t i, double d = 0) {
    vkgraph::ValueDecl v;
    v.kind = kind;
    v.i = i;
    v.d = d;
    return add(std::move(v));
  }
  int32_t int_list(std::vector<int64_t> ints) {
    vkgraph::ValueDecl v;
    v.kind = ValueKind::kIntList;
    v.ints = std::move(ints);
    return add(std::move(v));
  }
  void op(std::string name, std::vector<int32_t> args) {
    plan.ops.push_back({static_cast<uint32_t>(plan.ops.size()), std::move(name), std::move(args)});
  }
};

Tensor filled(std::vector<int64_t> sizes, std::vector<float> v) {
  Tensor t = Tensor::make_owned(ScalarType::kFloat, std::move(sizes));
  for (size_t i = 0; i < v.size(); ++i) t.data_as<float>()[i] = v[i];
  return t;
}

TEST(CpuGraph, HugeTensorsAreAnErrorNotAnAllocation) {
  PlanBuilder b;
  const int32_t x = b.tensor({1 << 16, 1 << 16});  // 16 GiB of fp32
  b.plan.input_ids = {x};
  auto g = CpuGraph::build(b.plan);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), ErrorCode::kOutOfResources) << g.status().to_string();
}

// The bound is the method's MemoryLimits::max_planned_bytes (DelegateInitContext), so a
// caller that lowers it (the C API fuzzer: 16 MiB) is not handed a 2 GiB allocation.
TEST(CpuGraph, TheCallersMemoryLimitBoundsTheGraph) {
  PlanBuilder b;
  const int32_t x = b.tensor({1 << 10, 1 << 10});  // 4 MiB of fp32
  b.plan.input_ids = {x};
  auto small = CpuGraph::build(b.plan, uint64_t{1} << 20);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().code(), ErrorCode::kOutOfResources) << small.status().to_string();
  EXPECT_NE(small.status().message().find("max_planned_bytes"), std::string::npos) << small.status().message();
  EXPECT_TRUE(CpuGraph::build(b.plan, uint64_t{8} << 20).ok());
}

TEST(CpuGraph, MissingOperatorsAreNamedTogether) {
  PlanBuilder b;
  const int32_t x = b.tensor({4});
  b.op("aten.no_such.default", {x, x});
  b.op("et_vk.also_missing.default", {x, x});
  auto g = CpuGraph::build(b.plan);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), ErrorCode::kOperatorMissing);
  EXPECT_NE(g.status().message().find("'aten.no_such.default', 'et_vk.also_missing.default'"), std::string::npos)
      << g.status().message();
}

// alpha arrives as the Double 2.0 (the exporter dedups 2 and 2.0); the view's literal size
// [4, 2] is the upper bound and the live input has 3 rows: view_copy resolves [3, 2].
TEST(CpuGraph, IntegralDoublesAndDynamicViews) {
  PlanBuilder b;
  const int32_t x = b.tensor({8}), y = b.tensor({8}), alpha = b.scalar(ValueKind::kDouble, 0, 2.0);
  const int32_t sum = b.tensor({8}), size = b.int_list({4, 2}), out = b.tensor({4, 2});
  b.op("aten.add.Tensor", {x, y, alpha, sum});
  b.op("aten.view_copy.default", {sum, size, out});
  b.plan.input_ids = {x, y};
  b.plan.output_ids = {out};
  auto g = CpuGraph::build(b.plan);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  ValueTable host;
  host.values = {Value::make_tensor(filled({6}, {1, 2, 3, 4, 5, 6})), Value::make_tensor(filled({6}, {1, 1, 1, 1, 1, 1})),
                 Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4, 2}))};
  host.values[2].tensor.dynamism = ShapeDynamism::kDynamicBound;
  const int32_t args[] = {0, 1, 2};
  ASSERT_TRUE((*g)->execute(host, args).ok());
  const Tensor& r = host.values[2].tensor;
  ASSERT_EQ(r.sizes, (std::vector<int64_t>{3, 2}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.data_as<float>()[i], float(i + 1) + 2.0f) << i;
}

// SymInt arithmetic: floordiv rounds toward -inf, as Python's // does; a division by zero
// is an error naming the op.
TEST(CpuGraph, SymIntFloorDivision) {
  PlanBuilder b;
  const int32_t a = b.scalar(ValueKind::kSymInt, 0), two = b.scalar(ValueKind::kInt, 2), q = b.scalar(ValueKind::kSymInt, 0);
  b.op("floordiv", {a, two, q});
  b.plan.input_ids = {a};
  b.plan.output_ids = {q};
  auto g = CpuGraph::build(b.plan);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  ValueTable host;
  host.values = {Value::make_int(-7), Value::make_int(0)};
  const int32_t args[] = {0, 1};
  ASSERT_TRUE((*g)->execute(host, args).ok());
  EXPECT_EQ(host.values[1].i, -4);

  PlanBuilder z;
  const int32_t za = z.scalar(ValueKind::kSymInt, 0), zero = z.scalar(ValueKind::kInt, 0), zq = z.scalar(ValueKind::kSymInt, 0);
  z.op("floordiv", {za, zero, zq});
  z.plan.input_ids = {za};
  z.plan.output_ids = {zq};
  auto zg = CpuGraph::build(z.plan);
  ASSERT_TRUE(zg.ok());
  Status s = (*zg)->execute(host, args);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("floordiv"), std::string::npos) << s.message();
}

TEST(CpuGraph, InputsBeyondTheGraphsBoundAreRejected) {
  PlanBuilder b;
  const int32_t x = b.tensor({4}), y = b.tensor({4});
  b.op("aten.relu.default", {x, y});
  b.plan.input_ids = {x};
  b.plan.output_ids = {y};
  auto g = CpuGraph::build(b.plan);
  ASSERT_TRUE(g.ok());
  ValueTable host;
  host.values = {Value::make_tensor(filled({5}, {1, 2, 3, 4, 5})), Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4}))};
  const int32_t args[] = {0, 1};
  Status s = (*g)->execute(host, args);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("exceeds the graph's bound [4]"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace wick::vkcpu
