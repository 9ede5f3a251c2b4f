// core/view_shape.h: the live shape of a view, and the errors for size lists that cannot be one.
#include <gtest/gtest.h>

#include "core/view_shape.h"

namespace wick {
namespace {

TEST(ViewShape, InfersMinusOneAndAbsorbsAShorterLiveShape) {
  auto inferred = resolve_view_shape("view", {2, -1, 4}, 24);
  ASSERT_TRUE(inferred.ok()) << inferred.status().message();
  EXPECT_EQ(inferred.value(), (std::vector<int64_t>{2, 3, 4}));
  // Serialized for 8 rows, running with 5: the leftmost dim that divides takes the change.
  auto shorter = resolve_view_shape("view", {8, 16}, 5 * 16);
  ASSERT_TRUE(shorter.ok()) << shorter.status().message();
  EXPECT_EQ(shorter.value(), (std::vector<int64_t>{5, 16}));
}

TEST(ViewShape, BadSizeListsAreNamedErrors) {
  struct Case {
    std::vector<int64_t> sizes;
    int64_t numel;
    const char* says;
  };
  for (const Case& c : {
           Case{{-1, -1}, 6, "more than one -1"},
           Case{{2, -3}, 6, "invalid size"},
           Case{{4, -1}, 6, "does not fit"},
           Case{{0, -1}, 6, "does not fit"},
           // The fuzzer's case: two sizes whose product overflows int64 (undefined behaviour
           // before the check).
           Case{{8158897908156953701, 8171062853285144372}, 6, "more elements than int64 holds"},
           Case{{int64_t{1} << 32, int64_t{1} << 31, -1}, 6, "more elements than int64 holds"},
       }) {
    auto r = resolve_view_shape("aten.view_copy.default", c.sizes, c.numel);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("aten.view_copy.default: "), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace wick
