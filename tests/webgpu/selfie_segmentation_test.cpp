// examples/selfie_segmentation: MediaPipe's selfie segmentation with its real weights
// (converted from TF.js by scripts/convert/selfie_tfjs.py, Vulkan-lowered) on the WebGPU
// delegate (SwiftShader in CI), on its bundled reference photo, against PyTorch eager's
// output. The input is built from the PNG as the page builds it (8-bit RGB / 255, NCHW).
//
// Tolerance: 1e-3 absolute on the person probability (the page draws the matte in 8 bits,
// 1/255 = 0.0039); measured 1.4e-5 on SwiftShader. The matte must also mean something: the
// astronaut's face is the person, the flag and the shuttle behind her are not.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "image/png_io.h"
#include "runtime/program.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick {
namespace {

constexpr int kSide = 256;

std::string example_dir() { return test::source_dir() + "/examples/selfie_segmentation"; }

TEST(SelfieSegmentation, AstronautMatteMatchesPyTorch) {
  Status s = webgpu::register_webgpu_backend();
  ASSERT_TRUE(s.ok()) << "no WebGPU device: " << s.to_string();

  auto img = image::read_png(example_dir() + "/astronaut_256.png");
  ASSERT_TRUE(img.ok()) << img.status().to_string();
  ASSERT_EQ(img->width, kSide);
  ASSERT_EQ(img->height, kSide);
  Tensor x = Tensor::make_owned(ScalarType::kFloat, {1, 3, kSide, kSide});
  float* px = x.data_as<float>();
  for (int y = 0; y < kSide; ++y)
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < kSide; ++i) px[(c * kSide + y) * kSide + i] = img->at(i, y)[c] / 255.0f;

  std::ifstream f(example_dir() + "/astronaut_256_alpha.bin", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), sizeof(float) * kSide * kSide) << "astronaut_256_alpha.bin";
  Tensor want = Tensor::make_owned(ScalarType::kFloat, {1, 1, kSide, kSide});
  std::memcpy(want.data_as<float>(), bytes.data(), bytes.size());

  auto program = Program::load_file(example_dir() + "/selfie_256.pte");
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  auto out = (*method)->forward({Value::make_tensor(std::move(x))});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ(out->size(), 1u);
  const Tensor& got = (*out)[0].tensor;
  ASSERT_EQ(got.sizes, (std::vector<int64_t>{1, 1, kSide, kSide}));
  EXPECT_TRUE(test::values_close((*out)[0], Value::make_tensor(std::move(want)), 1e-3, 0.0));

  const float* a = got.data_as<float>();
  auto at = [&](int y, int i) { return a[y * kSide + i]; };
  EXPECT_GT(at(55, 112), 0.99f) << "face";
  EXPECT_GT(at(150, 60), 0.99f) << "suit";
  EXPECT_LT(at(20, 20), 0.01f) << "flag";
  EXPECT_LT(at(100, 210), 0.01f) << "shuttle";
}

}  // namespace
}  // namespace wick
