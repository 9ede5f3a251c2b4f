// The M == 1 case of matmul_tiled (LLM decode): c[b, n] = alpha * sum_k a[b, k] op(b)[k, n]
// + beta * bias. 256 threads per workgroup reduce over K through shared memory.
//   trans_b = 1 (b is [N, K]): 4 output columns per workgroup, every thread strides over K.
//   trans_b = 0 (b is [K, N]): 64 output columns per workgroup, 4 K-slices each.
// Workgroups: x/y a folded 1-D range over column groups, z over the batch.
//#include "dispatch.inc.wgsl"
//#include "matmul_gemv_cols4.inc.wgsl"
alias Word = f32;
alias BWord = Word;

override trans_b: u32 = 1u;

const COLS_T: u32 = 4u;    // columns per workgroup, trans_b
const COLS_N: u32 = 64u;   // columns per workgroup, not trans_b
const SLICES: u32 = 4u;    // WG / COLS_N

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let group = flat_workgroup(wid, nwg);
  let bi = wid.z;
  let a_base = bi * p.a_bs;
  let b_base = bi * p.b_bs;
  if (trans_b == 1u) {
    let n0 = group * COLS_T;
    let r = gemv_rows(b_base, n0, p.k);
    var s = vec4<f32>(0.0);
    for (var k = li; k < p.k; k = k + WG) {
      let x = a[a_base + k];
      s = fma(vec4<f32>(x), vec4<f32>(b[r.x + k], b[r.y + k], b[r.z + k], b[r.w + k]), s);
    }
    gemv_sum4(s, li, n0, bi);
  } else {
    let col = li % COLS_N;
    let slice = li / COLS_N;
    let gn = group * COLS_N + col;
    var s = 0.0;
    if (gn < p.n) {
      for (var k = slice; k < p.k; k = k + SLICES) { s = fma(a[a_base + k], b[b_base + k * p.n + gn], s); }
    }
    red[li] = s;
    workgroupBarrier();
    if (slice == 0u && gn < p.n) {
      var t = 0.0;
      for (var q = 0u; q < SLICES; q = q + 1u) { t = t + red[q * COLS_N + col]; }
      gemv_store(gn, bi, t);
    }
  }
}
