// Row norms of short rows (at most kCache * 256 words: ViT layer norms over 384 or 768
// features, Hiera's 96), several rows a workgroup (row_norm_rows_body.inc.wgsl), the sums
// reduced within each TPR-thread segment through shared memory (log2(TPR) barrier steps).
// row_norm_rows_sg.wgsl is the same with subgroup operations.
//#include "row_norm_rows_body.inc.wgsl"

var<workgroup> red: array<f32, 256>;  // WG is at most 256

fn segment_sum(v: f32, li: u32, lane: u32, sg: u32, bank: u32) -> f32 {
  red[li] = v;
  workgroupBarrier();
  for (var st = TPR / 2u; st > 0u; st = st >> 1u) {
    if (lane < st) { red[li] = red[li] + red[li + st]; }
    workgroupBarrier();
  }
  let r = red[li - lane];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(WG, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  row_norm_rows(wid, nwg, li, 0u);
}
