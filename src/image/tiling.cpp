#include "image/tiling.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace wick::image {

namespace {

// Origins along one axis: every `step` pixels, the last moved back to end at the edge.
std::vector<int> origins(int size, int tile, int overlap) {
  if (size <= tile) return {0};
  const int step = tile - overlap;
  std::vector<int> out;
  for (int s = 0; s + tile < size; s += step) out.push_back(s);
  out.push_back(size - tile);
  return out;
}

}  // namespace

Result<TilePlan> plan_tiles(int width, int height, int tile_w, int tile_h, int overlap, int margin) {
  if (width < 1 || height < 1 || tile_w < 1 || tile_h < 1)
    return Status(ErrorCode::kInvalidArgument, "plan_tiles: image " + std::to_string(width) + "x" +
                                                   std::to_string(height) + " and tile " + std::to_string(tile_w) +
                                                   "x" + std::to_string(tile_h) + " must be at least 1x1");
  if (overlap < 0) overlap = std::min(tile_w, tile_h) * 3 / 8;
  if (margin < 0) margin = std::max(0, overlap / 2 - 2);
  if (overlap >= std::min(tile_w, tile_h) || 2 * margin > overlap)
    return Status(ErrorCode::kInvalidArgument, "plan_tiles: overlap " + std::to_string(overlap) + " and margin " +
                                                   std::to_string(margin) +
                                                   " need 2 * margin <= overlap < the tile side (" +
                                                   std::to_string(std::min(tile_w, tile_h)) + ")");
  TilePlan p;
  p.width = width;
  p.height = height;
  p.tile_w = tile_w;
  p.tile_h = tile_h;
  p.overlap = overlap;
  p.margin = margin;
  p.xs = origins(width, tile_w, overlap);
  p.ys = origins(height, tile_h, overlap);
  return p;
}

float tile_weight(int u, int tile, int scale, int overlap, int margin, bool inner_lo, bool inner_hi) {
  const int m = margin * scale, ramp = (overlap - 2 * margin) * scale;
  auto rise = [&](int d) -> float {  // d: output pixels from the shared edge
    if (ramp == 0) return d >= m ? 1.f : 0.f;
    return std::clamp((static_cast<float>(d - m) + 0.5f) / static_cast<float>(ramp), 0.f, 1.f);
  };
  float w = 1.f;
  if (inner_lo) w = std::min(w, rise(u));
  if (inner_hi) w = std::min(w, rise(tile * scale - 1 - u));
  return w;
}

Result<FloatImage> upscale_tiled(const RgbImage& image, const TilePlan& plan, int scale, const TileFn& model) {
  if (image.width != plan.width || image.height != plan.height || scale < 1 ||
      image.pixels.size() != static_cast<size_t>(image.width) * image.height * 3)
    return Status(ErrorCode::kInvalidArgument, "upscale_tiled: the image does not match the plan");
  const int ow = image.width * scale, oh = image.height * scale;
  const size_t plane = static_cast<size_t>(ow) * oh;
  FloatImage out{ow, oh, std::vector<float>(3 * plane, 0.f)};
  std::vector<float> weight_sum(plane, 0.f);
  const int tw = plan.tile_w, th = plan.tile_h, tow = tw * scale, toh = th * scale;
  // Per-axis weights of one tile, by its position in the row or column of tiles.
  auto axis_weights = [&](size_t k, size_t n, int tile) {
    std::vector<float> w(static_cast<size_t>(tile * scale));
    for (int u = 0; u < tile * scale; ++u)
      w[static_cast<size_t>(u)] = tile_weight(u, tile, scale, plan.overlap, plan.margin, k > 0, k + 1 < n);
    return w;
  };
  TileInput in;
  in.w = tw;
  in.h = th;
  in.chw.resize(static_cast<size_t>(3) * tw * th);
  for (size_t j = 0; j < plan.ys.size(); ++j) {
    const std::vector<float> wy = axis_weights(j, plan.ys.size(), th);
    for (size_t i = 0; i < plan.xs.size(); ++i) {
      const std::vector<float> wx = axis_weights(i, plan.xs.size(), tw);
      in.index = j * plan.xs.size() + i;
      in.x = plan.xs[i];
      in.y = plan.ys[j];
      for (int y = 0; y < th; ++y)
        for (int x = 0; x < tw; ++x) {
          // Edge pixels repeat where the tile is larger than the image.
          const uint8_t* px = image.at(std::min(in.x + x, image.width - 1), std::min(in.y + y, image.height - 1));
          for (int c = 0; c < 3; ++c) in.chw[(static_cast<size_t>(c) * th + y) * tw + x] = px[c];
        }
      Result<std::vector<float>> r = model(in);
      const std::string where = "tile " + std::to_string(in.index + 1) + " of " + std::to_string(plan.count()) +
                                " (at " + std::to_string(in.x) + "," + std::to_string(in.y) + ")";
      if (!r.ok()) return r.status().with_context(where);
      if (r->size() != static_cast<size_t>(3) * tow * toh)
        return Status(ErrorCode::kInvalidArgument, where + ": the model returned " + std::to_string(r->size()) +
                                                       " values, expected 3x" + std::to_string(toh) + "x" +
                                                       std::to_string(tow));
      const int ox = in.x * scale, oy = in.y * scale;
      for (int y = 0; y < toh && oy + y < oh; ++y)
        for (int x = 0; x < tow && ox + x < ow; ++x) {
          const float w = wy[static_cast<size_t>(y)] * wx[static_cast<size_t>(x)];
          if (w == 0.f) continue;
          const size_t o = static_cast<size_t>(oy + y) * ow + (ox + x);
          weight_sum[o] += w;
          for (int c = 0; c < 3; ++c)
            out.chw[c * plane + o] += w * (*r)[(static_cast<size_t>(c) * toh + y) * tow + x];
        }
    }
  }
  for (size_t o = 0; o < plane; ++o)
    for (int c = 0; c < 3; ++c) out.chw[c * plane + o] /= weight_sum[o];  // every pixel has a tile of weight > 0
  return out;
}

RgbImage to_rgb8(const FloatImage& image) {
  RgbImage img = RgbImage::make(image.width, image.height);
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  for (size_t o = 0; o < plane; ++o)
    for (int c = 0; c < 3; ++c) {
      float f = image.chw[c * plane + o];
      f = f >= 0.f ? std::min(f, 255.f) : 0.f;  // NaN -> 0
      img.pixels[o * 3 + c] = static_cast<uint8_t>(std::nearbyint(f));
    }
  return img;
}

}  // namespace wick::image
