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

}  // namespace wick::webgpu
