// et_vk.fused_ce, pass 1: one workgroup per row of logits [rows, cols]. With lse the row's
// logsumexp and y its label (custom_ops_lib.py fused_ce_impl):
//   dlogits[r, j] = (softmax(r)[j] - (j == y)) / n_valid,  row_loss[r] = (lse - logits[r, y]) / n_valid
// and both zero for a row whose label is negative (ignored / padding). A label >= cols
// (PyTorch's gather would raise) gives a NaN row loss, so the loss shows it.
// Each thread keeps an online max / sum of exp over a strided slice; the workgroup merges them.
//#include "dispatch.inc.wgsl"
//#include "training_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> labels: array<i32>;
@group(0) @binding(2) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(3) var<storage, read_write> row_loss: array<f32>;
@group(0) @binding(4) var<uniform> p: CeParams;

const kWg: u32 = 64u;
var<workgroup> s_max: array<f32, 64>;
var<workgroup> s_sum: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = flat_workgroup(wid, nwg);
  if (row >= p.rows) { return; }  // uniform per workgroup: barriers below stay uniform
  let t = lid.x;
  let base = row * p.cols;
  var mx = -3.4028234e38;
  var sm = 0.0;
  for (var j = t; j < p.cols; j += kWg) {
    let x = logits[base + j];
    if (x > mx) {
      sm = sm * exp(mx - x) + 1.0;
      mx = x;
    } else {
      sm = sm + exp(x - mx);
    }
  }
  s_max[t] = mx;
  s_sum[t] = sm;
  workgroupBarrier();
  for (var stride = kWg / 2u; stride > 0u; stride = stride / 2u) {
    if (t < stride) {
      let m1 = s_max[t];
      let m2 = s_max[t + stride];
      let m = max(m1, m2);
      s_sum[t] = s_sum[t] * exp(m1 - m) + s_sum[t + stride] * exp(m2 - m);
      s_max[t] = m;
    }
    workgroupBarrier();
  }
  let row_max = s_max[0];
  let inv_sum = 1.0 / s_sum[0];
  let label = labels[row];
  let valid = label >= 0;
  for (var j = t; j < p.cols; j += kWg) {
    var d = 0.0;
    if (valid) {
      d = exp(logits[base + j] - row_max) * inv_sum;
      if (u32(label) == j) { d = d - 1.0; }
      d = d / p.n_valid;
    }
    dlogits[base + j] = d;
  }
  if (t == 0u) {
    var l = 0.0;
    if (valid) {
      if (u32(label) < p.cols) {
        l = (row_max + log(s_sum[0]) - logits[base + u32(label)]) / p.n_valid;
      } else {
        // A NaN built at run time (a NaN constant is a WGSL compile error); _p0 is always 0.
        l = bitcast<f32>(0x7fc00000u | p._p0);
      }
    }
    row_loss[row] = l;
  }
}
