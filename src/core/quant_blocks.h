// Pieces of affine quantization that the CPU kernels and the WebGPU ops both need: the
// integer range of a quantized dtype, and the block layout of torchao's
// choose_qparams_affine that both implement.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include "core/dtype.h"

namespace wick {

// [lo, hi] of uint8, int8, int16 and int32; nullopt for any other dtype.
inline std::optional<std::pair<int64_t, int64_t>> quant_range(ScalarType t) {
  switch (t) {
    case ScalarType::kByte: return std::pair<int64_t, int64_t>{0, 255};
    case ScalarType::kChar: return std::pair<int64_t, int64_t>{-128, 127};
    case ScalarType::kShort: return std::pair<int64_t, int64_t>{-32768, 32767};
    case ScalarType::kInt:
      return std::pair<int64_t, int64_t>{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return std::nullopt;
  }
}

// Blocks of choose_qparams_affine as contiguous runs: block_size 1 on the leading dims, the
// full size on the trailing ones, and a divisor of the one dim between (per row, per group
// along the last dim, per tensor). Returns the run length, 0 if the blocks are not of that
// form (the only ones the kernels take).
inline int64_t contiguous_block_len(std::span<const int64_t> dims, std::span<const int64_t> block) {
  if (block.size() != dims.size() || dims.empty()) return 0;
  size_t j = 0;
  while (j < dims.size() && block[j] == 1) ++j;
  if (j == dims.size()) return 1;
  if (block[j] <= 0 || dims[j] % block[j] != 0) return 0;
  int64_t len = block[j];
  for (size_t d = j + 1; d < dims.size(); ++d) {
    if (block[d] != dims[d]) return 0;
    len *= dims[d];
  }
  return len;
}

}  // namespace wick
