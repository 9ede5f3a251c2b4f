// Randomized tests of et_vk.q8ta_conv2d, _pw, _dw and _transposed (ops/q8ta) against the
// ops' definitions (custom_ops_lib.py): dequantize the int8 input and the per-channel int8
// weight, convolve (in double here), add the bias, relu if asked, quantize. The weights are
// laid out as ExecuTorch's pattern quantized_convolution.py stores them ([OC, K padded to 4]
// with k = (kh * KW + kw) * IC_per_group + ic; depthwise [KH, KW, OC padded to 4]); odd
// sizes, strides, dilation, groups, padding, output_padding, batch 2.
#include <gtest/gtest.h>

#include "q8ta_reference.h"
#include "single_op.h"

namespace wick {
namespace {

struct ConvCase {
  const char* op;
  int64_t batch, ic, ih, iw, oc, k, stride, pad, dil, groups, out_pad;
  bool relu, bias;
};

bool is_transposed(const ConvCase& c) { return std::string(c.op).find("transposed") != std::string::npos; }
bool is_dw(const ConvCase& c) { return std::string(c.op).find("_dw") != std::string::npos; }

void run_case(const ConvCase& c, std::mt19937& rng) {
  const bool tr = is_transposed(c), dw = is_dw(c);
  const int64_t icg = c.ic / c.groups, ocg = c.oc / c.groups;
  const int64_t oh = tr ? (c.ih - 1) * c.stride - 2 * c.pad + c.dil * (c.k - 1) + c.out_pad + 1
                        : (c.ih + 2 * c.pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
  const int64_t ow = tr ? (c.iw - 1) * c.stride - 2 * c.pad + c.dil * (c.k - 1) + c.out_pad + 1
                        : (c.iw + 2 * c.pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
  std::uniform_int_distribution<int> qd(-128, 127), wd(-127, 127);
  // The logical weight: [OC, ICg, K, K], or [IC, OCg, K, K] for the transposed conv.
  const int64_t wn = tr ? c.ic * ocg * c.k * c.k : c.oc * icg * c.k * c.k;
  std::vector<int> wq(static_cast<size_t>(wn));
  for (int& v : wq) v = wd(rng);
  auto wlog = [&](int64_t oc, int64_t icl, int64_t ky, int64_t kx) {  // weight of output oc, input icl of its group
    if (!tr) return wq[static_cast<size_t>(((oc * icg + icl) * c.k + ky) * c.k + kx)];
    const int64_t g = oc / ocg, ic = g * icg + icl;
    return wq[static_cast<size_t>(((ic * ocg + oc % ocg) * c.k + ky) * c.k + kx)];
  };
  // Stored as the Vulkan pattern packs it.
  const int64_t taps = c.k * c.k, kpad = (taps * icg + 3) / 4 * 4, ocpad = (c.oc + 3) / 4 * 4;
  Tensor w = dw ? Tensor::make_owned(ScalarType::kChar, {c.k, c.k, ocpad}) : Tensor::make_owned(ScalarType::kChar, {c.oc, kpad});
  int8_t* wp = w.data_as<int8_t>();
  for (int64_t i = 0; i < w.numel(); ++i) wp[i] = 0;
  for (int64_t oc = 0; oc < c.oc; ++oc)
    for (int64_t ky = 0; ky < c.k; ++ky)
      for (int64_t kx = 0; kx < c.k; ++kx)
        for (int64_t icl = 0; icl < icg; ++icl) {
          const int8_t v = static_cast<int8_t>(wlog(oc, icl, ky, kx));
          if (dw) wp[(ky * c.k + kx) * ocpad + oc] = v;
          else wp[oc * kpad + (ky * c.k + kx) * icg + icl] = v;
        }
  const int64_t nscales = tr ? ocg : c.oc;
  Tensor ws = test::random_tensor(ScalarType::kFloat, {(nscales + 3) / 4 * 4}, rng, 0.002, 0.02);
  Tensor bias = test::random_tensor(ScalarType::kFloat, {ocpad}, rng, -0.5, 0.5);
  Tensor sums = Tensor::make_owned(ScalarType::kInt, {ocpad});
  Tensor x = Tensor::make_owned(ScalarType::kChar, {c.batch, c.ic, c.ih, c.iw});
  for (int64_t i = 0; i < x.numel(); ++i) x.data_as<int8_t>()[i] = static_cast<int8_t>(qd(rng));
  const double in_s = 0.05, out_s = 0.11;
  const int in_zp = 3, out_zp = -7;

  test::VkGraphBuilder b;
  int in = b.input(ScalarType::kChar, x.sizes);
  int out = b.tensor(ScalarType::kChar, {c.batch, c.oc, oh, ow});
  std::vector<int> args = {in, b.double_value(in_s), b.int_value(in_zp), b.constant(w), b.constant(sums), b.constant(ws),
                           b.double_value(out_s), b.int_value(out_zp), c.bias ? b.constant(bias) : b.none(),
                           b.int_list({c.k, c.k}), b.int_list({c.stride, c.stride}), b.int_list({c.pad, c.pad})};
  if (tr) args.push_back(b.int_list({c.out_pad, c.out_pad}));
  args.push_back(b.int_list({c.dil, c.dil}));
  args.push_back(b.int_value(c.groups));
  args.push_back(b.string_value(c.relu ? "relu" : "none"));
  args.push_back(out);
  b.op(c.op, args);
  b.output(out);
  auto r = b.run({Value::make_tensor(x)});
  ASSERT_TRUE(r.ok()) << c.op << ": " << r.status().to_string();
  const Tensor& got = (*r)[0].tensor;
  ASSERT_EQ(got.sizes, (std::vector<int64_t>{c.batch, c.oc, oh, ow}));
  const int8_t* xs = x.data_as<int8_t>();
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t oc = 0; oc < c.oc; ++oc) {
      const int64_t g = oc / ocg;
      const double wscale = ws.data_as<float>()[tr ? oc % ocg : oc];
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double acc = c.bias ? bias.data_as<float>()[oc] : 0.0;
          for (int64_t ky = 0; ky < c.k; ++ky)
            for (int64_t kx = 0; kx < c.k; ++kx) {
              int64_t iy, ix;
              if (tr) {
                const int64_t ty = y + c.pad - ky * c.dil, tx = xo + c.pad - kx * c.dil;
                if (ty < 0 || tx < 0 || ty % c.stride || tx % c.stride) continue;
                iy = ty / c.stride, ix = tx / c.stride;
              } else {
                iy = y * c.stride - c.pad + ky * c.dil, ix = xo * c.stride - c.pad + kx * c.dil;
              }
              if (iy < 0 || ix < 0 || iy >= c.ih || ix >= c.iw) continue;
              for (int64_t icl = 0; icl < icg; ++icl) {
                const int q = xs[((n * c.ic + g * icg + icl) * c.ih + iy) * c.iw + ix];
                acc += test::q8_dequantize(q, in_s, in_zp) * (static_cast<float>(wlog(oc, icl, ky, kx)) * static_cast<float>(wscale));
              }
            }
          if (c.relu) acc = std::fmax(acc, 0.0);
          const int64_t at = ((n * c.oc + oc) * oh + y) * ow + xo;
          test::expect_q8(got.data_as<int8_t>()[at], acc, out_s, out_zp,
                          std::string(c.op) + " oc " + std::to_string(oc) + " at " + std::to_string(at));
        }
    }
}

TEST(WebGpuQ8taConv, MatchesDequantizeConvQuantize) {
  std::mt19937 rng(81);
  const ConvCase cases[] = {
      // op, batch, ic, ih, iw, oc, k, stride, pad, dil, groups, out_pad, relu, bias
      {"et_vk.q8ta_conv2d.default", 1, 6, 9, 11, 6, 3, 2, 1, 1, 1, 0, true, true},     // K = 54, padded to 56
      {"et_vk.q8ta_conv2d.default", 2, 8, 7, 6, 8, 3, 1, 2, 2, 2, 0, false, false},    // groups 2, dilation 2
      {"et_vk.q8ta_conv2d.default", 1, 3, 13, 10, 5, 5, 3, 2, 1, 1, 0, true, true},    // 5x5, stride 3, OC 5
      {"et_vk.q8ta_conv2d_pw.default", 2, 12, 5, 7, 10, 1, 1, 0, 1, 1, 0, false, true},
      {"et_vk.q8ta_conv2d_dw.default", 1, 8, 7, 9, 8, 3, 1, 1, 1, 8, 0, true, true},
      {"et_vk.q8ta_conv2d_dw.default", 2, 12, 10, 11, 12, 5, 2, 2, 1, 12, 0, false, false},
      {"et_vk.q8ta_conv2d_transposed.default", 1, 4, 5, 6, 6, 3, 2, 1, 1, 1, 1, false, true},
      {"et_vk.q8ta_conv2d_transposed.default", 2, 4, 3, 4, 8, 2, 2, 0, 1, 2, 0, true, true},  // groups 2
      {"et_vk.q8ta_conv2d_transposed.default", 1, 3, 4, 5, 5, 3, 1, 1, 1, 1, 0, false, false},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.op);
    run_case(c, rng);
    if (HasFatalFailure()) return;
  }
}

TEST(WebGpuQ8taConv, BadShapesAndQuantParamsAreNamed) {
  test::VkGraphBuilder b;
  int in = b.input(ScalarType::kChar, {1, 4, 5, 5});
  int out = b.tensor(ScalarType::kChar, {1, 4, 4, 4});  // a 3x3 conv with pad 1 gives 5x5
  b.op("et_vk.q8ta_conv2d.default",
       {in, b.double_value(0.1), b.int_value(0), b.constant(Tensor::make_owned(ScalarType::kChar, {4, 36})),
        b.constant(Tensor::make_owned(ScalarType::kInt, {4})), b.constant(Tensor::make_owned(ScalarType::kFloat, {4})),
        b.double_value(0.1), b.int_value(0), b.none(), b.int_list({3, 3}), b.int_list({1, 1}), b.int_list({1, 1}),
        b.int_list({1, 1}), b.int_value(1), b.string_value("none"), out});
  b.output(out);
  auto r = b.run({Value::make_tensor(Tensor::make_owned(ScalarType::kChar, {1, 4, 5, 5}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not match the convolution"), std::string::npos) << r.status().message();

  test::VkGraphBuilder b2;
  in = b2.input(ScalarType::kChar, {1, 4, 5, 5});
  out = b2.tensor(ScalarType::kChar, {1, 4, 5, 5});
  b2.op("et_vk.q8ta_conv2d_pw.default",
        {in, b2.double_value(0.1), b2.int_value(200), b2.constant(Tensor::make_owned(ScalarType::kChar, {4, 4})),
         b2.constant(Tensor::make_owned(ScalarType::kInt, {4})), b2.constant(Tensor::make_owned(ScalarType::kFloat, {4})),
         b2.double_value(0.1), b2.int_value(0), b2.none(), b2.int_list({1, 1}), b2.int_list({1, 1}), b2.int_list({0, 0}),
         b2.int_list({1, 1}), b2.int_value(1), b2.string_value("none"), out});
  b2.output(out);
  r = b2.run({Value::make_tensor(Tensor::make_owned(ScalarType::kChar, {1, 4, 5, 5}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("zero point 200 is outside int8"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace wick
