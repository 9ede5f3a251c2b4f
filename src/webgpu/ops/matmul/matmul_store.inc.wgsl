// The epilogue and store of the shaders whose c is an array<f32> (all but matmul_large_vec4).
//#include "matmul_params.inc.wgsl"

// c[ci] for c[gm, gn] = v: alpha and bias, then the epilogue steps (ci: the flat index).
fn epilogue(v: f32, gm: u32, gn: u32, ci: u32) -> f32 {
  let r = scaled_with_bias(v, gm, gn);
  if (epi_codes() == 0u) { return r; }
  var res = 0.0;
  if (p.res_mode == 1u) { res = residual[ci]; } else if (p.res_mode == 2u) { res = c[ci]; }
  return epilogue_steps(r, gn, res);
}

// Columns gn0, gn0 + step, gn0 + 2 step, gn0 + 3 step of row gm of batch bi, v holding the
// four sums in order, masked to M x N.
fn store4(bi: u32, gm: u32, gn0: u32, step: u32, v: vec4<f32>) {
  if (gm >= p.m) { return; }
  for (var j = 0u; j < 4u; j++) {
    let gn = gn0 + step * j;
    if (gn >= p.n) { return; }
    let ci = bi * p.c_bs + gm * p.n + gn;
    c[ci] = epilogue(v[j], gm, gn, ci);
  }
}
