// softmax / log_softmax along one dim, one thread per row, no shared memory or barriers: an
// online pass keeps the running max m and sum s of exp(x - m) (s rescaled when m grows), a
// second pass writes. Picked on CPU adapters (SwiftShader), where reduce.wgsl's barriers
// cost far more than the arithmetic: 27x faster on Whisper's [4,1500,1500] scores
// (bench/kernels/softmax/README.md). Same Params and bindings as reduce.wgsl; op 6 softmax,
// 7 log_softmax; red_rank <= 1 (the softmax dim; 0 for a 0-d tensor).
//#include "dispatch.inc.wgsl"
//#include "reduce_common.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

override wg_size: u32 = 64;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = flat_invocation(gid, nwg, wg_size);
  if (row >= p.out_n || p.red_n == 0u) { return; }
  let base = kept_offset(row);
  let st = p.red_strides[0][0];
  var m = x[base];
  var s = 1.0;
  for (var i = 1u; i < p.red_n; i++) {
    let v = x[base + i * st];
    if (v > m) {
      s = s * exp(m - v) + 1.0;
      m = v;
    } else {
      // v == m counts 1 without exp(m - m): -inf - -inf would be NaN on a masked row that
      // still has a finite maximum later on. NaN inputs fall here and make s NaN, as torch.
      s = s + select(exp(v - m), 1.0, v == m);
    }
  }
  // A row of -inf only (a fully masked attention row): NaN, as torch. Written explicitly:
  // WGSL leaves exp(-inf - -inf) unspecified (SwiftShader gives inf).
  if (m < -3.4028234e38) {
    // A NaN built at run time (a NaN constant is a WGSL compile error); _p0 is always 0.
    let nan = bitcast<f32>(0x7fc00000u | p._p0);
    for (var i = 0u; i < p.red_n; i++) { out[base + i * st] = nan; }
    return;
  }
  if (p.op == 7u) {
    let shift = m + log(s);
    for (var i = 0u; i < p.red_n; i++) {
      let off = base + i * st;
      out[off] = x[off] - shift;
    }
    return;
  }
  let inv = 1.0 / s;
  for (var i = 0u; i < p.red_n; i++) {
    let off = base + i * st;
    out[off] = exp(x[off] - m) * inv;
  }
}
