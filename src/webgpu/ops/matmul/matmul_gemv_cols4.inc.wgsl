// The trans_b GEMV's workgroup (matmul_gemv, matmul_gemv_f16w): WG = 256 threads compute the
// 4 output columns n0 .. n0 + 3 of batch bi, each thread summing its share of K for all 4
// (weight rows from gemv_rows); gemv_sum4 adds the threads' sums through shared memory and
// stores the columns below N with the matmul epilogue.
//#include "workgroup_reduce.inc.wgsl"
//#include "matmul_params.inc.wgsl"

const WG: u32 = 256u;

var<workgroup> red: array<f32, 1024>;  // 4 lanes x WG

// Where weight rows n0 .. n0 + 3 start: base + row * len (in the includer's b words). Rows
// past N are clamped to the last one (read in bounds, their sums dropped).
fn gemv_rows(base: u32, n0: u32, len: u32) -> vec4<u32> {
  let rows = min(vec4<u32>(n0) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(p.n - 1u));
  return vec4<u32>(base) + rows * len;
}

// Output column gn of batch bi from its sum s.
fn gemv_store(gn: u32, bi: u32, s: f32) {
  c[bi * p.c_bs + gn] = epilogue(s, 0u, gn);
}

// Every thread's sums s of columns n0 .. n0 + 3, added over the workgroup and stored. Every
// thread calls it (it holds barriers).
fn gemv_sum4(s: vec4<f32>, li: u32, n0: u32, bi: u32) {
  red[li] = s.x;
  red[WG + li] = s.y;
  red[2u * WG + li] = s.z;
  red[3u * WG + li] = s.w;
  tree_sum_lanes(li, 4u);
  if (li < 4u && n0 + li < p.n) { gemv_store(n0 + li, bi, red[li * WG]); }
}
