// linear_q4gsw for one input row (M == 1): y[n] = sum_k x[k] * (q[n,k] - 8) * scale + bias[n].
// One workgroup of 64 threads per output column, cooperative over K, tree reduction.
// Weights: bytes [N, k_packed], even k in the low nibble; 4 bytes per u32 word.
// Scales: f32 [groups, n_pad], scale(n, k) = scales[(k / group_size) * n_pad + n].
// Fast path (aligned != 0: k_packed % 4 == 0, K % 8 == 0, group_size % 8 == 0): one u32
// word = 8 consecutive k with one scale.
//#include "dispatch.inc.wgsl"
//#include "q4gsw_params.inc.wgsl"
//#include "q4_bytes.inc.wgsl"
//#include "workgroup_reduce.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;

const WG: u32 = 64u;
var<workgroup> red: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
  let n = flat_workgroup(wid, nwg);
  if (n >= p.n) { return; }
  var sum = 0.0;
  if (p.aligned != 0u) {
    let words = p.k / 8u;
    let base = n * (p.k_packed / 4u);
    for (var wi = tid; wi < words; wi = wi + WG) {
      let word = w[base + wi];
      let k0 = wi * 8u;
      let sc = scales[(k0 / p.group_size) * p.n_pad + n];
      let x0 = vec4<f32>(x[k0], x[k0 + 1u], x[k0 + 2u], x[k0 + 3u]);
      let x1 = vec4<f32>(x[k0 + 4u], x[k0 + 5u], x[k0 + 6u], x[k0 + 7u]);
      let q0 = vec4<f32>(f32(word & 0xfu), f32((word >> 4u) & 0xfu), f32((word >> 8u) & 0xfu),
                         f32((word >> 12u) & 0xfu)) - vec4<f32>(8.0);
      let q1 = vec4<f32>(f32((word >> 16u) & 0xfu), f32((word >> 20u) & 0xfu), f32((word >> 24u) & 0xfu),
                         f32(word >> 28u)) - vec4<f32>(8.0);
      sum = sum + sc * (dot(x0, q0) + dot(x1, q1));
    }
  } else {
    let row = n * p.k_packed;
    for (var k = tid; k < p.k; k = k + WG) {
      let sc = scales[(k / p.group_size) * p.n_pad + n];
      sum = sum + x[k] * nibble(row + k / 2u, (k & 1u) == 1u) * sc;
    }
  }
  red[tid] = sum;
  tree_sum(tid);
  if (tid == 0u) {
    var r = red[0];
    if (p.has_bias != 0u) { r = r + bias[n]; }
    y[n] = r;
  }
}
