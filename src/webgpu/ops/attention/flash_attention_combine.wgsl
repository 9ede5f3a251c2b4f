// Finishes a fused attention split over keys (flash_attention.wgsl with KVS > 1): each
// split s left, per (batch, head) and query row, its unnormalized output o_s (a sum of
// exp(score - m_s) v), its running maximum m_s and its sum of weights l_s. With
// M = max_s m_s: out = sum_s exp(m_s - M) o_s / sum_s exp(m_s - M) l_s, written through the
// output's strided view. One invocation per vec4 of the output; same Params as the split.
// A split with no keys left (m_s = -3.4e38, l_s = o_s = 0) adds nothing.
//#include "flash_params.inc.wgsl"

// [KVS][B*H][sq][D], then the (m, l) pairs; the buffer is whole vec4s (an odd count of pairs
// would leave the last one past arrayLength, where robustness clamps the index).
@group(0) @binding(0) var<storage, read> part: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

override D: u32 = 64u;
override KVS: u32 = 2u;
override wg_size: u32 = 256u;

@compute @workgroup_size(wg_size)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  // Grid: x covers the vec4s of one (batch, head)'s sq x D output, y is the (batch, head).
  let d4 = D / 4u;
  let idx = wid.x * wg_size + li;
  if (idx >= p.sq * d4) { return; }
  let bh = wid.y;
  let bh_count = nwg.y;
  let i = idx / d4;
  let c = idx % d4;
  let rows = bh_count * p.sq;           // partial rows per split
  let ml_at = KVS * rows * d4 * 2u;     // (m, l) pairs start here, in vec2s (= vec4 halves)
  var m_max = -3.4028234e38;
  for (var s = 0u; s < KVS; s++) {
    let r = s * rows + bh * p.sq + i;
    let pair = part[(ml_at + r) / 2u];
    m_max = max(m_max, select(pair.x, pair.z, (ml_at + r) % 2u == 1u));
  }
  var acc = vec4<f32>(0.0);
  var l = 0.0;
  for (var s = 0u; s < KVS; s++) {
    let r = s * rows + bh * p.sq + i;
    let pair = part[(ml_at + r) / 2u];
    let odd = (ml_at + r) % 2u == 1u;
    let w = exp(select(pair.x, pair.z, odd) - m_max);
    l += w * select(pair.y, pair.w, odd);
    acc += w * part[r * d4 + c];
  }
  let res = acc / l;
  let b = bh / p.heads;
  let h = bh % p.heads;
  let at = p.o_off + b * p.o_sb + h * p.o_sh + i * p.o_ss + c * 4u * p.o_sd;
  out[at] = res.x;
  out[at + p.o_sd] = res.y;
  out[at + 2u * p.o_sd] = res.z;
  out[at + 3u * p.o_sd] = res.w;
}
