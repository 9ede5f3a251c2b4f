// Randomized tests of ops/qdq (quantize / dequantize per tensor, choose_qparams_affine)
// against CPU computations written from the PyTorch / torchao definitions, in f32 as they
// compute. Quantized values must match exactly; float results within 4 ulp (dequantize) or
// 1e-6 relative (scales, where the GPU's f32 division may differ by an ulp).
#include <gtest/gtest.h>

#include <cmath>

#include "single_op.h"

namespace wick {
namespace {

constexpr int kInt8 = 1;  // ScalarType::kChar, as the exporter writes dtype args
constexpr int kUInt8 = 0;

int32_t ref_quantize(float x, float inv_scale, int zp, int qmin, int qmax) {
  const float r = std::nearbyint(x * inv_scale) + static_cast<float>(zp);  // half to even
  return static_cast<int32_t>(std::fmin(std::fmax(r, static_cast<float>(qmin)), static_cast<float>(qmax)));
}

Result<Tensor> run_quantize(const Tensor& x, double scale, int zp, int qmin, int qmax, int dtype) {
  test::VkGraphBuilder b;
  int in = b.input(ScalarType::kFloat, x.sizes);
  int out = b.tensor(dtype == kUInt8 ? ScalarType::kByte : ScalarType::kChar, x.sizes);
  b.op("quantized_decomposed.quantize_per_tensor.default",
       {in, b.double_value(scale), b.int_value(zp), b.int_value(qmin), b.int_value(qmax), b.int_value(dtype), out});
  b.output(out);
  WICK_ASSIGN_OR_RETURN(auto outs, b.run({Value::make_tensor(x)}));
  return outs[0].tensor;
}

TEST(WebGpuQdqOps, QuantizePerTensorMatchesPyTorchRoundingAndClamp) {
  std::mt19937 rng(21);
  struct Cfg {
    double scale;
    int zp, qmin, qmax, dtype;
    std::vector<int64_t> shape;
  };
  for (const Cfg& c : {Cfg{0.05, 3, -128, 127, kInt8, {2, 3, 8}}, Cfg{0.013, -7, -128, 127, kInt8, {1031}},
                       Cfg{0.1, 128, 0, 255, kUInt8, {4, 17}}, Cfg{0.02, 0, -100, 90, kInt8, {5, 5}}}) {
    // Beyond the range at both ends (the clamp), plus exact halves (the rounding rule).
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng, -8, 8);
    x.data_as<float>()[0] = static_cast<float>(2.5 * c.scale);
    x.data_as<float>()[1] = static_cast<float>(-3.5 * c.scale);
    x.data_as<float>()[2] = 1e30f;
    auto r = run_quantize(x, c.scale, c.zp, c.qmin, c.qmax, c.dtype);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(r->sizes, c.shape);
    const float inv = static_cast<float>(1.0 / c.scale);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int32_t want = ref_quantize(x.data_as<float>()[i], inv, c.zp, c.qmin, c.qmax);
      const int32_t got = c.dtype == kUInt8 ? r->data_as<uint8_t>()[i] : r->data_as<int8_t>()[i];
      ASSERT_EQ(got, want) << "scale " << c.scale << " at " << i << " x=" << x.data_as<float>()[i];
    }
  }
}

TEST(WebGpuQdqOps, DequantizeAndRoundTrip) {
  std::mt19937 rng(22);
  const double scale = 0.037;
  const int zp = -5;
  Tensor q = Tensor::make_owned(ScalarType::kChar, {3, 40});
  std::uniform_int_distribution<int> u(-128, 127);
  for (int64_t i = 0; i < q.numel(); ++i) q.data_as<int8_t>()[i] = static_cast<int8_t>(u(rng));
  // dequantize alone, with and without the out_dtype kwarg (7 or 8 args).
  for (bool with_out_dtype : {false, true}) {
    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kChar, {3, 40});
    int out = b.tensor(ScalarType::kFloat, {3, 40});
    std::vector<int> args = {in, b.double_value(scale), b.int_value(zp), b.int_value(-128), b.int_value(127), b.int_value(kInt8)};
    if (with_out_dtype) args.push_back(b.none());
    args.push_back(out);
    b.op("quantized_decomposed.dequantize_per_tensor.default", args);
    b.output(out);
    auto r = b.run({Value::make_tensor(q)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int64_t i = 0; i < q.numel(); ++i) {
      const float want = (static_cast<float>(q.data_as<int8_t>()[i]) - static_cast<float>(zp)) * static_cast<float>(scale);
      ASSERT_FLOAT_EQ((*r)[0].tensor.data_as<float>()[i], want) << i;
    }
  }
  // quantize -> dequantize inside one graph: the int8 intermediate never leaves the GPU.
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {64});
  int mid = b.tensor(ScalarType::kChar, {64});
  int y = b.tensor(ScalarType::kFloat, {64});
  auto qargs = [&](int in, int out) {
    return std::vector<int>{in, b.double_value(scale), b.int_value(zp), b.int_value(-128), b.int_value(127), b.int_value(kInt8), out};
  };
  b.op("quantized_decomposed.quantize_per_tensor.default", qargs(x, mid));
  b.op("quantized_decomposed.dequantize_per_tensor.default", qargs(mid, y));
  b.output(y);
  Tensor tx = test::random_tensor(ScalarType::kFloat, {64}, rng, -6, 6);
  auto r = b.run({Value::make_tensor(tx)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const float inv = static_cast<float>(1.0 / scale);
  for (int64_t i = 0; i < 64; ++i) {
    const float qv = static_cast<float>(ref_quantize(tx.data_as<float>()[i], inv, zp, -128, 127));
    ASSERT_FLOAT_EQ((*r)[0].tensor.data_as<float>()[i], (qv - zp) * static_cast<float>(scale)) << i;
  }
}

TEST(WebGpuQdqOps, BadQuantRangeAndScaleAreNamed) {
  Tensor x = Tensor::make_owned(ScalarType::kFloat, {4});
  auto r = run_quantize(x, 0.1, 0, -128, 300, kInt8);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("quantize_per_tensor"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("quant range"), std::string::npos) << r.status().message();
  r = run_quantize(x, 0.0, 0, -128, 127, kInt8);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("scale"), std::string::npos) << r.status().message();
}

// torchao _choose_qparams_affine, per contiguous block, in f32.
void ref_choose(const float* x, int64_t len, const std::string& mapping, int qmin, int qmax, float eps, float* scale,
                int32_t* zp, float* zp_boundary) {
  float mn = 0, mx = 0;
  for (int64_t i = 0; i < len; ++i) mn = std::fmin(mn, x[i]), mx = std::fmax(mx, x[i]);
  *zp_boundary = 1;
  if (mapping == "ASYMMETRIC") {
    *scale = std::fmax(eps, (mx - mn) / static_cast<float>(qmax - qmin));
    const float t = mn / *scale;
    *zp_boundary = std::fabs(std::fabs(t - std::trunc(t)) - 0.5f);
    *zp = static_cast<int32_t>(std::fmin(std::fmax(qmin - std::nearbyint(t), static_cast<float>(qmin)), static_cast<float>(qmax)));
  } else {
    *scale = std::fmax(eps, std::fmax(-mn, mx) / (static_cast<float>(qmax - qmin) / 2));
    *zp = static_cast<int32_t>(std::trunc((qmin + qmax + 1) / 2.0));
  }
}

TEST(WebGpuQdqOps, ChooseQParamsAffinePerRowPerGroupPerTensor) {
  std::mt19937 rng(23);
  struct Cfg {
    std::vector<int64_t> shape, block, out;
    const char* mapping;
    double lo, hi;
  };
  const float eps = 1.1920929e-07f;  // torch.finfo(float32).eps, what the exporter passes
  for (const Cfg& c : {Cfg{{4, 32}, {1, 32}, {4, 1}, "ASYMMETRIC", -2, 3},
                       Cfg{{6, 200}, {1, 200}, {6}, "ASYMMETRIC", 0.5, 4},      // all positive: min_neg = 0
                       Cfg{{2, 3, 64}, {1, 1, 16}, {2, 3, 4}, "ASYMMETRIC", -5, -1},  // all negative, groups of 16
                       Cfg{{5, 7}, {5, 7}, {1}, "SYMMETRIC", -3, 1},
                       Cfg{{3, 9}, {1, 9}, {3, 1}, "ASYMMETRIC", 0, 0}}) {  // all zero: scale = eps
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng, c.lo, c.hi + 1e-9);
    if (c.lo == c.hi)
      for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = 0;
    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kFloat, c.shape);
    int scale = b.tensor(ScalarType::kFloat, c.out);
    int zp = b.tensor(ScalarType::kChar, c.out);
    b.op("torchao.choose_qparams_affine.default",
         {in, b.string_value(c.mapping), b.int_list(c.block), b.int_value(kInt8), b.int_value(-128), b.int_value(127),
          b.double_value(eps), b.int_value(6), b.int_value(kInt8), b.bool_value(false), b.value_list({scale, zp})});
    b.output(scale);
    b.output(zp);
    auto r = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(r.ok()) << c.mapping << ": " << r.status().to_string();
    const Tensor& gs = (*r)[0].tensor;
    const Tensor& gz = (*r)[1].tensor;
    ASSERT_EQ(gs.sizes, c.out);
    const int64_t blocks = gs.numel(), len = x.numel() / blocks;
    for (int64_t k = 0; k < blocks; ++k) {
      float ws, boundary;
      int32_t wz;
      ref_choose(x.data_as<float>() + k * len, len, c.mapping, -128, 127, eps, &ws, &wz, &boundary);
      ASSERT_NEAR(gs.data_as<float>()[k], ws, 1e-6 * ws) << c.mapping << " block " << k;
      if (boundary > 1e-4) {
        ASSERT_EQ(gz.data_as<int8_t>()[k], wz) << c.mapping << " block " << k;
      }
    }
  }
}

// ExecuTorch's Vulkan serializer writes every torch.dtype argument as Null (the real 8da4w
// and choose_qparams_affine programs failed to load on "value N is not an int"): the range
// then comes from quant_min / quant_max, or without them from the zero point's dtype.
TEST(WebGpuQdqOps, ChooseQParamsTakesNullDtypesAsTheSerializerWritesThem) {
  std::mt19937 rng(24);
  const float eps = 1.1920929e-07f;
  struct Cfg {
    bool with_range;
    ScalarType zp_type;
    int qmin, qmax;
  };
  for (const Cfg& c : {Cfg{true, ScalarType::kChar, -128, 127}, Cfg{false, ScalarType::kChar, -128, 127},
                       Cfg{false, ScalarType::kByte, 0, 255}}) {
    Tensor x = test::random_tensor(ScalarType::kFloat, {3, 40}, rng, -2, 3);
    test::VkGraphBuilder b;
    int in = b.input(ScalarType::kFloat, {3, 40});
    int scale = b.tensor(ScalarType::kFloat, {3, 1});
    int zp = b.tensor(c.zp_type, {3, 1});
    b.op("torchao.choose_qparams_affine.default",
         {in, b.string_value("ASYMMETRIC"), b.int_list({1, 40}), b.none(), c.with_range ? b.int_value(c.qmin) : b.none(),
          c.with_range ? b.int_value(c.qmax) : b.none(), b.double_value(eps), b.none(), b.none(),
          b.value_list({scale, zp})});
    b.output(scale);
    b.output(zp);
    auto r = b.run({Value::make_tensor(x)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int64_t k = 0; k < 3; ++k) {
      float ws, boundary;
      int32_t wz;
      ref_choose(x.data_as<float>() + k * 40, 40, "ASYMMETRIC", c.qmin, c.qmax, eps, &ws, &wz, &boundary);
      ASSERT_NEAR((*r)[0].tensor.data_as<float>()[k], ws, 1e-6 * ws) << "row " << k;
      const int32_t got = c.zp_type == ScalarType::kByte ? (*r)[1].tensor.data_as<uint8_t>()[k]
                                                         : (*r)[1].tensor.data_as<int8_t>()[k];
      if (boundary > 1e-4) { ASSERT_EQ(got, wz) << "row " << k; }
    }
  }
}

TEST(WebGpuQdqOps, ChooseQParamsRejectsNonContiguousBlocks) {
  test::VkGraphBuilder b;
  int in = b.input(ScalarType::kFloat, {4, 8});
  int scale = b.tensor(ScalarType::kFloat, {2, 8});
  int zp = b.tensor(ScalarType::kChar, {2, 8});
  b.op("torchao.choose_qparams_affine.default",
       {in, b.string_value("ASYMMETRIC"), b.int_list({2, 1}), b.int_value(kInt8), b.none(), b.none(), b.none(),
        b.none(), b.none(), b.bool_value(false), b.value_list({scale, zp})});
  b.output(scale);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kFloat, {4, 8}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("block_size [2, 1]"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
