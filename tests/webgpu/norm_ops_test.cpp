// Randomized tests of layer / group / batch / RMS norm against CPU references in double.
// Tolerance: 2e-4 absolute + 2e-4 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "single_op.h"

namespace wick {
namespace {

void expect_close(const Tensor& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got.data_as<float>()[i], want[i], 2e-4 + 2e-4 * std::fabs(want[i])) << what << " at " << i;
}

// Normalizes rows of `inner` elements; affine index given by `widx(row, i)`.
struct RowRef {
  std::vector<double> out, mean, rstd;
};
template <class W>
RowRef row_norm_ref(const Tensor& x, int64_t rows, int64_t inner, double eps, bool center, const Tensor* w,
                    const Tensor* b, W widx) {
  RowRef r;
  const float* px = x.data_as<float>();
  for (int64_t row = 0; row < rows; ++row) {
    double mean = 0, var = 0;
    if (center) {
      for (int64_t i = 0; i < inner; ++i) mean += px[row * inner + i];
      mean /= inner;
    }
    for (int64_t i = 0; i < inner; ++i) var += (px[row * inner + i] - mean) * (px[row * inner + i] - mean);
    var /= inner;
    const double rstd = 1 / std::sqrt(var + eps);
    for (int64_t i = 0; i < inner; ++i) {
      double y = (px[row * inner + i] - mean) * rstd;
      if (w) y *= w->data_as<float>()[widx(row, i)];
      if (b) y += b->data_as<float>()[widx(row, i)];
      r.out.push_back(y);
    }
    r.mean.push_back(mean);
    r.rstd.push_back(rstd);
  }
  return r;
}

TEST(WebGpuNormOp, LayerNormRandomShapes) {
  std::mt19937 rng(21);
  struct Case { std::vector<int64_t> shape; size_t norm_rank; bool affine; };
  const std::vector<Case> cases = {{{1, 1}, 1, true},       {{7, 13}, 1, true},   {{2, 10, 64}, 1, true},
                                   {{33, 300}, 1, false},   {{3, 1000}, 1, true}, {{2, 3, 5, 4}, 2, true},
                                   {{5}, 1, true}};
  for (const Case& c : cases) {
    std::vector<int64_t> ns(c.shape.end() - static_cast<long>(c.norm_rank), c.shape.end());
    int64_t inner = shape_numel(ns), rows = shape_numel(c.shape) / inner;
    std::vector<int64_t> stat = c.shape;
    for (size_t i = stat.size() - c.norm_rank; i < stat.size(); ++i) stat[i] = 1;
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng, -3, 5);
    Tensor w = test::random_tensor(ScalarType::kFloat, ns, rng);
    Tensor bias = test::random_tensor(ScalarType::kFloat, ns, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, c.shape);
    int out = b.tensor(ScalarType::kFloat, c.shape);
    int mean = b.tensor(ScalarType::kFloat, stat);
    int rstd = b.tensor(ScalarType::kFloat, stat);
    b.op("aten.native_layer_norm.default", {xi, b.int_list(ns), c.affine ? b.constant(w) : b.none(),
                                             c.affine ? b.constant(bias) : b.none(), b.double_value(1e-5),
                                             b.value_list({out, mean, rstd})});
    b.output(out);
    b.output(mean);
    b.output(rstd);
    auto r = b.run({Value::make_tensor(x)});
    const std::string what = "layer_norm " + shape_to_string(c.shape);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    RowRef ref = row_norm_ref(x, rows, inner, 1e-5, true, c.affine ? &w : nullptr, c.affine ? &bias : nullptr,
                              [](int64_t, int64_t i) { return i; });
    expect_close((*r)[0].tensor, ref.out, what);
    EXPECT_EQ((*r)[1].tensor.sizes, stat);
    expect_close((*r)[1].tensor, ref.mean, what + " mean");
    for (size_t i = 0; i < ref.rstd.size(); ++i)
      ASSERT_NEAR((*r)[2].tensor.data_as<float>()[i], ref.rstd[i], 1e-3 * ref.rstd[i]) << what << " rstd";
  }
}

TEST(WebGpuNormOp, GroupNormRandomShapes) {
  std::mt19937 rng(22);
  struct Case { std::vector<int64_t> shape; int64_t groups; bool affine; };
  const std::vector<Case> cases = {{{2, 16, 6, 6}, 4, true}, {{1, 6, 5, 3}, 3, true}, {{3, 4, 1, 1}, 4, true},
                                   {{1, 8, 33, 7}, 1, false}, {{2, 6, 7}, 2, true}};
  for (const Case& c : cases) {
    const int64_t n = c.shape[0], ch = c.shape[1], hw = shape_numel(c.shape) / (n * ch), cpg = ch / c.groups;
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng, -1, 3);
    Tensor w = test::random_tensor(ScalarType::kFloat, {ch}, rng);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {ch}, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, c.shape);
    int out = b.tensor(ScalarType::kFloat, c.shape);
    int mean = b.tensor(ScalarType::kFloat, {n, c.groups});
    int rstd = b.tensor(ScalarType::kFloat, {n, c.groups});
    b.op("aten.native_group_norm.default",
         {xi, c.affine ? b.constant(w) : b.none(), c.affine ? b.constant(bias) : b.none(), b.int_value(n),
          b.int_value(ch), b.int_value(hw), b.int_value(c.groups), b.double_value(1e-5),
          b.value_list({out, mean, rstd})});
    b.output(out);
    b.output(rstd);
    auto r = b.run({Value::make_tensor(x)});
    const std::string what = "group_norm " + shape_to_string(c.shape);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    RowRef ref = row_norm_ref(x, n * c.groups, cpg * hw, 1e-5, true, c.affine ? &w : nullptr,
                              c.affine ? &bias : nullptr,
                              [&](int64_t row, int64_t i) { return (row % c.groups) * cpg + i / hw; });
    expect_close((*r)[0].tensor, ref.out, what);
    for (size_t i = 0; i < ref.rstd.size(); ++i)
      ASSERT_NEAR((*r)[1].tensor.data_as<float>()[i], ref.rstd[i], 1e-3 * ref.rstd[i]) << what << " rstd";
  }
}

// Few long rows split across workgroups (row_norm_stats + row_norm_apply: two dispatches per
// norm): InstanceNorm's export (no_stats) over planes, layer / RMS / group norm of few rows,
// with row lengths that leave a short or empty last chunk, and a mean far from zero (the
// chunk merge must not lose the variance to cancellation).
TEST(WebGpuNormOp, SplitRowsFewLongRows) {
  std::mt19937 rng(25);
  struct Case { const char* op; std::vector<int64_t> shape; int64_t groups; double lo, hi; };
  const std::vector<Case> cases = {
      {"no_stats", {1, 3, 67, 61}, 0, -1, 3},      // 3 rows of 4087
      {"no_stats", {1, 2, 129, 128}, 0, 99, 101},  // mean 100, spread 1
      {"layer", {2, 9001}, 0, -3, 5},
      {"rms", {1, 6145}, 0, -2, 2},
      {"group", {1, 4, 45, 51}, 2, -1, 3},         // 2 rows of 4590, 2 channels each
  };
  for (const Case& c : cases) {
    const std::string what = std::string(c.op) + " " + shape_to_string(c.shape);
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng, c.lo, c.hi);
    const int64_t ch = c.shape.size() > 2 ? c.shape[1] : 1;
    const int64_t inner_last = c.shape.back();
    const bool per_channel = std::string(c.op) == "no_stats" || std::string(c.op) == "group";
    Tensor w = test::random_tensor(ScalarType::kFloat, {per_channel ? ch : inner_last}, rng);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {per_channel ? ch : inner_last}, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, c.shape);
    int out = b.tensor(ScalarType::kFloat, c.shape);
    int64_t rows = 0, inner = 0;
    std::function<int64_t(int64_t, int64_t)> widx = [](int64_t, int64_t i) { return i; };
    int rstd = -1;
    if (std::string(c.op) == "no_stats") {
      const int64_t hw = shape_numel(c.shape) / ch;
      rows = ch;
      inner = hw;
      widx = [](int64_t row, int64_t) { return row; };
      rstd = b.tensor(ScalarType::kFloat, {ch});
      b.op("aten._native_batch_norm_legit.no_stats",
           {xi, b.constant(w), b.constant(bias), b.bool_value(true), b.double_value(0.1), b.double_value(1e-5),
            b.value_list({out, b.tensor(ScalarType::kFloat, {ch}), rstd})});
    } else if (std::string(c.op) == "group") {
      const int64_t hw = shape_numel(c.shape) / ch, cpg = ch / c.groups;
      rows = c.groups;
      inner = cpg * hw;
      widx = [=](int64_t row, int64_t i) { return (row % c.groups) * cpg + i / hw; };
      rstd = b.tensor(ScalarType::kFloat, {1, c.groups});
      b.op("aten.native_group_norm.default",
           {xi, b.constant(w), b.constant(bias), b.int_value(1), b.int_value(ch), b.int_value(hw),
            b.int_value(c.groups), b.double_value(1e-5),
            b.value_list({out, b.tensor(ScalarType::kFloat, {1, c.groups}), rstd})});
    } else if (std::string(c.op) == "layer") {
      inner = inner_last;
      rows = shape_numel(c.shape) / inner;
      rstd = b.tensor(ScalarType::kFloat, {rows, 1});
      b.op("aten.native_layer_norm.default",
           {xi, b.int_list({inner}), b.constant(w), b.constant(bias), b.double_value(1e-5),
            b.value_list({out, b.tensor(ScalarType::kFloat, {rows, 1}), rstd})});
    } else {
      inner = inner_last;
      rows = shape_numel(c.shape) / inner;
      b.op("et_vk.rms_norm.default", {xi, b.constant(w), b.double_value(1e-6), out});
    }
    b.output(out);
    if (rstd >= 0) b.output(rstd);
    b.profile = true;
    b.gpu_kernels = true;  // the split is the GPU kernel choice (CPU adapters keep one workgroup per row)
    auto r = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    std::string kernels;
    for (const std::string& k : b.kernels) kernels += k.substr(k.rfind(' ') + 1) + " ";
    EXPECT_NE(kernels.find("row_norm_stats row_norm_apply"), std::string::npos) << what << ": " << kernels;
    const bool rms = std::string(c.op) == "rms";
    RowRef ref = row_norm_ref(x, rows, inner, rms ? 1e-6 : 1e-5, !rms, &w, rms ? nullptr : &bias, widx);
    expect_close((*r)[0].tensor, ref.out, what);
    if (rstd >= 0) {
      for (size_t i = 0; i < ref.rstd.size(); ++i)
        ASSERT_NEAR((*r)[1].tensor.data_as<float>()[i], ref.rstd[i], 1e-3 * ref.rstd[i]) << what << " rstd";
    }
  }
}

// Short rows, several a workgroup (row_norm_rows.wgsl): row counts that leave the last
// workgroup part empty, row lengths across the threads-per-row steps up to 2048 words; 2049
// goes to row_norm.wgsl.
TEST(WebGpuNormOp, ShortRowsPackedPerWorkgroup) {
  std::mt19937 rng(26);
  for (const auto& [shape, kernel] : std::vector<std::pair<std::vector<int64_t>, std::string>>{
           {{37, 96}, "row_norm_rows"}, {{2, 5, 384}, "row_norm_rows"}, {{3, 2048}, "row_norm_rows"},
           {{9, 1}, "row_norm_rows"}, {{11, 5}, "row_norm_rows"}, {{2, 2049}, "row_norm"}}) {
    const int64_t inner = shape.back(), rows = shape_numel(shape) / inner;
    std::vector<int64_t> stat = shape;
    stat.back() = 1;
    Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng, -3, 5);
    Tensor w = test::random_tensor(ScalarType::kFloat, {inner}, rng);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {inner}, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, shape);
    int rstd = b.tensor(ScalarType::kFloat, stat);
    b.op("aten.native_layer_norm.default", {xi, b.int_list({inner}), b.constant(w), b.constant(bias), b.double_value(1e-5),
                                             b.value_list({out, b.tensor(ScalarType::kFloat, stat), rstd})});
    b.output(out);
    b.output(rstd);
    b.profile = true;
    auto r = b.run({Value::make_tensor(x)});
    const std::string what = "layer_norm " + shape_to_string(shape);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    ASSERT_FALSE(b.kernels.empty());
    EXPECT_EQ(b.kernels[0].substr(b.kernels[0].rfind(' ') + 1), kernel) << what;
    RowRef ref = row_norm_ref(x, rows, inner, 1e-5, true, &w, &bias, [](int64_t, int64_t i) { return i; });
    expect_close((*r)[0].tensor, ref.out, what);
    for (size_t i = 0; i < ref.rstd.size(); ++i)
      ASSERT_NEAR((*r)[1].tensor.data_as<float>()[i], ref.rstd[i], 1e-3 * ref.rstd[i]) << what << " rstd";
  }
}

TEST(WebGpuNormOp, GroupNormGroupsMustDivideChannels) {
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, {1, 6, 2, 2});
  int out = b.tensor(ScalarType::kFloat, {1, 6, 2, 2});
  b.op("aten.native_group_norm.default",
       {xi, b.none(), b.none(), b.int_value(1), b.int_value(6), b.int_value(4), b.int_value(4), b.double_value(1e-5),
        b.value_list({out, b.tensor(ScalarType::kFloat, {1, 4}), b.tensor(ScalarType::kFloat, {1, 4})})});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {1, 6, 2, 2}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("do not divide"), std::string::npos) << r.status().message();
}

TEST(WebGpuNormOp, RmsNormRandomShapes) {
  std::mt19937 rng(23);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{1, 1, 64}, std::vector<int64_t>{2, 10, 64},
                                            std::vector<int64_t>{7, 13}, std::vector<int64_t>{3, 1},
                                            std::vector<int64_t>{1, 2049}}) {
    const int64_t inner = shape.back(), rows = shape_numel(shape) / inner;
    Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
    Tensor w = test::random_tensor(ScalarType::kFloat, {inner}, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, shape);
    b.op("et_vk.rms_norm.default", {xi, b.constant(w), b.double_value(1e-6), out});
    b.output(out);
    auto r = b.run({Value::make_tensor(x)});
    const std::string what = "rms_norm " + shape_to_string(shape);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    RowRef ref = row_norm_ref(x, rows, inner, 1e-6, false, &w, nullptr, [](int64_t, int64_t i) { return i; });
    expect_close((*r)[0].tensor, ref.out, what);
  }
}

TEST(WebGpuNormOp, BatchNormInference) {
  std::mt19937 rng(24);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 16, 8, 8}, std::vector<int64_t>{1, 3, 5, 7},
                                            std::vector<int64_t>{4, 5}, std::vector<int64_t>{1, 1, 1, 1}}) {
    const int64_t ch = shape[1], inner = shape_numel(shape) / (shape[0] * ch);
    Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
    Tensor w = test::random_tensor(ScalarType::kFloat, {ch}, rng);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {ch}, rng);
    Tensor rm = test::random_tensor(ScalarType::kFloat, {ch}, rng);
    Tensor rv = test::random_tensor(ScalarType::kFloat, {ch}, rng, 0.1, 3);
    for (bool affine : {true, false}) {
      test::VkGraphBuilder b;
      int xi = b.input(ScalarType::kFloat, shape);
      int out = b.tensor(ScalarType::kFloat, shape);
      b.op("aten._native_batch_norm_legit_no_training.default",
           {xi, affine ? b.constant(w) : b.none(), affine ? b.constant(bias) : b.none(), b.constant(rm), b.constant(rv),
            b.double_value(0.1), b.double_value(1e-5),
            b.value_list({out, b.tensor(ScalarType::kFloat, {0}), b.tensor(ScalarType::kFloat, {0})})});
      b.output(out);
      auto r = b.run({Value::make_tensor(x)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      std::vector<double> want;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t c = (i / inner) % ch;
        double y = (x.data_as<float>()[i] - rm.data_as<float>()[c]) / std::sqrt(double(rv.data_as<float>()[c]) + 1e-5);
        if (affine) y = y * w.data_as<float>()[c] + bias.data_as<float>()[c];
        want.push_back(y);
      }
      expect_close((*r)[0].tensor, want, "batch_norm " + shape_to_string(shape));
    }
  }
}

}  // namespace
}  // namespace wick
