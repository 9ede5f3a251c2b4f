// The vec4 store of the large matmul kernels whose c is an array<vec4<f32>>
// (matmul_large_vec4_body.inc.wgsl, matmul_large_vec4_f16math.wgsl): columns gn..gn+3 of row gm
// of batch bi (the caller checked gm < M and gn < N), v = a @ op(b) before the epilogue
// (alpha, beta * bias broadcast by bias_rs / bias_cs, then the fused steps of
// matmul_epilogue.inc.wgsl, the residual read per p.res_mode).
// With split-K (KS > 1, matmul_large_tile.inc.wgsl) bi is batch * KS + split, and v, this
// split's raw sum, goes to c, the partial-sum buffer [batch][KS][M][N]; the includer without
// split-K declares KS = 1.
//#include "matmul_params.inc.wgsl"
fn store_block(bi: u32, gm: u32, gn: u32, v: vec4<f32>) {
  if (KS > 1u) {
    c[(bi * p.c_bs + gm * p.n + gn) / 4u] = v;
    return;
  }
  finish_block(bi, gm, gn, v);
}

// The finished vec4 (alpha, bias, epilogue) into c, the output; matmul_splitk_reduce.wgsl
// calls it with the sum of the splits.
fn finish_block(bi: u32, gm: u32, gn: u32, v: vec4<f32>) {
  c[(bi * p.c_bs + gm * p.n + gn) / 4u] = finished(bi, gm, gn, v);
}

// That vec4 finished, not stored (matmul_splitk_reduce_ln.wgsl keeps it for the layer norm).
fn finished(bi: u32, gm: u32, gn: u32, v: vec4<f32>) -> vec4<f32> {
  let ci = bi * p.c_bs + gm * p.n + gn;
  var res = vec4<f32>(0.0);
  if (p.res_mode == 1u) {
    res = vec4<f32>(residual[ci], residual[ci + 1u], residual[ci + 2u], residual[ci + 3u]);
  } else if (p.res_mode == 2u) {
    res = c[ci / 4u];
  }
  return finished_with(gm, gn, v, res);
}

// The same with the residual's four values given (res; unused without a residual step).
fn finished_with(gm: u32, gn: u32, v: vec4<f32>, res: vec4<f32>) -> vec4<f32> {
  var r = p.alpha * v;
  if (p.bias_mode != 0u) {
    let bb = gm * p.bias_rs + gn * p.bias_cs;
    r = r + p.beta * vec4<f32>(bias[bb], bias[bb + p.bias_cs], bias[bb + 2u * p.bias_cs],
                               bias[bb + 3u * p.bias_cs]);
  }
  if (epi_codes() != 0u) {
    r = vec4<f32>(epilogue_steps(r.x, gn, res.x), epilogue_steps(r.y, gn + 1u, res.y),
                  epilogue_steps(r.z, gn + 2u, res.z), epilogue_steps(r.w, gn + 3u, res.w));
  }
  return r;
}
