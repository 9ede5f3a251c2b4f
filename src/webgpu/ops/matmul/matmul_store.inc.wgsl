// The store of the shaders whose c is an array<f32> (all but matmul_large_vec4): columns
// gn0, gn0 + step, gn0 + 2 step, gn0 + 3 step of row gm of batch bi, v holding the four
// sums in order, masked to M x N.
//#include "matmul_params.inc.wgsl"
fn store4(bi: u32, gm: u32, gn0: u32, step: u32, v: vec4<f32>) {
  if (gm >= p.m) { return; }
  for (var j = 0u; j < 4u; j++) {
    let gn = gn0 + step * j;
    if (gn >= p.n) { return; }
    c[bi * p.c_bs + gm * p.n + gn] = epilogue(v[j], gm, gn);
  }
}
