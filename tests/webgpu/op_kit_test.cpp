// The op-building kit (webgpu/ops/op_kit.h): every declared schema parses, and a call
// that does not fit its schema fails before the builder with the op, the argument and
// what was expected.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "webgpu/op_registry.h"
#include "webgpu/ops/op_kit.h"
#include "webgpu/ops/shape/copy.h"
#include "single_op.h"

namespace wick {
namespace {

TEST(WebGpuOpKit, EveryDeclaredSchemaParsesAndEveryNameIsDeclaredOnce) {
  std::set<std::string> names;
  for (const webgpu::OpEntry& e : webgpu::all_ops()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name << " declared twice";
    ASSERT_TRUE(e.schema) << e.name;
    EXPECT_TRUE(e.build) << e.name;
    Status s = webgpu::check_schema(e.schema);
    EXPECT_TRUE(s.ok()) << e.name << ": " << s.to_string();
  }
  EXPECT_FALSE(webgpu::check_schema("T Q -> T").ok());
  EXPECT_FALSE(webgpu::check_schema("T -> T -> T").ok());
  EXPECT_FALSE(webgpu::check_schema("").ok());
  EXPECT_TRUE(webgpu::schema_accepts("T F [*] -> T", 3));
  EXPECT_TRUE(webgpu::schema_accepts("T F [*] -> T", 4));
  EXPECT_FALSE(webgpu::schema_accepts("T F [*] -> T", 2));
}

TEST(WebGpuOpKit, WrongCountNamesTheOpAndTheSchema) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {2, 3});
  int y = b.tensor(ScalarType::kFloat, {3, 2});
  b.op("aten.permute_copy.default", {x, y});
  b.output(y);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {2, 3}))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidProgram);
  EXPECT_NE(r.status().message().find("aten.permute_copy.default: expected 3 arguments (T L -> T), got 2"),
            std::string::npos)
      << r.status().message();
}

TEST(WebGpuOpKit, WrongKindNamesTheArgumentAndWhatWasExpected) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {2, 3});
  int y = b.tensor(ScalarType::kFloat, {3, 2});
  int dims = b.int_value(1);
  b.op("aten.permute_copy.default", {x, dims, y});
  b.output(y);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {2, 3}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("aten.permute_copy.default: argument 1 (value " + std::to_string(dims) +
                                      ") is an int, expected an int list"),
            std::string::npos)
      << r.status().message();
}

TEST(WebGpuOpKit, FlatCopyArgumentsComeFromTheDeclarations) {
  auto clone = webgpu::flat_copy_args("aten.clone.default", 3);
  ASSERT_TRUE(clone.has_value());
  EXPECT_EQ(clone->first, 0u);
  EXPECT_EQ(clone->second, 2u);
  auto to_copy = webgpu::flat_copy_args("aten._to_copy.default", 8);
  ASSERT_TRUE(to_copy.has_value());
  EXPECT_EQ(to_copy->second, 7u);
  EXPECT_FALSE(webgpu::flat_copy_args("aten.clone.default", 4).has_value());
  EXPECT_FALSE(webgpu::flat_copy_args("aten.permute_copy.default", 3).has_value());
  EXPECT_FALSE(webgpu::flat_copy_args("aten.no_such_op.default", 3).has_value());
}

}  // namespace
}  // namespace wick
