// The split-K count of the pointwise GEMM (conv2d_pw_gemm*) where the GPU's multiprocessor
// count is known (gpu_multiprocessors.h): register.cpp's rule doubles the splits while the
// grid stays under its fill, so a grid of 100 tiles splits 4 ways into 400 workgroups, and on
// 132 multiprocessors four of them run a round of their own. On the H100 a lone 64x64 / BK 16
// workgroup runs about as fast as the three that share a multiprocessor (its 48 KiB of
// workgroup memory) run together (bench/kernels/conv/README.md, "Load balance": 400 tiles
// took 112 us against 86 for 396, the 4 / 3 that the busiest multiprocessors' work predicts).
// So a grid's time follows the busiest multiprocessor's K steps:
//   ceil(tiles * splits / multiprocessors) * ceil(steps / splits)
// and any split count may win, not only a power of two: D-FINE's 40x40 1x1 convs over 1,024
// channels (100 tiles, 64 K steps) take 4 x 16 = 64 step-times at 4 splits and 4 x 13 = 52
// at 5.
#pragma once

#include <cstdint>

namespace wick::webgpu {

// The busiest multiprocessor's K steps for `tiles` tiles of `steps` K steps split `splits`
// ways over `mps` multiprocessors.
constexpr uint64_t split_wave_steps(uint64_t tiles, uint64_t steps, uint64_t splits, uint64_t mps) {
  return (tiles * splits + mps - 1) / mps * ((steps + splits - 1) / splits);
}

// Where the doubling rule chose `splits` > 1 (a grid small enough to split) and the
// multiprocessor count `mps` is known: the split count in 2..max_splits with fewer
// busiest-multiprocessor steps than `splits` has (the smallest such count among equals), else
// `splits`. A tie keeps the doubling rule's count: a first version broke ties toward fewer
// splits, and one of D-FINE's 1x1 convs went from 23.3 to 29.7 us at 4 splits in the H100
// profile (a small grid's fixed costs, which the model leaves out, favour more workgroups).
// `max_splits`: the most the other bounds allow (K steps per split, partial-sum bytes, grid z).
constexpr uint64_t wave_balanced_splits(uint64_t tiles, uint64_t steps, uint64_t splits, uint64_t max_splits,
                                        uint64_t mps) {
  if (splits <= 1 || mps == 0 || tiles == 0) return splits;
  uint64_t best = splits;
  for (uint64_t s = 2; s <= max_splits; ++s)
    if (split_wave_steps(tiles, steps, s, mps) < split_wave_steps(tiles, steps, best, mps)) best = s;
  return best;
}

// Tail split (matmul_large_tile.inc.wgsl's TAIL_S, the pointwise GEMM on fixed shapes): a
// grid of `cols` x `rows` tiles (x: pixel columns, y: channel rows, times the images) whose
// last round is a few tiles. On the H100, D-FINE's 640 -> 256 1x1 conv at 80x80 ran its 400
// tiles in 112 us and 396 of them in 86 (three 64x64 / BK 16 workgroups a multiprocessor:
// one round of 396; bench/kernels/conv/README.md, "Load balance"): four tiles past a round
// cost a quarter of the layer. So the last `tail_cols` columns (the fewest holding the tiles
// past the last full round) are split `splits` ways over K in the same dispatch, and a small
// reduce pass finishes them. At most one piece a multiprocessor, at least kTailMinSteps K
// steps a piece, at most `max_splits` pieces a tile.
//
// Taken where it cuts the busiest multiprocessor's time, in split_wave_steps' units, by at
// least a twentieth, counting (from D-FINE's H100 profile of 2026-12-07 evening,
// bench/results/vision_h200.md):
// - a piece as `per_mp` units a K step: alone on its multiprocessor, it took about as long
//   a step as the multiprocessor's full share of tiles together (640 -> 256 in 10 pieces
//   of 4 steps: 7.3 us past the full round's 85.8; 256 -> 256 in 8 pieces of 2: 4.5 us);
// - the reduce pass as kTailReduceSteps units (~5 us a dispatch, at 0.7-0.85 us a unit).
// So 640 -> 256 (400 tiles, 40 steps) splits its last column 20 ways: 160 -> 134 units;
// 512 -> 512 (800 tiles, 32 steps) 16 ways: 224 -> 206; 256 -> 256 (16 steps) would take 64
// -> 62 and does not split (the profile had it 53.8 -> 56.4 us with the split).
struct TailSplit {
  uint64_t tail_cols = 0;  // 0: no tail split
  uint64_t splits = 1;
};
constexpr uint64_t kTailMinSteps = 2;
constexpr uint64_t kTailMaxSplits = 32;
constexpr uint64_t kTailReduceSteps = 8;
// `per_mp`: workgroups a multiprocessor holds at once (its workgroup memory over the tile's).
constexpr TailSplit tail_split(uint64_t cols, uint64_t rows, uint64_t steps, uint64_t mps, uint64_t per_mp,
                               uint64_t max_splits) {
  const uint64_t tiles = cols * rows, round = mps * per_mp;
  if (mps == 0 || per_mp == 0 || rows == 0 || tiles <= round || tiles % round == 0) return {};
  const uint64_t tail_cols = (tiles % round + rows - 1) / rows;
  const uint64_t tail = tail_cols * rows;
  uint64_t splits = mps / tail;
  if (splits > steps / kTailMinSteps) splits = steps / kTailMinSteps;
  if (splits > max_splits) splits = max_splits;
  if (tail_cols >= cols || splits < 2) return {};
  const uint64_t before = split_wave_steps(tiles, steps, 1, mps);
  const uint64_t after =
      split_wave_steps(tiles - tail, steps, 1, mps) + per_mp * ((steps + splits - 1) / splits) + kTailReduceSteps;
  if (after * 20 > before * 19) return {};
  return {tail_cols, splits};
}

}  // namespace wick::webgpu
