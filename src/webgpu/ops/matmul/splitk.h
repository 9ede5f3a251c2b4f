// When the 64x64 vec4 matmul splits K (ops/matmul/register.cpp; GraphOptions::matmul_splitk):
// a grid of under kSplitFill / 2 workgroups cannot fill a GPU (a 1,500-token Whisper linear
// has 192 on the H200's 132 multiprocessors), so K is split in two, four, ... while the split
// grid stays within kSplitFill and each split keeps kSplitMinSteps K tiles (BK 16). Modeled
// on conv2d_igemm's split-K (ops/conv/register.cpp), whose fill of 512 was measured there;
// two differences: conv's splits keep only 4 K steps each, and conv stops doubling at its
// partial-buffer bound where register.cpp drops the split when KS's buffer is over it.
#pragma once

#include <cstdint>

namespace wick::webgpu {

constexpr uint64_t kSplitFill = 512;
constexpr uint64_t kSplitMinSteps = 8;
constexpr uint64_t kSplitMaxSplits = 16;
constexpr uint64_t kSplitBk = 16;  // the 64x64 tile's BK (register.cpp's kTile64)

// Splits for a grid of `tiles` 64x64 workgroups over K = k (1: none). `option` is
// GraphOptions::matmul_splitk: -1 the rule above on GPU adapters (never on a CPU adapter),
// 0 never, n >= 2 always n.
constexpr uint64_t splitk_factor(int option, bool cpu_adapter, uint64_t tiles, uint64_t k) {
  if (option == 0 || option == 1) return 1;
  if (option > 1) return static_cast<uint64_t>(option);
  if (cpu_adapter) return 1;
  const uint64_t steps = (k + kSplitBk - 1) / kSplitBk;
  uint64_t splits = 1;
  while (tiles * 2 < kSplitFill && tiles * splits * 2 <= kSplitFill && splits < kSplitMaxSplits &&
         steps >= kSplitMinSteps * splits * 2)
    splits *= 2;
  return splits;
}

}  // namespace wick::webgpu
