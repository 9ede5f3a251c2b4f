// When the fused attention (flash_attention.wgsl) splits its keys over workgroups
// (GraphOptions::flash_splitkv; flash_attention_dispatch.cpp). Its grid is one workgroup of
// 128 invocations per BQ query rows of each (batch, head), and on the H100 and H200 it runs
// one such workgroup per multiprocessor at a time (measured: a multiprocessor holds 48 KiB of
// workgroup memory there, the tile takes 36; bench/kernels/occupancy), so a grid takes
// ceil(workgroups / multiprocessors) waves. Whisper base's 24 query tiles x 8 heads = 192 workgroups take 2 waves on 132
// multiprocessors, the second 45% full; split in two, its 384 half-workgroups take 3 half
// waves (1.5 of the unsplit kind), and the fused attention measured 7-9% faster end to end.
// ViT-S's 22 x 6 = 132 fill one wave already: split, it measured slower (the combine and the
// extra partial rows cost, nothing gained). So the rule splits (2, 4, ... ways) only where
// the modelled waves drop by 10% or more, each split keeping kFlashSplitMinTiles key tiles,
// and only where the multiprocessor count is known (gpu_multiprocessors.h).
#pragma once

#include <cstdint>

namespace wick::webgpu {

constexpr uint64_t kFlashSplitMinTiles = 8;
constexpr uint64_t kFlashSplitMax = 16;

// Key splits for a grid of `workgroups` over `key_tiles` tiles of keys (1: none). `option` is
// GraphOptions::flash_splitkv: -1 the rule above (none when `multiprocessors` is 0, unknown),
// 0 never, n >= 2 always n (capped at the key tiles, so that every split has one).
constexpr uint64_t flash_splits(int option, uint64_t multiprocessors, uint64_t workgroups, uint64_t key_tiles) {
  if (option == 0 || option == 1 || key_tiles < 2 || workgroups == 0) return 1;
  if (option > 1) return static_cast<uint64_t>(option) < key_tiles ? static_cast<uint64_t>(option) : key_tiles;
  if (multiprocessors == 0) return 1;
  // Waves of s splits, in unsplit-workgroup units: ceil(w s / m) / s. Compared as fractions.
  auto waves_num = [&](uint64_t s) { return (workgroups * s + multiprocessors - 1) / multiprocessors; };
  uint64_t best = 1;
  for (uint64_t s = 2; s <= kFlashSplitMax && key_tiles >= kFlashSplitMinTiles * s; s *= 2)
    if (waves_num(s) * best * 10 <= 9 * waves_num(best) * s) best = s;  // 10% fewer waves or more
  return best;
}

}  // namespace wick::webgpu
