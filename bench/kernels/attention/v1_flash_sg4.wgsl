// Variant 1: flash-style attention, fp32: out = softmax(q k^T * scale + mask) v per (batch,
// head), never writing the score matrix. q, k, v, out: [BH, S, D] contiguous; mask
// (mask_mode 1): additive [Sq, Skv].
//
// A workgroup takes BQ query rows of one (batch, head); four adjacent invocations (one
// quad of a subgroup) share a query, each holding D / 4 of its dims of q and of the output
// accumulator. Keys and values stream through shared memory BKV rows at a time; for each
// tile a lane computes its partial dot products with every key, the quad sums them with
// two subgroupShuffleXor, and an online softmax (running max and sum, rescaling the
// accumulator once per tile) folds the tile's weights into the output. exp2 with q
// pre-scaled by scale * log2(e).
enable subgroups;

struct Params {
  bh: u32, sq: u32, skv: u32, mask_mode: u32,
  scale: f32, _p0: u32, _p1: u32, _p2: u32,
}

@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(5) var<uniform> p: Params;

override D: u32 = 64u;     // head dim, a multiple of 16
override BQ: u32 = 64u;    // queries per workgroup (4 invocations each)
override BKV: u32 = 32u;   // keys per shared tile
override DQ: u32 = D / 16u;  // vec4s of a query per lane
override NT: u32 = BQ * 4u;
override TILE_V4: u32 = BKV * D / 4u;

var<workgroup> kt: array<vec4<f32>, TILE_V4>;
var<workgroup> vt: array<vec4<f32>, TILE_V4>;

const NEG: f32 = -1.0e30;

@compute @workgroup_size(NT, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let bh = wid.y;
  let qi = wid.x * BQ + li / 4u;
  let lane = li % 4u;
  let row = min(qi, p.sq - 1u);
  let d4 = D / 4u;
  // This lane's dims: vec4s lane * DQ .. lane * DQ + DQ - 1 of the row.
  let qbase = (bh * p.sq + row) * d4 + lane * DQ;
  let c = p.scale * 1.4426950408889634;
  var qv: array<vec4<f32>, 4>;
  var o: array<vec4<f32>, 4>;
  for (var e = 0u; e < DQ; e++) { qv[e] = q[qbase + e] * c; o[e] = vec4<f32>(0.0); }
  var m = NEG;
  var l = 0.0;
  let kvbase = bh * p.skv * d4;
  let ntiles = (p.skv + BKV - 1u) / BKV;
  for (var t = 0u; t < ntiles; t++) {
    let j0 = t * BKV;
    for (var e = li; e < TILE_V4; e += NT) {
      let j = min(j0 + e / d4, p.skv - 1u);
      kt[e] = k[kvbase + j * d4 + e % d4];
      vt[e] = v[kvbase + j * d4 + e % d4];
    }
    workgroupBarrier();
    var s: array<f32, 32>;
    var tmax = NEG;
    for (var j = 0u; j < BKV; j++) {
      var part = 0.0;
      for (var e = 0u; e < DQ; e++) { part += dot(qv[e], kt[j * d4 + lane * DQ + e]); }
      part += subgroupShuffleXor(part, 1u);
      part += subgroupShuffleXor(part, 2u);
      var sc = part;
      if (p.mask_mode == 1u) { sc += mask[row * p.skv + min(j0 + j, p.skv - 1u)] * 1.4426950408889634; }
      sc = select(NEG, sc, j0 + j < p.skv);
      s[j] = sc;
      tmax = max(tmax, sc);
    }
    let m_new = max(m, tmax);
    let corr = exp2(m - m_new);
    l *= corr;
    for (var e = 0u; e < DQ; e++) { o[e] *= corr; }
    for (var j = 0u; j < BKV; j++) {
      let w = exp2(s[j] - m_new);
      l += w;
      for (var e = 0u; e < DQ; e++) { o[e] = fma(vec4<f32>(w), vt[j * d4 + lane * DQ + e], o[e]); }
    }
    m = m_new;
    workgroupBarrier();
  }
  if (qi < p.sq) {
    let obase = (bh * p.sq + qi) * d4 + lane * DQ;
    for (var e = 0u; e < DQ; e++) { out[obase + e] = o[e] / l; }
  }
}
