// What the large-tile matmul kernels' staging of global loads can hold, for the tiles the
// matmul and conv registers choose (static_asserts there). Each thread stages its share of
// a K tile of a and of b (BM x BK and BN x BK values, `per_load` values a load) in named
// registers rather than an array indexed by a loop variable (bench/kernels/robustness):
// matmul_large_vec4_body.inc.wgsl has two vec4 loads per operand, matmul_scalar_staging.inc.wgsl
// eight floats. A share must also be at least one load.
#pragma once

#include <cstdint>

namespace wick::webgpu {

// Tile: any struct with the tile's bm, bn, bk, rm, rn (matmul's LargeTile, conv's PwTile).
template <class Tile>
constexpr bool tile_staging_fits(const Tile& t, uint32_t per_load, uint32_t max_loads) {
  const uint32_t threads = (t.bn / t.rn) * (t.bm / t.rm);
  const uint32_t a_loads = t.bm * t.bk / per_load, b_loads = t.bn * t.bk / per_load;
  return a_loads >= threads && a_loads / threads <= max_loads && b_loads >= threads && b_loads / threads <= max_loads;
}

// matmul_large_vec4_body.inc.wgsl: vec4 loads, at most 2 a thread per operand.
template <class Tile>
constexpr bool vec4_staging_fits(const Tile& t) { return tile_staging_fits(t, 4, 2); }

// matmul_scalar_staging.inc.wgsl: float loads, at most 8 a thread per operand.
template <class Tile>
constexpr bool scalar_staging_fits(const Tile& t) { return tile_staging_fits(t, 1, 8); }

}  // namespace wick::webgpu
