// linear_q4gsw for one input row (M == 1), the bandwidth-bound decode case:
//   y[n] = sum_k x[k] * (q[n,k] - 8) * scale(n, k) + bias[n].
// One workgroup of 64 threads computes ROWS consecutive output rows. Thread t walks the
// 16-byte chunks c = t, t + 64, ... of every row (32 nibbles = 32 consecutive k, one scale),
// so the 64 threads read one row's weights as contiguous, coalesced vec4<u32> loads, and the
// 32 activations of a chunk are loaded once and reused for all ROWS rows (x is re-read per
// row by the older one-row-per-workgroup kernel, which made it instruction- not memory-bound).
// Requires (checked on the host, `aligned` path of q4gsw_gemv otherwise): K % 32 == 0,
// k_packed % 16 == 0 (each row starts on a vec4<u32>), group_size % 32 == 0.
// Weights: bytes [N, k_packed], even k in the low nibble. Scales: f32 [groups, n_pad],
// scale(n, k) = scales[(k / group_size) * n_pad + n].
//#include "q4gsw_rows_entry.inc.wgsl"
//#include "q4gsw_params.inc.wgsl"
//#include "q4gsw_nibbles.inc.wgsl"
//#include "workgroup_reduce.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<vec4<u32>>;

const WG: u32 = 64u;
const ROWS: u32 = 4u;
var<workgroup> red: array<f32, 256>;  // ROWS * WG partial sums

fn gemv(n0: u32, tid: u32) {
  let chunks = p.k / 32u;
  let row_stride = p.k_packed / 16u;
  // Rows past N (last workgroup) re-read row N-1 and are not written. The ROWS = 4 rows are
  // written out rather than looped (bench/kernels/robustness).
  let n_a = min(n0, p.n - 1u);
  let n_b = min(n0 + 1u, p.n - 1u);
  let n_c = min(n0 + 2u, p.n - 1u);
  let n_d = min(n0 + 3u, p.n - 1u);
  var acc = vec4<f32>(0.0);
  for (var c = tid; c < chunks; c = c + WG) {
    let xb = c * 8u;
    let xv = XChunk(x[xb], x[xb + 1u], x[xb + 2u], x[xb + 3u], x[xb + 4u], x[xb + 5u], x[xb + 6u], x[xb + 7u]);
    let srow = (c * 32u / p.group_size) * p.n_pad;
    acc += vec4<f32>(scales[srow + n_a] * chunk_dot(w[n_a * row_stride + c], xv),
                     scales[srow + n_b] * chunk_dot(w[n_b * row_stride + c], xv),
                     scales[srow + n_c] * chunk_dot(w[n_c * row_stride + c], xv),
                     scales[srow + n_d] * chunk_dot(w[n_d * row_stride + c], xv));
  }
  red[tid] = acc.x;
  red[WG + tid] = acc.y;
  red[2u * WG + tid] = acc.z;
  red[3u * WG + tid] = acc.w;
  tree_sum_lanes(tid, ROWS);
  if (tid < ROWS && n0 + tid < p.n) {
    var v = red[tid * WG];
    if (p.has_bias != 0u) { v = v + bias[n0 + tid]; }
    y[n0 + tid] = v;
  }
}
