// et_vk.fused_ce, pass 2: loss = the sum of fused_ce_rows.wgsl's row losses (already divided
// by n_valid), by one workgroup: strided partial sums, then a fixed-order tree.
//#include "training_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> row_loss: array<f32>;
@group(0) @binding(1) var<storage, read_write> loss: array<f32>;
@group(0) @binding(2) var<uniform> p: CeParams;

const kWg: u32 = 64u;
var<workgroup> s: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
  let t = lid.x;
  var acc = 0.0;
  for (var r = t; r < p.rows; r += kWg) { acc = acc + row_loss[r]; }
  s[t] = acc;
  workgroupBarrier();
  for (var stride = kWg / 2u; stride > 0u; stride = stride / 2u) {
    if (t < stride) { s[t] = s[t] + s[t + stride]; }
    workgroupBarrier();
  }
  if (t == 0u) { loss[0] = s[0]; }
}
