// The M == 1 case of a linear whose weight is stored as f16 (GraphOptions::f16_weights; LLM
// decode): c[b, n] = alpha * sum_k a[b, k] w[n, k] + beta * bias, w [N, K] four f16 to a
// vec2<u32> (K % 4 == 0), widened by unpack2x16float; sums in f32. matmul_gemv.wgsl's
// trans_b layout: 4 output columns per workgroup of 256 threads, each thread striding over K
// four values at a time (one 8-byte load per row), reduced through shared memory. Reading
// half the bytes of the f32 GEMV, which is bound by them.
// Workgroups: x/y a folded 1-D range over column groups, z over the batch.
//#include "dispatch.inc.wgsl"
//#include "workgroup_reduce.inc.wgsl"
//#include "matmul_store.inc.wgsl"
alias Word = f32;
alias BWord = vec2<u32>;

const WG: u32 = 256u;
const COLS: u32 = 4u;  // columns per workgroup

var<workgroup> red: array<f32, 1024>;

fn w4(i: u32) -> vec4<f32> {
  let v = b[i];
  return vec4<f32>(unpack2x16float(v.x), unpack2x16float(v.y));
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let group = flat_workgroup(wid, nwg);
  let bi = wid.z;
  let a_base = bi * p.a_bs;
  let n0 = group * COLS;
  // Rows read past N are clamped to the last one (their sums are dropped); indices in vec2s.
  let last = p.n - 1u;
  let kq = p.k / 4u;
  let r0 = (bi * p.b_bs) / 4u + min(n0, last) * kq;
  let r1 = (bi * p.b_bs) / 4u + min(n0 + 1u, last) * kq;
  let r2 = (bi * p.b_bs) / 4u + min(n0 + 2u, last) * kq;
  let r3 = (bi * p.b_bs) / 4u + min(n0 + 3u, last) * kq;
  var s = vec4<f32>(0.0);
  for (var q = li; q < kq; q = q + WG) {
    let k = a_base + 4u * q;
    let x = vec4<f32>(a[k], a[k + 1u], a[k + 2u], a[k + 3u]);
    s = s + vec4<f32>(dot(x, w4(r0 + q)), dot(x, w4(r1 + q)), dot(x, w4(r2 + q)), dot(x, w4(r3 + q)));
  }
  red[li] = s.x;
  red[WG + li] = s.y;
  red[2u * WG + li] = s.z;
  red[3u * WG + li] = s.w;
  tree_sum_lanes(li, 4u);
  if (li < COLS && n0 + li < p.n) {
    let ci = bi * p.c_bs + n0 + li;
    c[ci] = epilogue(red[li * WG], 0u, n0 + li, ci);
  }
}
