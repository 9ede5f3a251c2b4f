// Fused attention (attention_fusion.h; research in bench/kernels/attention/, variant 5 with
// the P tile sharing the K tile's shared memory): FlashAttention-2 structure with the matmul
// kernels' register blocking, fp32, no subgroups: out = softmax(q k^T * scale + mask) v per
// (batch, head), the score matrix never written. Every operand is a strided 4-D view
// [B, H, S, D] of its buffer (element offset plus a stride per dim, 0 for a broadcast), so
// the permutes an export puts around attention need no copies.
//
// A workgroup takes BQ query rows of one (batch, head); q's tile stays in shared memory
// (pre-scaled). Keys and values stream through shared memory BKV rows at a time:
//  1. scores: each invocation an RS x 4 block of the BQ x BKV tile (rows ty + BQ/RS * r,
//     columns tx + BKV/4 * c: the vec4 reads of a warp hit distinct banks thanks to the
//     rows' one-vec4 padding), 4 RS dot products per RS + 4 shared vec4 reads;
//  2. the tile's row maxima across the BKV/4 invocations of a row through shared memory;
//     each invocation rescales its partial row sums (reduced once, at the end) and writes
//     its weights exp(s - m) to the shared P tile;
//  3. P @ V: each invocation RO rows x one vec4 column of the output accumulator, rescaled
//     by the row's correction, 4 x RO FMAs (vec4) per RO + 4 shared vec4 reads. P's vec4 x
//     of a row holds the columns x + TXS * c of step 1, so it is written whole.
// P reuses the K tile's shared memory (K is dead once the scores are in registers); the
// override P_AT (where P starts in kps, in vec4s) can put it beside K instead, as the bench's
// variants 5-17 do (bench/kernels/attention: the layout before).
// Scores are kept in natural units (exp, not exp2) so that masks of -3.4e38 (finfo.min)
// stay finite; keys past skv get weight 0.
struct Params {
  heads: u32, sq: u32, skv: u32, mask_mode: u32,  // mask_mode 0: none, 1: additive
  scale: f32, _p0: u32, _p1: u32, _p2: u32,
  q_off: u32, q_sb: u32, q_sh: u32, q_ss: u32,
  k_off: u32, k_sb: u32, k_sh: u32, k_ss: u32,
  v_off: u32, v_sb: u32, v_sh: u32, v_ss: u32,
  o_off: u32, o_sb: u32, o_sh: u32, o_ss: u32,
  m_off: u32, m_sb: u32, m_sh: u32, m_ss: u32,
  q_sd: u32, k_sd: u32, v_sd: u32, o_sd: u32,
  m_sj: u32, _p3: u32, _p4: u32, _p5: u32,
}

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

override D: u32 = 64u;     // head dim, a multiple of 4
override BQ: u32 = 64u;    // query rows per workgroup, a multiple of 4
override BKV: u32 = 32u;   // keys per shared tile, a multiple of 4
override RS: u32 = 4u;     // score rows per invocation (4 or 8)
override TXS: u32 = BKV / 4u;       // score-phase invocations per row group
override TYS: u32 = BQ / RS;        // score-phase row groups
override NT: u32 = TYS * TXS;       // invocations
override D4: u32 = D / 4u;
override DP4: u32 = D4 + 1u;        // padded row of q and k tiles, in vec4s
override NG: u32 = NT / D4;         // output-phase row groups (NT % D4 == 0)
override RO: u32 = BQ / NG;         // output rows per invocation (<= 16)
override P_AT: u32 = 0u;                               // 0: P over the dead K tile
override KPS: u32 = max(BKV * DP4, P_AT + BQ * TXS);  // the K tile, then the P tile

var<workgroup> qs: array<vec4<f32>, BQ * DP4>;
var<workgroup> kps: array<vec4<f32>, KPS>;
var<workgroup> vs: array<vec4<f32>, BKV * D4>;
var<workgroup> red: array<f32, BQ * TXS>;
var<workgroup> corr_s: array<f32, BQ>;

const LOWEST: f32 = -3.4028234e38;

@compute @workgroup_size(NT, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let bh = wid.y;
  let b = bh / p.heads;
  let h = bh % p.heads;
  let i0 = wid.x * BQ;
  let qb = p.q_off + b * p.q_sb + h * p.q_sh;
  let kb = p.k_off + b * p.k_sb + h * p.k_sh;
  let vb = p.v_off + b * p.v_sb + h * p.v_sh;
  // q tile, pre-scaled; rows past sq repeat the last (their results are not stored).
  for (var x = li; x < BQ * D4; x += NT) {
    let r = x / D4;
    let e = (x % D4) * 4u;
    let row = qb + min(i0 + r, p.sq - 1u) * p.q_ss;
    qs[r * DP4 + x % D4] = vec4<f32>(q[row + e * p.q_sd], q[row + (e + 1u) * p.q_sd], q[row + (e + 2u) * p.q_sd],
                                     q[row + (e + 3u) * p.q_sd]) * p.scale;
  }
  let tx = li % TXS;
  let ty = li / TXS;
  let oc = li % D4;
  let og = li / D4;
  var m_run: array<f32, 8>;
  var l_part: array<f32, 8>;
  for (var r = 0u; r < RS; r++) { m_run[r] = LOWEST; l_part[r] = 0.0; }
  var o: array<vec4<f32>, 16>;
  for (var r = 0u; r < RO; r++) { o[r] = vec4<f32>(0.0); }

  let ntiles = (p.skv + BKV - 1u) / BKV;
  for (var t = 0u; t < ntiles; t++) {
    let j0 = t * BKV;
    for (var x = li; x < BKV * D4; x += NT) {
      let r = x / D4;
      let e = (x % D4) * 4u;
      let j = j0 + r;
      let jc = min(j, p.skv - 1u);
      let kr = kb + jc * p.k_ss;
      let vr = vb + jc * p.v_ss;
      kps[r * DP4 + x % D4] = vec4<f32>(k[kr + e * p.k_sd], k[kr + (e + 1u) * p.k_sd], k[kr + (e + 2u) * p.k_sd],
                                       k[kr + (e + 3u) * p.k_sd]);
      var vv = vec4<f32>(v[vr + e * p.v_sd], v[vr + (e + 1u) * p.v_sd], v[vr + (e + 2u) * p.v_sd],
                         v[vr + (e + 3u) * p.v_sd]);
      if (j >= p.skv) { vv = vec4<f32>(0.0); }
      vs[r * D4 + x % D4] = vv;
    }
    workgroupBarrier();
    // 1. the 4x4 score block.
    var s: array<vec4<f32>, 8>;  // s[r][c]: row ty + TYS * r, column tx + TXS * c
    for (var r = 0u; r < RS; r++) { s[r] = vec4<f32>(0.0); }
    for (var e = 0u; e < D4; e++) {
      var qv: array<vec4<f32>, 8>;
      var kv: array<vec4<f32>, 4>;
      for (var r = 0u; r < RS; r++) { qv[r] = qs[(ty + TYS * r) * DP4 + e]; }
      for (var c = 0u; c < 4u; c++) { kv[c] = kps[(tx + TXS * c) * DP4 + e]; }
      for (var r = 0u; r < RS; r++) {
        s[r] += vec4<f32>(dot(qv[r], kv[0]), dot(qv[r], kv[1]), dot(qv[r], kv[2]), dot(qv[r], kv[3]));
      }
    }
    var valid = vec4<bool>(false);
    for (var c = 0u; c < 4u; c++) { valid[c] = j0 + tx + TXS * c < p.skv; }
    for (var r = 0u; r < RS; r++) {
      let row = ty + TYS * r;
      if (p.mask_mode == 1u) {
        let mi = min(i0 + row, p.sq - 1u);
        let mrow = p.m_off + b * p.m_sb + h * p.m_sh + mi * p.m_ss;
        for (var c = 0u; c < 4u; c++) {
          let j = min(j0 + tx + TXS * c, p.skv - 1u);
          s[r][c] += mask[mrow + j * p.m_sj];
        }
      }
      s[r] = select(vec4<f32>(LOWEST), s[r], valid);
      red[row * TXS + tx] = max(max(s[r].x, s[r].y), max(s[r].z, s[r].w));
    }
    workgroupBarrier();
    // 2. row maxima, weights, partial sums.
    for (var r = 0u; r < RS; r++) {
      let row = ty + TYS * r;
      var mt = LOWEST;
      for (var x = 0u; x < TXS; x++) { mt = max(mt, red[row * TXS + x]); }
      let m_new = max(m_run[r], mt);
      let corr = exp(m_run[r] - m_new);
      m_run[r] = m_new;
      let w = select(vec4<f32>(0.0), exp(s[r] - vec4<f32>(m_new)), valid);
      l_part[r] = l_part[r] * corr + (w.x + w.y + w.z + w.w);
      // P: vec4 x of a row holds columns x, x + TXS, x + 2 TXS, x + 3 TXS (this invocation's).
      kps[P_AT + row * TXS + tx] = w;
      if (tx == 0u) { corr_s[row] = corr; }
    }
    workgroupBarrier();
    // 3. o = o * corr + P V.
    for (var r = 0u; r < RO; r++) { o[r] *= corr_s[og + NG * r]; }
    for (var x = 0u; x < TXS; x++) {
      let v0 = vs[x * D4 + oc];
      let v1 = vs[(x + TXS) * D4 + oc];
      let v2 = vs[(x + 2u * TXS) * D4 + oc];
      let v3 = vs[(x + 3u * TXS) * D4 + oc];
      for (var r = 0u; r < RO; r++) {
        let pw = kps[P_AT + (og + NG * r) * TXS + x];
        o[r] = fma(vec4<f32>(pw.x), v0, fma(vec4<f32>(pw.y), v1, fma(vec4<f32>(pw.z), v2, fma(vec4<f32>(pw.w), v3, o[r]))));
      }
    }
    workgroupBarrier();
  }
  // Row sums: the partials of a row's TXS invocations.
  for (var r = 0u; r < RS; r++) { red[(ty + TYS * r) * TXS + tx] = l_part[r]; }
  workgroupBarrier();
  let ob = p.o_off + b * p.o_sb + h * p.o_sh;
  for (var r = 0u; r < RO; r++) {
    let row = og + NG * r;
    if (i0 + row >= p.sq) { continue; }
    var l = 0.0;
    for (var x = 0u; x < TXS; x++) { l += red[row * TXS + x]; }
    let res = o[r] / l;
    let at = ob + (i0 + row) * p.o_ss + oc * 4u * p.o_sd;
    out[at] = res.x;
    out[at + p.o_sd] = res.y;
    out[at + 2u * p.o_sd] = res.z;
    out[at + 3u * p.o_sd] = res.w;
  }
}
