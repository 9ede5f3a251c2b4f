// The M == 1 case of a linear whose weight is stored as f16 (GraphOptions::f16_weights; LLM
// decode): c[b, n] = alpha * sum_k a[b, k] w[n, k] + beta * bias, w [N, K] four f16 to a
// vec2<u32> (K % 4 == 0), widened by unpack2x16float; sums in f32. matmul_gemv.wgsl's
// trans_b layout: 4 output columns per workgroup of 256 threads, each thread striding over K
// four values at a time (one 8-byte load per row), reduced through shared memory. Reading
// half the bytes of the f32 GEMV, which is bound by them.
// Workgroups: x/y a folded 1-D range over column groups, z over the batch.
//#include "dispatch.inc.wgsl"
//#include "matmul_gemv_cols4.inc.wgsl"
alias Word = f32;
alias BWord = vec2<u32>;

const COLS: u32 = 4u;  // columns per workgroup

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
  let kq = p.k / 4u;
  let r = gemv_rows((bi * p.b_bs) / 4u, n0, kq);  // in vec2s
  var s = vec4<f32>(0.0);
  for (var q = li; q < kq; q = q + WG) {
    let k = a_base + 4u * q;
    let x = vec4<f32>(a[k], a[k + 1u], a[k + 2u], a[k + 3u]);
    s = s + vec4<f32>(dot(x, w4(r.x + q)), dot(x, w4(r.y + q)), dot(x, w4(r.z + q)), dot(x, w4(r.w + q)));
  }
  gemv_sum4(s, li, n0, bi);
}
