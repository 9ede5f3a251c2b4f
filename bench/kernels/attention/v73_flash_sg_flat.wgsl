// v73 / v74: the shipped flash_attention_sg.wgsl on the body as it was before 2026-12-08
// (flash_attention_body_flat.inc.wgsl, beside this file).
enable subgroups;
// flash_attention.wgsl with step 2's row maxima taken by subgroup shuffles (GraphOptions::
// flash_subgroups): a row's TXS invocations are consecutive (li = ty * TXS + tx), so where
// subgroups are runs of at least TXS consecutive invocations (the host checks the adapter's
// smallest subgroup size) and TXS is a power of two, log2(TXS) shuffles give every one the
// row's maximum: no shared-memory round trip and no barrier. The host puts P beside the K
// tile (P_AT), so that no barrier is needed before P is written either: 3 barriers a key tile
// instead of 4.
//#include "flash_params.inc.wgsl"
//#include "flash_attention_body_flat.inc.wgsl"

const ROW_MAX_SYNCS: bool = false;

fn tile_row_max(ty: u32, tx: u32, m: vec4<f32>) -> vec4<f32> {
  var r = m;
  for (var o = 1u; o < TXS; o = o << 1u) { r = max(r, subgroupShuffleXor(r, o)); }
  return r;
}
