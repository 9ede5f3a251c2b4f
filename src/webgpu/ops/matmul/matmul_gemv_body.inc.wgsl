// The body of the M == 1 case of matmul_tiled (LLM decode): c[b, n] = alpha * sum_k a[b, k]
// op(b)[k, n] + beta * bias. 256 threads per workgroup reduce over K.
//   trans_b = 1 (b is [N, K]): 4 output columns per workgroup, every thread strides over K;
//     the includer's `fn column_sums(s: vec4<f32>, li: u32, sg: u32) -> vec4<f32>` sums the
//     threads' 4 partial sums over the workgroup (matmul_gemv.wgsl through shared memory,
//     matmul_gemv_sg.wgsl through subgroup operations); threads 0..3 read the result.
//   trans_b = 0 (b is [K, N]): 64 output columns per workgroup, 4 K-slices each, combined
//     through the includer's `var<workgroup> red` (at least 256 words) after one barrier.
// Workgroups: x/y a folded 1-D range over column groups, z over the batch.
//#include "dispatch.inc.wgsl"
//#include "matmul_store.inc.wgsl"
alias Word = f32;
alias BWord = Word;

override trans_b: u32 = 1u;

const WG: u32 = 256u;
const COLS_T: u32 = 4u;    // columns per workgroup, trans_b
const COLS_N: u32 = 64u;   // columns per workgroup, not trans_b
const SLICES: u32 = 4u;    // WG / COLS_N

fn finish(gn: u32, bi: u32, s: f32) {
  let ci = bi * p.c_bs + gn;
  c[ci] = epilogue(s, 0u, gn, ci);
}

// sg: the subgroup size, for column_sums (0 in matmul_gemv.wgsl, which has none).
fn gemv(wid: vec3<u32>, nwg: vec3<u32>, li: u32, sg: u32) {
  let group = flat_workgroup(wid, nwg);
  let bi = wid.z;
  let a_base = bi * p.a_bs;
  let b_base = bi * p.b_bs;
  if (trans_b == 1u) {
    let n0 = group * COLS_T;
    // Rows read past N are clamped to the last one (their sums are dropped).
    let last = p.n - 1u;
    let r0 = b_base + min(n0, last) * p.k;
    let r1 = b_base + min(n0 + 1u, last) * p.k;
    let r2 = b_base + min(n0 + 2u, last) * p.k;
    let r3 = b_base + min(n0 + 3u, last) * p.k;
    var s = vec4<f32>(0.0);
    for (var k = li; k < p.k; k = k + WG) {
      let x = a[a_base + k];
      s = fma(vec4<f32>(x), vec4<f32>(b[r0 + k], b[r1 + k], b[r2 + k], b[r3 + k]), s);
    }
    let t = column_sums(s, li, sg);
    if (li < COLS_T && n0 + li < p.n) { finish(n0 + li, bi, t[li]); }
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
      finish(gn, bi, t);
    }
  }
}
