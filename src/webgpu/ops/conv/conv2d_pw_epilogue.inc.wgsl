// The end of a pointwise conv's output element o (conv2d_pw, conv2d_pw_gemm): the clamp,
// then the fused epilogue with conv2d_pw's extra code 7, add a * residual[o] (a tensor
// shaped as y: a fused residual add), and the per-input-channel scale of x and the
// residual at bindings 5 and 6.
//#include "conv2d_common.inc.wgsl"
@group(0) @binding(5) var<storage, read> scale: array<f32>;
@group(0) @binding(6) var<storage, read> residual: array<f32>;

fn epilogue_res(v: f32, o: u32) -> f32 {
  var r = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    let a = bitcast<f32>(p.epi[k].y);
    if (p.epi[k].x == 7u) {
      r = r + a * residual[o];
    } else {
      r = epilogue_step(r, p.epi[k].x, a);
    }
  }
  return r;
}

fn finish_res(v: f32, o: u32) -> f32 {
  let r = clamp(v, p.clamp_min, p.clamp_max);
  if (p.epi_n == 0u) { return r; }
  return epilogue_res(r, o);
}
