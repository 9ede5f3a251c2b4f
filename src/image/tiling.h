// Overlapping tiles with blending: runs an image-to-image model that takes a fixed (or
// bounded) input size on an image of any size, without seams. web/lib/tiling.mjs is the
// same algorithm for the browser; keep the two in step.
//
// Tiles of tile_w x tile_h input pixels start every (tile - overlap) pixels; the last one
// along each axis is moved back so that it ends at the image edge (no tile hangs over
// unless the image is smaller than the tile: then it is padded by repeating edge pixels).
// Each tile's output is weighted per axis: 0 for the first `margin` input pixels inside
// an edge shared with another tile, then a linear ramp up to 1 across the rest of the
// overlap (1 all the way at the image's own edges). The blended pixel is the weighted
// mean over the tiles that cover it.
//
// Why the margin: a convolution network zero-pads every layer at a tile edge, so a tile's
// output is wrong within its receptive-field radius R of an edge that is not the image's.
// With margin >= R every weighted value equals the whole-image result, and the blend is
// exact up to float rounding (the whole-image run zero-pads at the image edges too, where
// the tiles' edges coincide with it). With a smaller margin the errors are blended away
// over the ramp rather than left as a seam.
//
//   auto plan = plan_tiles(img.width, img.height, 64, 64);        // default overlap/margin
//   auto out = upscale_tiled(img, *plan, 4, [&](const TileInput& t) { return run(t); });
#pragma once

#include <functional>
#include <vector>

#include "core/status.h"
#include "image/png_io.h"

namespace wick::image {

struct TilePlan {
  int width = 0, height = 0;     // the image
  int tile_w = 0, tile_h = 0;    // the model's input
  int overlap = 0, margin = 0;   // input pixels
  std::vector<int> xs, ys;       // tile origins, input pixels
  size_t count() const { return xs.size() * ys.size(); }
};

// Default overlap: 3/8 of the smaller tile side (24 for 64x64 tiles); default margin:
// overlap / 2 - 2 (10 for 64x64, the receptive-field radius of the bundled ESRGAN-slim,
// so its tiled result is exact). Errors: sizes < 1, margin < 0, 2 * margin > overlap, or
// overlap >= a tile side.
Result<TilePlan> plan_tiles(int width, int height, int tile_w, int tile_h, int overlap = -1, int margin = -1);

// The blend weight of output pixel `u` (0 <= u < tile * scale) along one axis, for a
// tile whose low edge is shared with another tile when `inner_lo` and whose high edge is
// when `inner_hi`.
float tile_weight(int u, int tile, int scale, int overlap, int margin, bool inner_lo, bool inner_hi);

// One tile for the model: float32 CHW [3, tile_h, tile_w], the 8-bit values as they are.
struct TileInput {
  size_t index = 0;  // 0 .. plan.count() - 1, row by row
  int x = 0, y = 0;  // origin in the image
  int w = 0, h = 0;  // tile_w, tile_h
  std::vector<float> chw;
};

// Float CHW [3, height, width] image (a model's unclipped output).
struct FloatImage {
  int width = 0, height = 0;
  std::vector<float> chw;
};

// The model's output for one tile: CHW [3, h * scale, w * scale].
using TileFn = std::function<Result<std::vector<float>>(const TileInput&)>;

// Runs `model` on every tile of `plan` in order and blends the results. An error from the
// model stops the run and is returned with the tile named.
Result<FloatImage> upscale_tiled(const RgbImage& image, const TilePlan& plan, int scale, const TileFn& model);

// CHW float -> 8-bit RGB: clipped to [0, 255], rounded half to even, NaN -> 0.
RgbImage to_rgb8(const FloatImage& image);

}  // namespace wick::image
