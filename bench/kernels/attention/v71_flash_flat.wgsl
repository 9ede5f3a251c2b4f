// v71 / v72: the shipped flash_attention.wgsl on the body as it was before 2026-12-08
// (flash_attention_body_flat.inc.wgsl, beside this file).
// Fused attention (attention_fusion.h; research in bench/kernels/attention/, variant 5 with
// the P tile sharing the K tile's shared memory): FlashAttention-2 structure with the matmul
// kernels' register blocking, fp32, no subgroups: out = softmax(q k^T * scale + mask) v per
// (batch, head), the score matrix never written. Every operand is a strided 4-D view
// [B, H, S, D] of its buffer (element offset plus a stride per dim, 0 for a broadcast), so
// the permutes an export puts around attention need no copies.
//
// A workgroup takes BQ query rows of one (batch, head); q's tile stays in shared memory
// (pre-scaled). Keys and values stream through shared memory BKV rows at a time:
//  1. scores: each invocation an RS x 4 block of the BQ x BKV tile (rows ty + BQ/RS * r,
//     columns tx + BKV/4 * c: the vec4 reads of a warp hit distinct banks thanks to the
//     rows' one-vec4 padding), 4 RS dot products per RS + 4 shared vec4 reads;
//  2. the tile's row maxima across the BKV/4 invocations of a row through shared memory;
//     each invocation rescales its partial row sums (reduced once, at the end) and writes
//     its weights exp(s - m) to the shared P tile;
//  3. P @ V: each invocation RO rows x one vec4 column of the output accumulator, rescaled
//     by the row's correction, 4 x RO FMAs (vec4) per RO + 4 shared vec4 reads. P's vec4 x
//     of a row holds the columns x + TXS * c of step 1, so it is written whole.
// P reuses the K tile's shared memory (K is dead once the scores are in registers); the
// override P_AT (where P starts in kps, in vec4s) can put it beside K instead, as the bench's
// variants 5-17 do (bench/kernels/attention: the layout before).
// Scores are kept in natural units (exp, not exp2) so that masks of -3.4e38 (finfo.min)
// stay finite; keys past skv get weight 0.
// Split over keys (KVS > 1, flash-decoding's idea applied to whole tiles): workgroup z takes
// its share of the key tiles and writes its unnormalized output rows and each row's running
// maximum and sum of weights to `out`, then a scratch buffer [KVS][B*H][sq][D] followed by
// [KVS][B*H][sq][2]; flash_attention_combine.wgsl rescales and adds the splits. It gives a
// small grid (Whisper base: 24 query tiles x 8 heads = 192 workgroups) more workgroups.
// Prefetch (PREFETCH, where a tile's K and V take at most 4 vec4s each per invocation): the
// next tile's K and V rows are read from memory into registers while this tile is computed,
// and stored to shared memory at the top of the next step, so the load latency is not paid
// once per tile with only a few workgroups per multiprocessor to hide it.
// Step 2's row maxima go through shared memory here (red, then a barrier);
// flash_attention_sg.wgsl takes them with subgroup shuffles instead.
//#include "flash_attention_body_flat.inc.wgsl"

// tile_row_max below ends with a barrier: the K tile is dead after it.
const ROW_MAX_SYNCS: bool = true;

// Max over row r's TXS partials in red.
fn red_row_max(r: u32) -> f32 {
  var mt = LOWEST;
  for (var x = 0u; x < TXS; x++) { mt = max(mt, red[r * TXS + x]); }
  return mt;
}

// The tile's maxima of score rows ty + TYS * c (component c), from each invocation's
// partial maxima m of those rows over its 4 columns.
fn tile_row_max(ty: u32, tx: u32, m: vec4<f32>) -> vec4<f32> {
  red[ty * TXS + tx] = m.x;
  red[(ty + TYS) * TXS + tx] = m.y;
  if (RS > 2u) {
    red[(ty + 2u * TYS) * TXS + tx] = m.z;
    red[(ty + 3u * TYS) * TXS + tx] = m.w;
  }
  workgroupBarrier();
  if (RS == 2u) { return vec4<f32>(red_row_max(ty), red_row_max(ty + TYS), LOWEST, LOWEST); }
  return vec4<f32>(red_row_max(ty), red_row_max(ty + TYS), red_row_max(ty + 2u * TYS), red_row_max(ty + 3u * TYS));
}
