// src/image/tiling: the tile plan, the blend weights, and overlapped tiling of a model
// with a known receptive field. The stand-in model is what makes tiling hard for a real
// network: K layers of a 3x3 box filter, each zero-padded at the input's edge (as every
// convolution layer is), then a 4x nearest upsample. An output pixel depends on the input
// within K pixels, so tiles with margin >= K must reproduce the whole-image run, and tiles
// without overlap (the page's old grid) must not. The real network is in
// tests/image/tiled_upscale_model_test.cpp.
#include "image/tiling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace wick::image {
namespace {

constexpr int kScale = 4;

// K zero-padded 3x3 means over CHW [3, h, w], then nearest x4: CHW [3, 4h, 4w].
std::vector<float> box_model(const std::vector<float>& chw, int w, int h, int layers) {
  std::vector<float> cur = chw, next(chw.size());
  for (int k = 0; k < layers; ++k) {
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          float s = 0;
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int yy = y + dy, xx = x + dx;
              if (yy >= 0 && yy < h && xx >= 0 && xx < w) s += cur[(static_cast<size_t>(c) * h + yy) * w + xx];
            }
          next[(static_cast<size_t>(c) * h + y) * w + x] = s / 9.f;
        }
    std::swap(cur, next);
  }
  std::vector<float> out(static_cast<size_t>(3) * w * h * kScale * kScale);
  const int ow = w * kScale, oh = h * kScale;
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x)
        out[(static_cast<size_t>(c) * oh + y) * ow + x] = cur[(static_cast<size_t>(c) * h + y / kScale) * w + x / kScale];
  return out;
}

RgbImage noise_image(int w, int h) {
  std::mt19937 rng(7);
  RgbImage img = RgbImage::make(w, h);
  for (auto& p : img.pixels) p = static_cast<uint8_t>(rng() % 256);
  return img;
}

std::vector<float> whole(const RgbImage& img, int layers) {
  std::vector<float> chw(static_cast<size_t>(3) * img.width * img.height);
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      for (int c = 0; c < 3; ++c) chw[(static_cast<size_t>(c) * img.height + y) * img.width + x] = img.at(x, y)[c];
  return box_model(chw, img.width, img.height, layers);
}

float max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

TEST(Tiling, PlanCoversTheImageAndEndsAtItsEdges) {
  auto p = plan_tiles(200, 150, 64, 64);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->overlap, 24);
  EXPECT_EQ(p->margin, 10);
  EXPECT_EQ(p->xs, (std::vector<int>{0, 40, 80, 120, 136}));
  EXPECT_EQ(p->ys, (std::vector<int>{0, 40, 80, 86}));
  EXPECT_EQ(p->count(), 20u);
  auto small = plan_tiles(48, 30, 64, 64);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->count(), 1u);  // one padded tile
  EXPECT_FALSE(plan_tiles(200, 150, 64, 64, 64).ok());     // overlap = tile
  EXPECT_FALSE(plan_tiles(200, 150, 64, 64, 20, 11).ok());  // 2 * margin > overlap
  EXPECT_FALSE(plan_tiles(0, 150, 64, 64).ok());
}

// Two neighbours' weights add up to 1 across an overlap of exactly `overlap` pixels, are
// 0 within the margin of the shared edge, and 1 at the image's own edges.
TEST(Tiling, WeightsOfNeighboursSumToOne) {
  const int tile = 64, overlap = 24, margin = 10, n = tile * kScale;
  for (int u = 0; u < overlap * kScale; ++u) {
    const float b = tile_weight(u, tile, kScale, overlap, margin, true, false);       // right tile, from its left edge
    const float a = tile_weight(n - overlap * kScale + u, tile, kScale, overlap, margin, false, true);  // left tile
    EXPECT_NEAR(a + b, 1.f, 1e-6f) << u;
    if (u < margin * kScale) { EXPECT_EQ(b, 0.f) << u; }
  }
  EXPECT_EQ(tile_weight(0, tile, kScale, overlap, margin, false, false), 1.f);
  EXPECT_EQ(tile_weight(n - 1, tile, kScale, overlap, margin, false, false), 1.f);
}

TEST(Tiling, MarginAtTheReceptiveFieldIsExactNoOverlapIsNot) {
  const int layers = 6;  // receptive-field radius 6 input pixels
  const RgbImage img = noise_image(100, 70);
  const std::vector<float> want = whole(img, layers);
  auto run = [&](const TilePlan& plan) {
    int calls = 0;
    auto out = upscale_tiled(img, plan, kScale, [&](const TileInput& t) -> Result<std::vector<float>> {
      ++calls;
      EXPECT_EQ(t.index, static_cast<size_t>(calls - 1));
      return box_model(t.chw, t.w, t.h, layers);
    });
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ(static_cast<size_t>(calls), plan.count());
    EXPECT_EQ(out->width, 400);
    EXPECT_EQ(out->height, 280);
    return out->chw;
  };
  auto exact = plan_tiles(img.width, img.height, 32, 32, 14, layers);
  ASSERT_TRUE(exact.ok());
  EXPECT_GT(exact->count(), 4u);  // inner edges in both directions
  EXPECT_LT(max_diff(run(*exact), want), 1e-4f);
  // A margin one pixel short of the receptive field already shows at the seams.
  auto short_margin = plan_tiles(img.width, img.height, 32, 32, 14, layers - 1);
  EXPECT_GT(max_diff(run(*short_margin), want), 1e-3f);
  auto grid = plan_tiles(img.width, img.height, 32, 32, 0, 0);
  EXPECT_GT(max_diff(run(*grid), want), 5.f);
}

TEST(Tiling, ModelErrorsNameTheTile) {
  const RgbImage img = noise_image(70, 40);
  auto plan = plan_tiles(img.width, img.height, 32, 32, 8, 2);
  ASSERT_TRUE(plan.ok());
  auto out = upscale_tiled(img, *plan, kScale, [&](const TileInput& t) -> Result<std::vector<float>> {
    if (t.index == 2) return Status(ErrorCode::kInternal, "device lost");
    return box_model(t.chw, t.w, t.h, 1);
  });
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().to_string().find("tile 3 of"), std::string::npos) << out.status().to_string();
  EXPECT_NE(out.status().to_string().find("device lost"), std::string::npos);
  auto wrong = upscale_tiled(img, *plan, kScale, [&](const TileInput&) -> Result<std::vector<float>> {
    return std::vector<float>(5);
  });
  EXPECT_FALSE(wrong.ok());
}

}  // namespace
}  // namespace wick::image
