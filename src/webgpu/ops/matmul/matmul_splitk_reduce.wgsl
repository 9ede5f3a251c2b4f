// Finishes a split-K matmul_large_vec4: c[b][gm, gn..gn+3] = epilogue(alpha * (the sum over
// s < KS of a[b][s][gm, gn..gn+3]) + beta * bias), one invocation per vec4 of c. The
// partial sums (binding 0, `a` of matmul_params.inc.wgsl, [batch][KS][M][N]) come from the
// matmul with the same Params and KS; finish_block (matmul_store_vec4.inc.wgsl) applies
// alpha, bias and the epilogue steps as the unsplit kernel does.
//#include "matmul_store_vec4.inc.wgsl"
//#include "dispatch.inc.wgsl"
alias Word = vec4<f32>;
alias BWord = Word;

override KS: u32 = 2u;
override wg_size: u32 = 256u;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let q = flat_invocation(gid, nwg, wg_size);  // vec4 index into c
  let row_q = p.n / 4u;
  if (q >= p.batch * p.m * row_q) { return; }
  let bi = q / (p.m * row_q);
  let r = q % (p.m * row_q);
  let gm = r / row_q;
  let gn = (r % row_q) * 4u;
  var s = vec4<f32>(0.0);
  for (var z = 0u; z < KS; z++) { s = s + a[((bi * KS + z) * p.c_bs + gm * p.n + gn) / 4u]; }
  finish_block(bi, gm, gn, s);
}
