// The FLOPs the profile gives convolutions, matrix products and attention (flop_count.h),
// against the textbook counts written out for each shape (2 per multiply-add).
#include <gtest/gtest.h>

#include "webgpu/flop_count.h"

namespace wick::webgpu {
namespace {

OpShapes shapes(std::vector<std::vector<int64_t>> args, std::vector<int64_t> out, bool transposed = false) {
  return OpShapes{std::move(args), std::move(out), transposed};
}

TEST(FlopCount, Convolutions) {
  // Dense 3x3: N=2, OC=16, OH=15, OW=17, IC=8.
  EXPECT_EQ(op_flops("aten.convolution.default", shapes({{2, 8, 17, 19}, {16, 8, 3, 3}, {16}}, {2, 16, 15, 17})),
            2.0 * 2 * 16 * 15 * 17 * 8 * 3 * 3);
  // Depthwise (groups = 8): one input channel per output channel.
  EXPECT_EQ(op_flops("aten.convolution.default", shapes({{1, 8, 12, 12}, {8, 1, 3, 3}, {}}, {1, 8, 10, 10})),
            2.0 * 8 * 10 * 10 * 1 * 3 * 3);
  // Grouped (groups = 2, IC = 6): 3 input channels per group.
  EXPECT_EQ(op_flops("et_vk.conv_with_clamp.default", shapes({{1, 6, 9, 9}, {4, 3, 1, 1}}, {1, 4, 9, 9})),
            2.0 * 4 * 9 * 9 * 3);
  // 1-D: weight [OC, IC, K].
  EXPECT_EQ(op_flops("aten.convolution.default", shapes({{1, 2, 24}, {4, 2, 5}}, {1, 4, 20})), 2.0 * 4 * 20 * 2 * 5);
  // Transposed: every input pixel scatters into OC/groups x KH x KW outputs (weight [IC, OC/g, KH, KW]).
  EXPECT_EQ(op_flops("aten.convolution.default", shapes({{1, 4, 5, 5}, {4, 3, 2, 2}}, {1, 3, 10, 10}, true)),
            2.0 * 4 * 5 * 5 * 3 * 2 * 2);
}

TEST(FlopCount, MatrixProductsAndAttention) {
  EXPECT_EQ(op_flops("aten.linear.default", shapes({{2, 7, 33}, {65, 33}, {65}}, {2, 7, 65})), 2.0 * 2 * 7 * 65 * 33);
  EXPECT_EQ(op_flops("aten.mm.default", shapes({{5, 6}, {6, 7}}, {5, 7})), 2.0 * 5 * 7 * 6);
  EXPECT_EQ(op_flops("aten.bmm.default", shapes({{3, 5, 6}, {3, 6, 7}}, {3, 5, 7})), 2.0 * 3 * 5 * 7 * 6);
  // addmm(bias, a, b): K from a, the second argument.
  EXPECT_EQ(op_flops("aten.addmm.default", shapes({{7}, {5, 6}, {6, 7}, {}, {}}, {5, 7})), 2.0 * 5 * 7 * 6);
  // q [B,H,Sq,D] = [1,2,9,16], k [1,2,11,16]: Q K^T and P V, each 2*B*H*Sq*Skv*D.
  EXPECT_EQ(op_flops("et_vk.sdpa.default", shapes({{1, 2, 9, 16}, {1, 2, 11, 16}, {1, 2, 11, 16}}, {1, 2, 9, 16})),
            2.0 * (2.0 * 1 * 2 * 9 * 11 * 16));
}

TEST(FlopCount, OtherOpsAndMissingShapesCountNothing) {
  EXPECT_TRUE(counts_flops("aten.convolution.default"));
  EXPECT_TRUE(counts_flops("aten.bmm.default"));
  EXPECT_FALSE(counts_flops("aten.add.Tensor"));
  EXPECT_EQ(op_flops("aten.add.Tensor", shapes({{4, 4}, {4, 4}}, {4, 4})), 0.0);
  EXPECT_EQ(op_flops("aten.convolution.default", shapes({{1, 2, 8, 8}, {}}, {1, 4, 8, 8})), 0.0);  // no weight shape
  EXPECT_EQ(op_flops("aten.mm.default", shapes({}, {5, 7})), 0.0);
  EXPECT_EQ(op_flops("et_vk.sdpa.default", shapes({{9, 16}, {11, 16}}, {9, 16})), 0.0);  // not rank 4
}

}  // namespace
}  // namespace wick::webgpu
