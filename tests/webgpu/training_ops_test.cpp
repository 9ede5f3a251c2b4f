// Randomized tests of the on-device training ops (ops/training on WebGPU, kernels/cpu/training.cpp
// on the CPU executor) against references written from ExecuTorch's PyTorch implementations
// (backends/vulkan/custom_ops_lib.py), computed here in double:
//   et_vk.adamw_step             adamw_step_impl (torch.optim.AdamW's update, host bias corrections)
//   et_vk.fused_ce               fused_ce_impl (logsumexp - picked, (softmax - onehot) / n_valid)
//   et_vk.linear_dW              linear_dW_impl (d_out^T x over flattened rows)
//   et_vk.linear_q4gsw_backward  linear_q4gsw_backward_impl (d_out dequant(W), K = 2 * K/2)
// Each case runs on both executors. Tolerances: 1e-5 absolute + 1e-5 relative (fp32 sums of at
// most a few hundred terms), AdamW 1e-6 + 1e-5 relative.
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

const char* executor(bool cpu) { return cpu ? "cpu" : "webgpu"; }

float f(const Tensor& t, int64_t i) { return t.data_as<float>()[i]; }

TEST(WebGpuTrainingOps, AdamwStepMatchesReference) {
  struct Cfg {
    int64_t numel;
    double lr, wd;
    int step;
    bool separate_outputs;  // the returned tuple has buffers of its own (else the graph outputs param/m/v)
  };
  for (bool cpu : {false, true})
    for (const Cfg& c : {Cfg{1000, 1e-3, 0.01, 1, false}, Cfg{37, 0.05, 0.0, 10, true}, Cfg{4096, 1e-2, 0.1, 3, true}}) {
      SCOPED_TRACE(std::string(executor(cpu)) + " numel " + std::to_string(c.numel));
      std::mt19937 rng(static_cast<uint32_t>(c.numel));
      const double b1 = 0.9, b2 = 0.999, eps = 1e-8, bc1 = 1 - std::pow(b1, c.step), bc2 = 1 - std::pow(b2, c.step);
      Tensor p = test::random_tensor(ScalarType::kFloat, {c.numel}, rng);
      Tensor m = test::random_tensor(ScalarType::kFloat, {c.numel}, rng, -0.1, 0.1);
      Tensor v = test::random_tensor(ScalarType::kFloat, {c.numel}, rng, 0, 0.01);
      Tensor g = test::random_tensor(ScalarType::kFloat, {c.numel}, rng);
      test::VkGraphBuilder b;
      b.cpu = cpu;
      int ip = b.input(ScalarType::kFloat, {c.numel}), im = b.input(ScalarType::kFloat, {c.numel});
      int iv = b.input(ScalarType::kFloat, {c.numel}), ig = b.input(ScalarType::kFloat, {c.numel});
      int op = b.tensor(ScalarType::kFloat, {c.numel}), om = b.tensor(ScalarType::kFloat, {c.numel});
      int ov = b.tensor(ScalarType::kFloat, {c.numel});
      b.op("et_vk.adamw_step.default", {ip, im, iv, ig, b.double_value(c.lr), b.double_value(b1), b.double_value(b2),
                                        b.double_value(eps), b.double_value(c.wd), b.double_value(bc1), b.double_value(bc2),
                                        b.value_list({op, om, ov})});
      for (int o : c.separate_outputs ? std::vector<int>{op, om, ov} : std::vector<int>{ip, im, iv}) b.output(o);
      auto r = b.run({Value::make_tensor(p), Value::make_tensor(m), Value::make_tensor(v), Value::make_tensor(g)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      for (int64_t i = 0; i < c.numel; ++i) {
        const double gi = f(g, i);
        const double p1 = f(p, i) * (1 - c.lr * c.wd);
        const double m1 = b1 * f(m, i) + (1 - b1) * gi;
        const double v1 = b2 * f(v, i) + (1 - b2) * gi * gi;
        const double want[3] = {p1 - c.lr * (m1 / bc1) / (std::sqrt(v1 / bc2) + eps), m1, v1};
        for (int k = 0; k < 3; ++k)
          ASSERT_NEAR(f((*r)[static_cast<size_t>(k)].tensor, i), want[k], 1e-6 + 1e-5 * std::fabs(want[k]))
              << "output " << k << " element " << i;
      }
    }
}

TEST(WebGpuTrainingOps, FusedCeMatchesReference) {
  struct Cfg {
    int64_t rows, cols;
    int ignored;  // rows with label -1
  };
  for (bool cpu : {false, true})
    for (const Cfg& c : {Cfg{7, 300, 2}, Cfg{3, 5000, 0}, Cfg{5, 1, 1}}) {
      SCOPED_TRACE(std::string(executor(cpu)) + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
      std::mt19937 rng(static_cast<uint32_t>(c.cols));
      Tensor logits = test::random_tensor(ScalarType::kFloat, {c.rows, c.cols}, rng, -6, 6);
      Tensor labels = Tensor::make_owned(ScalarType::kLong, {c.rows});
      std::uniform_int_distribution<int64_t> ld(0, c.cols - 1);
      for (int64_t r = 0; r < c.rows; ++r) labels.data_as<int64_t>()[r] = r < c.rows - c.ignored ? ld(rng) : -1;
      const double n_valid = static_cast<double>(std::max<int64_t>(1, c.rows - c.ignored));
      test::VkGraphBuilder b;
      b.cpu = cpu;
      int il = b.input(ScalarType::kFloat, {c.rows, c.cols}), iy = b.input(ScalarType::kLong, {c.rows});
      int loss = b.tensor(ScalarType::kFloat, {}), dl = b.tensor(ScalarType::kFloat, {c.rows, c.cols});
      b.op("et_vk.fused_ce.default", {il, iy, b.double_value(n_valid), b.value_list({loss, dl})});
      b.output(loss);
      b.output(dl);
      auto r = b.run({Value::make_tensor(logits), Value::make_tensor(labels)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      double want_loss = 0;
      for (int64_t row = 0; row < c.rows; ++row) {
        const int64_t y = labels.data_as<int64_t>()[row];
        double mx = -1e300, sum = 0;
        for (int64_t j = 0; j < c.cols; ++j) mx = std::max<double>(mx, f(logits, row * c.cols + j));
        for (int64_t j = 0; j < c.cols; ++j) sum += std::exp(f(logits, row * c.cols + j) - mx);
        if (y >= 0) want_loss += (mx + std::log(sum) - f(logits, row * c.cols + y)) / n_valid;
        for (int64_t j = 0; j < c.cols; ++j) {
          const double want = y < 0 ? 0.0 : (std::exp(f(logits, row * c.cols + j) - mx) / sum - (j == y ? 1.0 : 0.0)) / n_valid;
          ASSERT_NEAR(f((*r)[1].tensor, row * c.cols + j), want, 1e-6 + 1e-5 * std::fabs(want)) << row << ", " << j;
        }
      }
      EXPECT_EQ((*r)[0].tensor.numel(), 1);
      EXPECT_NEAR(f((*r)[0].tensor, 0), want_loss, 1e-5 + 1e-5 * std::fabs(want_loss));
    }
}

TEST(WebGpuTrainingOps, FusedCeLabelPastTheClassesIsAnError) {
  for (bool cpu : {false, true}) {
    test::VkGraphBuilder b;
    b.cpu = cpu;
    int il = b.input(ScalarType::kFloat, {2, 4}), iy = b.input(ScalarType::kLong, {2});
    int loss = b.tensor(ScalarType::kFloat, {}), dl = b.tensor(ScalarType::kFloat, {2, 4});
    b.op("et_vk.fused_ce.default", {il, iy, b.double_value(2), b.value_list({loss, dl})});
    b.output(loss);
    Tensor labels = Tensor::make_owned(ScalarType::kLong, {2});
    labels.data_as<int64_t>()[0] = 1;
    labels.data_as<int64_t>()[1] = 4;
    auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {2, 4})), Value::make_tensor(labels)});
    ASSERT_FALSE(r.ok()) << executor(cpu);
    EXPECT_NE(r.status().message().find("label 4 of row 1 is out of range"), std::string::npos) << r.status().message();
  }
}

TEST(WebGpuTrainingOps, LinearDwMatchesReference) {
  struct Cfg {
    std::vector<int64_t> lead;  // leading dims, flattened into M
    int64_t n, k;
  };
  for (bool cpu : {false, true})
    for (const Cfg& c : {Cfg{{13}, 10, 18}, Cfg{{2, 5}, 33, 7}, Cfg{{64}, 48, 40}}) {
      SCOPED_TRACE(executor(cpu));
      std::mt19937 rng(static_cast<uint32_t>(c.n * c.k));
      std::vector<int64_t> ds = c.lead, xs = c.lead;
      ds.push_back(c.n);
      xs.push_back(c.k);
      Tensor d = test::random_tensor(ScalarType::kFloat, ds, rng), x = test::random_tensor(ScalarType::kFloat, xs, rng);
      test::VkGraphBuilder b;
      b.cpu = cpu;
      int id = b.input(ScalarType::kFloat, ds), ix = b.input(ScalarType::kFloat, xs);
      int out = b.tensor(ScalarType::kFloat, {c.n, c.k});
      b.op("et_vk.linear_dW.default", {id, ix, out});
      b.output(out);
      auto r = b.run({Value::make_tensor(d), Value::make_tensor(x)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      ASSERT_EQ((*r)[0].tensor.sizes, (std::vector<int64_t>{c.n, c.k}));
      const int64_t m = d.numel() / c.n;
      for (int64_t i = 0; i < c.n; ++i)
        for (int64_t j = 0; j < c.k; ++j) {
          double want = 0;
          for (int64_t row = 0; row < m; ++row) want += double(f(d, row * c.n + i)) * f(x, row * c.k + j);
          ASSERT_NEAR(f((*r)[0].tensor, i * c.k + j), want, 1e-5 + 1e-5 * std::fabs(want)) << i << ", " << j;
        }
    }
}

TEST(WebGpuTrainingOps, LinearQ4gswBackwardMatchesReference) {
  struct Cfg {
    std::vector<int64_t> lead;
    int64_t n, k, group, padded_n;
  };
  for (bool cpu : {false, true})
    for (const Cfg& c : {Cfg{{3}, 12, 64, 32, 12}, Cfg{{2, 2}, 9, 48, 16, 12}, Cfg{{5}, 40, 128, 128, 40}}) {
      SCOPED_TRACE(executor(cpu));
      std::mt19937 rng(static_cast<uint32_t>(c.n + c.k));
      std::uniform_int_distribution<int> qd(-8, 7);
      std::vector<int> q(static_cast<size_t>(c.n * c.k));
      for (int& v : q) v = qd(rng);
      Tensor w = test::pack_q4gsw_weight(q, c.n, c.k);
      const int64_t groups = c.k / c.group;
      Tensor scales = test::random_tensor(ScalarType::kFloat, {groups, c.padded_n}, rng, 0.01, 0.1);
      std::vector<int64_t> ds = c.lead, xs = c.lead;
      ds.push_back(c.n);
      xs.push_back(c.k);
      Tensor d = test::random_tensor(ScalarType::kFloat, ds, rng);
      test::VkGraphBuilder b;
      b.cpu = cpu;
      int id = b.input(ScalarType::kFloat, ds);
      int out = b.tensor(ScalarType::kFloat, xs);
      b.op("et_vk.linear_q4gsw_backward.default", {id, b.constant(w), b.constant(scales), b.int_value(c.group), out});
      b.output(out);
      auto r = b.run({Value::make_tensor(d)});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      ASSERT_EQ((*r)[0].tensor.sizes, xs);
      const int64_t m = d.numel() / c.n;
      for (int64_t row = 0; row < m; ++row)
        for (int64_t j = 0; j < c.k; ++j) {
          double want = 0;
          for (int64_t i = 0; i < c.n; ++i)
            want += double(f(d, row * c.n + i)) * q[static_cast<size_t>(i * c.k + j)] * f(scales, (j / c.group) * c.padded_n + i);
          ASSERT_NEAR(f((*r)[0].tensor, row * c.k + j), want, 1e-5 + 1e-5 * std::fabs(want)) << row << ", " << j;
        }
    }
}

TEST(WebGpuTrainingOps, Q4gswBackwardWithMismatchedDOutIsNamed) {
  test::VkGraphBuilder b;
  int id = b.input(ScalarType::kFloat, {2, 7});
  int out = b.tensor(ScalarType::kFloat, {2, 64});
  std::vector<int> q(12 * 64, 1);
  b.op("et_vk.linear_q4gsw_backward.default", {id, b.constant(test::pack_q4gsw_weight(q, 12, 64)),
                                               b.constant(Tensor::make_owned(ScalarType::kFloat, {2, 12})), b.int_value(32), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {2, 7}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not end in N=12"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
