// avg_pool2d / max_pool2d_with_indices against CPU references written from PyTorch's
// definitions (output size, ceil mode, padding, count_include_pad, divisor_override,
// dilation). Tolerance: 1e-5 absolute + 1e-5 relative; indices exact.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "single_op.h"

namespace wick {
namespace {

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t o = static_cast<int64_t>(std::floor(double(num) / double(s))) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;
  return o;
}

struct PoolCase {
  std::vector<int64_t> shape;  // NCHW or CHW
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil_mode, count_include_pad;
  int64_t divisor;  // 0: none
};

const std::vector<PoolCase>& cases() {
  static const std::vector<PoolCase> c = {
      {{1, 8, 16, 16}, 2, 2, 2, 2, 0, 0, 1, 1, false, true, 0},
      {{1, 8, 16, 16}, 3, 3, 2, 2, 1, 1, 1, 1, false, true, 0},
      {{2, 3, 7, 9}, 3, 2, 2, 3, 1, 1, 1, 1, true, false, 0},
      {{1, 2, 5, 5}, 3, 3, 2, 2, 1, 1, 1, 1, true, true, 0},
      {{1, 16, 65, 65}, 2, 2, 1, 1, 0, 0, 1, 1, true, true, 0},
      {{3, 4, 6}, 2, 3, 1, 2, 1, 1, 1, 1, false, true, 5},
      {{1, 1, 1, 1}, 1, 1, 1, 1, 0, 0, 1, 1, false, true, 0},
      {{1, 2, 9, 10}, 3, 3, 2, 2, 1, 0, 2, 2, true, true, 0},  // dilation (max pool only)
  };
  return c;
}

TEST(WebGpuPoolOp, AvgPool2dRandom) {
  std::mt19937 rng(31);
  for (const PoolCase& c : cases()) {
    if (c.dh != 1 || c.dw != 1) continue;
    const size_t r = c.shape.size();
    const int64_t ih = c.shape[r - 2], iw = c.shape[r - 1], planes = shape_numel(c.shape) / (ih * iw);
    const int64_t oh = out_size(ih, c.kh, c.sh, c.ph, 1, c.ceil_mode), ow = out_size(iw, c.kw, c.sw, c.pw, 1, c.ceil_mode);
    std::vector<int64_t> oshape = c.shape;
    oshape[r - 2] = oh;
    oshape[r - 1] = ow;
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, c.shape);
    int out = b.tensor(ScalarType::kFloat, oshape);
    b.op("aten.avg_pool2d.default", {xi, b.int_list({c.kh, c.kw}), b.int_list({c.sh, c.sw}), b.int_list({c.ph, c.pw}),
                                     b.bool_value(c.ceil_mode), b.bool_value(c.count_include_pad),
                                     c.divisor ? b.int_value(c.divisor) : b.none(), out});
    b.output(out);
    auto res = b.run({Value::make_tensor(x)});
    const std::string what = "avg_pool2d " + shape_to_string(c.shape);
    ASSERT_TRUE(res.ok()) << what << ": " << res.status().to_string();
    const Tensor& got = (*res)[0].tensor;
    ASSERT_EQ(got.sizes, oshape) << what;
    const float* px = x.data_as<float>();
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int64_t hs = i * c.sh - c.ph, ws = j * c.sw - c.pw;
          int64_t he = std::min(hs + c.kh, ih + c.ph), we = std::min(ws + c.kw, iw + c.pw);
          const int64_t pool = (he - hs) * (we - ws);
          hs = std::max<int64_t>(hs, 0), ws = std::max<int64_t>(ws, 0);
          he = std::min(he, ih), we = std::min(we, iw);
          double s = 0;
          for (int64_t h = hs; h < he; ++h)
            for (int64_t w = ws; w < we; ++w) s += px[(pl * ih + h) * iw + w];
          const double div = c.divisor ? c.divisor : c.count_include_pad ? pool : (he - hs) * (we - ws);
          const double want = s / div;
          ASSERT_NEAR(got.data_as<float>()[(pl * oh + i) * ow + j], want, 1e-5 + 1e-5 * std::fabs(want))
              << what << " at " << pl << "," << i << "," << j;
        }
  }
}

TEST(WebGpuPoolOp, MaxPool2dWithIndicesRandom) {
  std::mt19937 rng(32);
  for (const PoolCase& c : cases()) {
    if (c.divisor) continue;
    const size_t r = c.shape.size();
    const int64_t ih = c.shape[r - 2], iw = c.shape[r - 1], planes = shape_numel(c.shape) / (ih * iw);
    const int64_t oh = out_size(ih, c.kh, c.sh, c.ph, c.dh, c.ceil_mode);
    const int64_t ow = out_size(iw, c.kw, c.sw, c.pw, c.dw, c.ceil_mode);
    std::vector<int64_t> oshape = c.shape;
    oshape[r - 2] = oh;
    oshape[r - 1] = ow;
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, c.shape);
    int out = b.tensor(ScalarType::kFloat, oshape);
    int idx = b.tensor(ScalarType::kLong, oshape);
    b.op("aten.max_pool2d_with_indices.default",
         {xi, b.int_list({c.kh, c.kw}), b.int_list({c.sh, c.sw}), b.int_list({c.ph, c.pw}), b.int_list({c.dh, c.dw}),
          b.bool_value(c.ceil_mode), b.value_list({out, idx})});
    b.output(out);
    b.output(idx);
    auto res = b.run({Value::make_tensor(x)});
    const std::string what = "max_pool2d " + shape_to_string(c.shape);
    ASSERT_TRUE(res.ok()) << what << ": " << res.status().to_string();
    ASSERT_EQ((*res)[0].tensor.sizes, oshape) << what;
    ASSERT_EQ((*res)[1].tensor.sizes, oshape) << what;
    const float* px = x.data_as<float>();
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          float best = -std::numeric_limits<float>::infinity();
          int64_t best_i = -1;
          for (int64_t kh = 0; kh < c.kh; ++kh)
            for (int64_t kw = 0; kw < c.kw; ++kw) {
              const int64_t h = i * c.sh - c.ph + kh * c.dh, w = j * c.sw - c.pw + kw * c.dw;
              if (h < 0 || h >= ih || w < 0 || w >= iw) continue;
              const float v = px[(pl * ih + h) * iw + w];
              if (best_i < 0 || v > best) best = v, best_i = h * iw + w;
            }
          const int64_t o = (pl * oh + i) * ow + j;
          ASSERT_EQ((*res)[0].tensor.data_as<float>()[o], best) << what << " at " << o;
          ASSERT_EQ((*res)[1].tensor.data_as<int64_t>()[o], best_i) << what << " index at " << o;
        }
  }
}

TEST(WebGpuPoolOp, KernelLargerThanInputFails) {
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {1, 1, 2, 2});
  int out = b.tensor(ScalarType::kFloat, {1, 1, 1, 1});
  b.op("aten.avg_pool2d.default", {xi, b.int_list({3, 3}), b.int_list({1, 1}), b.int_list({0, 0}), b.bool_value(false),
                                   b.bool_value(true), b.none(), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 1, 2, 2}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("too small"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
