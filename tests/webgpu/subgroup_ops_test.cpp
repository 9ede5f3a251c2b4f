// The subgroup kernels (GraphOptions::subgroups: row_norm_rows_sg, row_norm_sg,
// row_norm_stats_sg + row_norm_apply_sg, reduce_rows_sg, matmul_gemv_sg) against CPU references in double, on shapes that reach every path of
// subgroup_reduce.inc.wgsl at the adapter's subgroup size (SwiftShader 4, lavapipe 8: ctest
// runs these tests on both where lavapipe is installed): rows shorter than a subgroup, rows
// whose thread segment is narrower than, as wide as, or several times a subgroup, odd
// lengths, many rows, softmax's cached and online passes, chunked sums, GEMVs of odd K and N.
// Each checks that the op ran the _sg kernel, so an adapter without `subgroups` fails loudly.
// Tolerances: norms 2e-4 abs + 2e-4 rel; softmax 1e-5 abs + 1e-4 rel; sums and GEMVs
// 1e-5 * (1 + sum |terms|).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "single_op.h"

namespace wick {
namespace {

// The shader of the profiled dispatch `i` ("<op> <shader>").
std::string shader_of(const test::VkGraphBuilder& b, size_t i) {
  return i < b.kernels.size() ? b.kernels[i].substr(b.kernels[i].rfind(' ') + 1) : "(no dispatch)";
}

// The shaders the profiled run dispatched, joined, for messages and checks.
std::string shaders_run(const test::VkGraphBuilder& b) {
  std::string all;
  for (size_t i = 0; i < b.kernels.size(); ++i) all += " " + shader_of(b, i);
  return all;
}

// y against the norm of x's rows (in double): RMS (no centering, eps 1e-6) or centered (eps
// 1e-5), times w[widx(row, i)] plus bias[widx(row, i)] (when given).
template <class W>
void check_row_norm(const Tensor& x, const Tensor& y, int64_t rows, int64_t inner, bool rms, const Tensor& w,
                    const Tensor* bias, W widx, const std::string& what) {
  const float* px = x.data_as<float>();
  const float* py = y.data_as<float>();
  for (int64_t row = 0; row < rows; ++row) {
    double mean = 0, var = 0;
    if (!rms) {
      for (int64_t i = 0; i < inner; ++i) mean += px[row * inner + i];
      mean /= inner;
    }
    for (int64_t i = 0; i < inner; ++i) var += (px[row * inner + i] - mean) * (px[row * inner + i] - mean);
    const double rstd = 1 / std::sqrt(var / inner + (rms ? 1e-6 : 1e-5));
    for (int64_t i = 0; i < inner; ++i) {
      double want = (px[row * inner + i] - mean) * rstd * w.data_as<float>()[widx(row, i)];
      if (bias) want += bias->data_as<float>()[widx(row, i)];
      ASSERT_NEAR(py[row * inner + i], want, 2e-4 + 2e-4 * std::fabs(want)) << what << " row " << row << " at " << i;
    }
  }
}

TEST(WebGpuSubgroupOp, ShortRowNormsMatchCpu) {
  std::mt19937 rng(61);
  // Threads per row (register.cpp's rule): 2 (inner 5), 4 (9), 8 (17), 16 (33), 256 (2047): a
  // butterfly within a subgroup, one subgroup per row, several subgroups per row (one
  // barrier), the whole workgroup; on SwiftShader (4 lanes) and lavapipe (8) alike. Each
  // width is a pipeline to compile (about 1 s on lavapipe), so no more of them.
  const std::vector<std::vector<int64_t>> shapes = {{11, 5}, {6, 9}, {7, 17}, {1000, 33}, {3, 2047}};
  for (const auto& shape : shapes) {
    for (const bool rms : {false, true}) {
      const int64_t inner = shape.back(), rows = shape_numel(shape) / inner;
      Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng, -3, 5);
      Tensor w = test::random_tensor(ScalarType::kFloat, {inner}, rng);
      Tensor bias = test::random_tensor(ScalarType::kFloat, {inner}, rng);
      test::VkGraphBuilder b;
      b.subgroups = true;
      b.profile = true;
      int xi = b.input(ScalarType::kFloat, shape);
      int out = b.tensor(ScalarType::kFloat, shape);
      if (rms) {
        b.op("et_vk.rms_norm.default", {xi, b.constant(w), b.double_value(1e-6), out});
      } else {
        std::vector<int64_t> stat = shape;
        stat.back() = 1;
        b.op("aten.native_layer_norm.default",
             {xi, b.int_list({inner}), b.constant(w), b.constant(bias), b.double_value(1e-5),
              b.value_list({out, b.tensor(ScalarType::kFloat, stat), b.tensor(ScalarType::kFloat, stat)})});
      }
      b.output(out);
      auto r = b.run({Value::make_tensor(x)});
      const std::string what = std::string(rms ? "rms_norm " : "layer_norm ") + shape_to_string(shape);
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
      ASSERT_EQ(shader_of(b, 0), "row_norm_rows_sg") << what << " (does the adapter have subgroups?)";
      check_row_norm(x, (*r)[0].tensor, rows, inner, rms, w, rms ? nullptr : &bias, [](int64_t, int64_t i) { return i; }, what);
    }
  }
}

// Rows of more than 2048 words: one workgroup a row (row_norm_sg: layer and group norm), or,
// on the GPU kernel choice with few rows, split into chunks (row_norm_stats_sg +
// row_norm_apply_sg: layer and RMS norm, a short last chunk).
TEST(WebGpuSubgroupOp, LongRowNormsMatchCpu) {
  std::mt19937 rng(64);
  struct Case { std::vector<int64_t> shape; int kind; bool split; };  // kind: 0 layer, 1 RMS, 2 group norm of 2 groups
  for (const Case& c : {Case{{2, 3001}, 0, false}, Case{{1, 4, 40, 40}, 2, false}, Case{{3, 5000}, 0, true},
                        Case{{2, 4099}, 1, true}}) {
    const bool group = c.kind == 2, rms = c.kind == 1;
    const int64_t ch = group ? c.shape[1] : c.shape.back(), inner = group ? shape_numel(c.shape) / 2 : c.shape.back();
    const int64_t rows = shape_numel(c.shape) / inner, cpg = ch / 2, hw = group ? inner / cpg : 1;
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng, -3, 5);
    Tensor w = test::random_tensor(ScalarType::kFloat, {ch}, rng);
    Tensor bias = test::random_tensor(ScalarType::kFloat, {ch}, rng);
    test::VkGraphBuilder b;
    b.subgroups = true;
    b.gpu_kernels = c.split;
    b.profile = true;
    int xi = b.input(ScalarType::kFloat, c.shape);
    int out = b.tensor(ScalarType::kFloat, c.shape);
    if (rms) {
      b.op("et_vk.rms_norm.default", {xi, b.constant(w), b.double_value(1e-6), out});
    } else if (group) {
      b.op("aten.native_group_norm.default",
           {xi, b.constant(w), b.constant(bias), b.int_value(1), b.int_value(ch), b.int_value(hw), b.int_value(2),
            b.double_value(1e-5), b.value_list({out, b.tensor(ScalarType::kFloat, {1, 2}), b.tensor(ScalarType::kFloat, {1, 2})})});
    } else {
      std::vector<int64_t> stat = c.shape;
      stat.back() = 1;
      b.op("aten.native_layer_norm.default",
           {xi, b.int_list({inner}), b.constant(w), b.constant(bias), b.double_value(1e-5),
            b.value_list({out, b.tensor(ScalarType::kFloat, stat), b.tensor(ScalarType::kFloat, stat)})});
    }
    b.output(out);
    auto r = b.run({Value::make_tensor(x)});
    const std::string what = std::string(rms ? "rms_norm " : group ? "group_norm " : "layer_norm ") + shape_to_string(c.shape);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    ASSERT_EQ(shaders_run(b), c.split ? " row_norm_stats_sg row_norm_apply_sg" : " row_norm_sg")
        << what << " (does the adapter have subgroups?)";
    if (group) {
      check_row_norm(x, (*r)[0].tensor, rows, inner, false, w, &bias,
                     [&](int64_t row, int64_t i) { return (row % 2) * cpg + i / hw; }, what);
    } else {
      check_row_norm(x, (*r)[0].tensor, rows, inner, rms, w, rms ? nullptr : &bias, [](int64_t, int64_t i) { return i; }, what);
    }
  }
}

// reduce_rows_sg (the GPU kernel choice, forced): softmax / log_softmax rows cached (<= 2048
// words) and online (longer), with -inf entries and a fully masked row; sum / amax / amin
// rows, and few long rows split into chunks (two dispatches: the second reduces rows of a
// few chunk partials, shorter than a subgroup). Rows shorter than a workgroup (256 words)
// take the packed kernel instead (reduce.wgsl; softmax_rows on a CPU adapter): checked too,
// and that they do not run reduce_rows_sg.
TEST(WebGpuSubgroupOp, RowReductionsMatchCpu) {
  std::mt19937 rng(62);
  const float ninf = -std::numeric_limits<float>::infinity();
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{5, 3}, {300, 77}, {7, 259}, {3, 2049}, {4, 1}}) {
    for (const bool log : {false, true}) {
      Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng, -8, 8);
      const int64_t len = shape.back(), rows = shape_numel(shape) / len;
      float* px = x.data_as<float>();
      if (len > 2) px[1] = ninf;                                  // a masked entry
      if (rows > 2) std::fill(px + len, px + 2 * len, ninf);      // a fully masked row: NaN
      test::VkGraphBuilder b;
      b.subgroups = true;
      b.gpu_kernels = true;
      b.profile = true;
      int xi = b.input(ScalarType::kFloat, shape);
      int out = b.tensor(ScalarType::kFloat, shape);
      b.op(log ? "aten._log_softmax.default" : "aten._softmax.default", {xi, b.int_value(-1), b.bool_value(false), out});
      b.output(out);
      auto r = b.run({Value::make_tensor(x)});
      const std::string what = std::string(log ? "log_softmax " : "softmax ") + shape_to_string(shape);
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
      if (len >= 256) ASSERT_EQ(shader_of(b, 0), "reduce_rows_sg") << what << " (does the adapter have subgroups?)";
      else ASSERT_NE(shader_of(b, 0), "reduce_rows_sg") << what << ": short rows take the packed kernel";
      const float* py = (*r)[0].tensor.data_as<float>();
      for (int64_t row = 0; row < rows; ++row) {
        const float* v = px + row * len;
        double m = ninf, s = 0;
        for (int64_t i = 0; i < len; ++i) m = std::max<double>(m, v[i]);
        if (std::isinf(m)) {
          for (int64_t i = 0; i < len; ++i) ASSERT_TRUE(std::isnan(py[row * len + i])) << what << " masked row " << row;
          continue;
        }
        for (int64_t i = 0; i < len; ++i) s += std::exp(v[i] - m);
        for (int64_t i = 0; i < len; ++i) {
          const double want = log ? v[i] - m - std::log(s) : std::exp(v[i] - m) / s;
          const float got = py[row * len + i];
          if (std::isinf(want)) {
            ASSERT_EQ(got, want) << what << " row " << row << " at " << i;
          } else {
            ASSERT_NEAR(got, want, 1e-5 + 1e-4 * std::fabs(want)) << what << " row " << row << " at " << i;
          }
        }
      }
    }
  }
  const char* names[] = {"aten.sum.dim_IntList", "aten.amax.default", "aten.amin.default"};
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{13, 97}, {7, 2}, {5, 301}, {2, 5000}}) {
    for (int op = 0; op < 3; ++op) {
      Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng, -4, 4);
      const int64_t len = shape.back(), rows = shape_numel(shape) / len;
      test::VkGraphBuilder b;
      b.subgroups = true;
      b.gpu_kernels = true;
      b.profile = true;
      int xi = b.input(ScalarType::kFloat, shape);
      int out = b.tensor(ScalarType::kFloat, {rows});
      if (op == 0) b.op(names[op], {xi, b.int_list({-1}), b.bool_value(false), b.none(), out});
      else b.op(names[op], {xi, b.int_list({-1}), b.bool_value(false), out});
      b.output(out);
      auto r = b.run({Value::make_tensor(x)});
      const std::string what = std::string(names[op]) + " " + shape_to_string(shape);
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
      for (size_t i = 0; i < b.kernels.size(); ++i) {
        if (len >= 256) ASSERT_EQ(shader_of(b, i), "reduce_rows_sg") << what;
        else ASSERT_EQ(shader_of(b, i), "reduce") << what << ": short rows take the packed kernel";
      }
      const float* px = x.data_as<float>();
      for (int64_t row = 0; row < rows; ++row) {
        double want = op == 0 ? 0 : px[row * len], mag = 0;
        for (int64_t i = 0; i < len; ++i) {
          const double v = px[row * len + i];
          want = op == 0 ? want + v : op == 1 ? std::max(want, v) : std::min(want, v);
          mag += std::fabs(v);
        }
        ASSERT_NEAR((*r)[0].tensor.data_as<float>()[row], want, op == 0 ? 1e-5 * (1 + mag) : 0) << what << " row " << row;
      }
    }
  }
}

// matmul_gemv_sg: linear (b is [N, K]: the subgroup-reduced path) and mm (b is [K, N]) with
// M == 1, K below, at and far above a subgroup, N not a multiple of the 4 columns a
// workgroup takes.
TEST(WebGpuSubgroupOp, GemvMatchesCpu) {
  std::mt19937 rng(63);
  for (const auto& [k, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 5}, {77, 130}, {1000, 7}}) {
    for (const bool linear : {true, false}) {
      if (!linear && k != 77) continue;  // b as [K, N] once: its path holds no subgroup operation
      Tensor x = test::random_tensor(ScalarType::kFloat, {1, k}, rng);
      Tensor w = test::random_tensor(ScalarType::kFloat, linear ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, rng);
      Tensor bias = test::random_tensor(ScalarType::kFloat, {n}, rng);
      test::VkGraphBuilder b;
      b.subgroups = true;
      b.profile = true;
      int xi = b.input(ScalarType::kFloat, {1, k});
      int out = b.tensor(ScalarType::kFloat, {1, n});
      if (linear) b.op("aten.linear.default", {xi, b.constant(w), b.constant(bias), out});
      else b.op("aten.mm.default", {xi, b.constant(w), out});
      b.output(out);
      auto r = b.run({Value::make_tensor(x)});
      const std::string what = std::string(linear ? "linear" : "mm") + " K " + std::to_string(k) + " N " + std::to_string(n);
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
      ASSERT_NE(shaders_run(b).find(" matmul_gemv_sg"), std::string::npos)
          << what << " ran" << shaders_run(b) << " (does the adapter have subgroups?)";
      for (int64_t j = 0; j < n; ++j) {
        double want = linear ? bias.data_as<float>()[j] : 0, mag = std::fabs(want);
        for (int64_t i = 0; i < k; ++i) {
          const double t = double(x.data_as<float>()[i]) * w.data_as<float>()[linear ? j * k + i : i * n + j];
          want += t;
          mag += std::fabs(t);
        }
        ASSERT_NEAR((*r)[0].tensor.data_as<float>()[j], want, 1e-5 * (1 + mag)) << what << " column " << j;
      }
    }
  }
}

}  // namespace
}  // namespace wick
