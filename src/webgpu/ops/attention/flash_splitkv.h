// When the fused attention (flash_attention.wgsl) splits its keys over workgroups
// (GraphOptions::flash_splitkv; flash_attention_dispatch.cpp): its grid is one workgroup per
// BQ query rows of each (batch, head), 192 for Whisper base (24 x 8 heads) and 132 for
// ViT-S (23 x 6) on the H200's 132 multiprocessors, with 128 invocations each: too few to
// hide the latency of the shared-memory loop. Splitting the key tiles doubles the grid while
// it stays within kFlashSplitFill workgroups and each split keeps kFlashSplitMinTiles key
// tiles; flash_attention_combine.wgsl then merges the splits (it reads and writes about
// KVS x (D + 2) floats per query row, a few microseconds at Whisper's size). The thresholds
// follow the 64x64 matmul's split-K rule (ops/matmul/splitk.h) until a GPU measures them.
#pragma once

#include <cstdint>

namespace wick::webgpu {

constexpr uint64_t kFlashSplitFill = 512;
constexpr uint64_t kFlashSplitMinTiles = 8;
constexpr uint64_t kFlashSplitMax = 16;

// Key splits for a grid of `workgroups` over `key_tiles` tiles of keys (1: none). `option` is
// GraphOptions::flash_splitkv: -1 the rule above on GPU adapters (never on a CPU adapter), 0
// never, n >= 2 always n (capped at the key tiles, so that every split has one).
constexpr uint64_t flash_splits(int option, bool cpu_adapter, uint64_t workgroups, uint64_t key_tiles) {
  if (option == 0 || option == 1 || key_tiles < 2) return 1;
  if (option > 1) return static_cast<uint64_t>(option) < key_tiles ? static_cast<uint64_t>(option) : key_tiles;
  if (cpu_adapter) return 1;
  uint64_t splits = 1;
  while (workgroups * 2 < kFlashSplitFill && workgroups * splits * 2 <= kFlashSplitFill && splits < kFlashSplitMax &&
         key_tiles >= kFlashSplitMinTiles * splits * 2)
    splits *= 2;
  return splits;
}

}  // namespace wick::webgpu
