// sdpa_with_kv_cache, step 2: causal attention of S queries over the cache rows
// [0, start_pos+S). One workgroup per (query head h, query row s); keys are streamed in
// tiles of 64 with an online softmax (running max m, sum l), so nothing is materialized.
// q/out [1,S,Hq,D], caches [1,Cmax,Hkv,D], GQA: kv head = h / (Hq/Hkv). D <= 256.
//#include "workgroup_reduce.inc.wgsl"
struct Params {
  s_len: u32, hq: u32, hkv: u32, d: u32,
  start_pos: u32, causal: u32, _p0: u32, scale: f32,
}

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k_cache: array<f32>;
@group(0) @binding(2) var<storage, read> v_cache: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

const WG: u32 = 64u;
const NEG: f32 = -3.0e38;

var<workgroup> q_sh: array<f32, 256>;
var<workgroup> p_sh: array<f32, 64>;
var<workgroup> red: array<f32, 64>;

// Output dim d's running sum a, rescaled by alpha, plus this key tile's cnt weights (p_sh)
// times v at d (vb: the tile's first key row at d; row: the cache's row stride).
fn pv_dim(a_in: f32, alpha: f32, d: u32, dim: u32, vb0: u32, row: u32, cnt: u32) -> f32 {
  if (d >= dim) { return a_in; }
  var a = a_in * alpha;
  var vb = vb0;
  for (var jj = 0u; jj < cnt; jj = jj + 1u) {
    a = a + p_sh[jj] * v_cache[vb];
    vb = vb + row;
  }
  return a;
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let h = wid.x;
  let s = wid.y;
  let dim = p.d;
  let kvh = h / (p.hq / p.hkv);
  let q_base = (s * p.hq + h) * dim;
  for (var d = tid; d < dim; d = d + WG) { q_sh[d] = q[q_base + d] * p.scale; }
  workgroupBarrier();

  var len = p.start_pos + p.s_len;
  if (p.causal != 0u) { len = p.start_pos + s + 1u; }
  let row = p.hkv * dim;
  let head_off = kvh * dim;
  var m = NEG;
  var l = 0.0;
  // Output dims tid + WG * i in component i (a vector, not an array indexed in a loop:
  // bench/kernels/robustness).
  var acc = vec4<f32>(0.0);
  for (var t0 = 0u; t0 < len; t0 = t0 + WG) {
    let j = t0 + tid;
    var sc = NEG;
    if (j < len) {
      let kb = j * row + head_off;
      var qk = 0.0;
      for (var d = 0u; d < dim; d = d + 1u) { qk = qk + q_sh[d] * k_cache[kb + d]; }
      sc = qk;
    }
    red[tid] = sc;
    tree_max(tid);
    let m_new = max(m, red[0]);
    var pj = 0.0;
    if (j < len) { pj = exp(sc - m_new); }
    workgroupBarrier();
    red[tid] = pj;
    p_sh[tid] = pj;
    tree_sum(tid);
    let alpha = exp(m - m_new);
    l = l * alpha + red[0];
    let cnt = min(WG, len - t0);
    let vb = t0 * row + head_off + tid;
    acc = vec4<f32>(pv_dim(acc.x, alpha, tid, dim, vb, row, cnt), pv_dim(acc.y, alpha, tid + WG, dim, vb + WG, row, cnt),
                    pv_dim(acc.z, alpha, tid + 2u * WG, dim, vb + 2u * WG, row, cnt),
                    pv_dim(acc.w, alpha, tid + 3u * WG, dim, vb + 3u * WG, row, cnt));
    m = m_new;
    workgroupBarrier();
  }
  let inv = 1.0 / l;
  if (tid < dim) { out[q_base + tid] = acc.x * inv; }
  if (tid + WG < dim) { out[q_base + tid + WG] = acc.y * inv; }
  if (tid + 2u * WG < dim) { out[q_base + tid + 2u * WG] = acc.z * inv; }
  if (tid + 3u * WG < dim) { out[q_base + tid + 3u * WG] = acc.w * inv; }
}
