// bench/kernels: src/webgpu/ops/attention/flash_attention_body.inc.wgsl as it was before 2026-12-08
// (attention v71-v74): a workgroup of (NT, 1, 1) with tx, ty, oc, og as li % and / TXS and D4,
// so Dawn's robustness clamps the score and P @ V loops' shared reads; the shipped body takes
// them from lid (bench/kernels/robustness/README.md, "Indices Tint can bound").
// The fused attention's kernel body (flash_attention.wgsl says what it does): everything but
// tile_row_max and ROW_MAX_SYNCS, which the includer defines: flash_attention.wgsl through
// shared memory, flash_attention_sg.wgsl through subgroup shuffles.
//#include "flash_params.inc.wgsl"

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

override D: u32 = 64u;     // head dim, a multiple of 4
override BQ: u32 = 64u;    // query rows per workgroup, a multiple of 4
override BKV: u32 = 32u;   // keys per shared tile, a multiple of 4
// Score rows per invocation: 4 (s[0] .. s[3] below) or 2 (s[0], s[1]; twice the invocations
// for a tile, so twice the warps on a multiprocessor that holds one workgroup: on NVIDIA's
// Vulkan driver a multiprocessor holds 48 KiB of workgroup memory, one (64, 32) tile;
// bench/kernels/occupancy).
override RS: u32 = 4u;
override TXS: u32 = BKV / 4u;       // score-phase invocations per row group
override TYS: u32 = BQ / RS;        // score-phase row groups
override NT: u32 = TYS * TXS;       // invocations
override D4: u32 = D / 4u;
override DP4: u32 = D4 + 1u;        // padded row of q and k tiles, in vec4s
override NG: u32 = NT / D4;         // output-phase row groups (NT % D4 == 0)
override RO: u32 = BQ / NG;         // output rows per invocation (<= 16)
override KVS: u32 = 1u;             // key splits (workgroup z)
override PREFETCH: bool = true;     // next tile's K, V in registers (see above)
override PF: u32 = (BKV * D4 + NT - 1u) / NT;           // vec4s of K (and of V) per invocation
override PF_ON: bool = PREFETCH && PF <= 4u;            // KvRegs holds 4 of each
override SCORE_CHAIN: bool = false; // scores summed by fma4 (not yet timed on a GPU: bench v31, v32)
override P_AT: u32 = 0u;                               // 0: P over the dead K tile
override KPS: u32 = max(BKV * DP4, P_AT + BQ * TXS);  // the K tile, then the P tile

var<workgroup> qs: array<vec4<f32>, BQ * DP4>;
var<workgroup> kps: array<vec4<f32>, KPS>;
var<workgroup> vs: array<vec4<f32>, BKV * D4>;
var<workgroup> red: array<f32, BQ * TXS>;
var<workgroup> corr_s: array<f32, BQ>;

const LOWEST: f32 = -3.4028234e38;

// Register arrays (s, o) are indexed by literals only, never by a loop variable: under
// Dawn's robustness (every browser) Tint puts a guard counter on every loop, a driver may
// leave the loop rolled, and one run-time index puts the whole array in local memory
// (bench/kernels/robustness/README.md). Loops below index workgroup and storage memory only.

// The 4 scores of query vec4 qv against the keys k0..k3 (one vec4 of D each).
fn dot4(qv: vec4<f32>, k0: vec4<f32>, k1: vec4<f32>, k2: vec4<f32>, k3: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(dot(qv, k0), dot(qv, k1), dot(qv, k2), dot(qv, k3));
}

// acc + the 4 scores of qv against k0..k3 as one chain of FMAs from the accumulator per
// score (SCORE_CHAIN): dot4's form adds each vec4's dot product to the sum separately, one
// more instruction per 4 FMAs, since a compiler may not reassociate the addition into them.
fn fma4(acc: vec4<f32>, qv: vec4<f32>, k0: vec4<f32>, k1: vec4<f32>, k2: vec4<f32>, k3: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(fma(qv.w, k0.w, fma(qv.z, k0.z, fma(qv.y, k0.y, fma(qv.x, k0.x, acc.x)))),
                   fma(qv.w, k1.w, fma(qv.z, k1.z, fma(qv.y, k1.y, fma(qv.x, k1.x, acc.y)))),
                   fma(qv.w, k2.w, fma(qv.z, k2.z, fma(qv.y, k2.y, fma(qv.x, k2.x, acc.z)))),
                   fma(qv.w, k3.w, fma(qv.z, k3.z, fma(qv.y, k3.y, fma(qv.x, k3.x, acc.w)))));
}

// The additive mask of query row i0 + row at this invocation's 4 key columns (j = j0 + tx +
// TXS * c, clamped: columns past skv are masked off by `valid`).
fn mask4(b: u32, h: u32, i0: u32, row: u32, j0: u32, tx: u32) -> vec4<f32> {
  if (p.mask_mode != 1u) { return vec4<f32>(0.0); }
  let mi = min(i0 + row, p.sq - 1u);
  let mrow = p.m_off + b * p.m_sb + h * p.m_sh + mi * p.m_ss;
  let j = j0 + tx;
  return vec4<f32>(mask[mrow + min(j, p.skv - 1u) * p.m_sj], mask[mrow + min(j + TXS, p.skv - 1u) * p.m_sj],
                   mask[mrow + min(j + 2u * TXS, p.skv - 1u) * p.m_sj],
                   mask[mrow + min(j + 3u * TXS, p.skv - 1u) * p.m_sj]);
}

// Step 2 for one score row, given the tile's row maximum mt (tile_row_max): the new running
// maximum, this invocation's weights into the P tile and the row's correction into corr_s.
// Returns (new maximum, new partial sum).
fn softmax_row(row: u32, tx: u32, sv: vec4<f32>, valid: vec4<bool>, m_old: f32, l_old: f32, mt: f32) -> vec2<f32> {
  let m_new = max(m_old, mt);
  let corr = exp(m_old - m_new);
  let w = select(vec4<f32>(0.0), exp(sv - vec4<f32>(m_new)), valid);
  // P: vec4 x of a row holds columns x, x + TXS, x + 2 TXS, x + 3 TXS (this invocation's).
  kps[P_AT + row * TXS + tx] = w;
  if (tx == 0u) { corr_s[row] = corr; }
  return vec2<f32>(m_new, l_old * corr + (w.x + w.y + w.z + w.w));
}

// Step 3 for one output row: o_r + P[row, 4 columns of step x] @ V rows v0..v3.
fn pv_row(o_r: vec4<f32>, row: u32, x: u32, v0: vec4<f32>, v1: vec4<f32>, v2: vec4<f32>, v3: vec4<f32>) -> vec4<f32> {
  let pw = kps[P_AT + row * TXS + x];
  return fma(vec4<f32>(pw.x), v0, fma(vec4<f32>(pw.y), v1, fma(vec4<f32>(pw.z), v2, fma(vec4<f32>(pw.w), v3, o_r))));
}

// Score row `row`'s sum of weights: its TXS invocations' partial sums, in red at the end.
fn row_sum(row: u32) -> f32 {
  var l = 0.0;
  for (var x = 0u; x < TXS; x++) { l += red[row * TXS + x]; }
  return l;
}

// The end: output row `row` (o_r over its sum of weights), if it is a real query row.
fn store_row(b: u32, h: u32, i0: u32, row: u32, oc: u32, o_r: vec4<f32>) {
  if (i0 + row >= p.sq) { return; }
  let res = o_r / row_sum(row);
  let at = p.o_off + b * p.o_sb + h * p.o_sh + (i0 + row) * p.o_ss + oc * 4u * p.o_sd;
  out[at] = res.x;
  out[at + p.o_sd] = res.y;
  out[at + 2u * p.o_sd] = res.z;
  out[at + 3u * p.o_sd] = res.w;
}

// Split mode: output row i0 + row unnormalized into the partial rows of this split and
// (batch, head), which start at row `part`, D floats a row.
fn store_part(part: u32, i0: u32, row: u32, oc: u32, o_r: vec4<f32>) {
  if (i0 + row >= p.sq) { return; }
  let at = (part + i0 + row) * D + oc * 4u;
  out[at] = o_r.x;
  out[at + 1u] = o_r.y;
  out[at + 2u] = o_r.z;
  out[at + 3u] = o_r.w;
}

// Split mode: score row i0 + row's running maximum and its sum of weights (the TXS partials
// in red), after the KVS * bh_count * sq partial rows of D floats.
fn store_ml(part: u32, i0: u32, row: u32, m: f32, bh_count: u32) {
  if (i0 + row >= p.sq) { return; }
  let at = KVS * bh_count * p.sq * D + (part + i0 + row) * 2u;
  out[at] = m;
  out[at + 1u] = row_sum(row);
}

// Output row i0 + row's accumulator: normalized into the output view, or (KVS > 1) as it is
// into this split's partial rows, which start at row `part`.
fn store_out(b: u32, h: u32, i0: u32, part: u32, row: u32, oc: u32, o_r: vec4<f32>) {
  if (KVS == 1u) { store_row(b, h, i0, row, oc, o_r); } else { store_part(part, i0, row, oc, o_r); }
}

// Vec4 x (< BKV * D4: row x / D4, dims 4 (x % D4) ...) of the key tile that starts at key
// j0, from the view that starts at kb; the last key stands in for keys past skv.
fn load_k(kb: u32, j0: u32, x: u32) -> vec4<f32> {
  let kr = kb + min(j0 + x / D4, p.skv - 1u) * p.k_ss;
  let e = (x % D4) * 4u;
  return vec4<f32>(k[kr + e * p.k_sd], k[kr + (e + 1u) * p.k_sd], k[kr + (e + 2u) * p.k_sd], k[kr + (e + 3u) * p.k_sd]);
}

// The same of the value tile, zero for keys past skv (their weights are 0, but 0 * NaN is not).
fn load_v(vb: u32, j0: u32, x: u32) -> vec4<f32> {
  let j = j0 + x / D4;
  let vr = vb + min(j, p.skv - 1u) * p.v_ss;
  let e = (x % D4) * 4u;
  let vv = vec4<f32>(v[vr + e * p.v_sd], v[vr + (e + 1u) * p.v_sd], v[vr + (e + 2u) * p.v_sd], v[vr + (e + 3u) * p.v_sd]);
  return select(vv, vec4<f32>(0.0), j >= p.skv);
}

// The prefetch registers: vec4s li + NT * i (i < PF) of the K tile (k0..k3) and of the V
// tile (v0..v3). Fields, not arrays: nothing here can take a run-time index.
struct KvRegs {
  k0: vec4<f32>, k1: vec4<f32>, k2: vec4<f32>, k3: vec4<f32>,
  v0: vec4<f32>, v1: vec4<f32>, v2: vec4<f32>, v3: vec4<f32>,
}

// The tiles that start at key j0 into KvRegs; a vec4 past the tile repeats its last (put_kv
// leaves it out).
fn prefetch_kv(kb: u32, vb: u32, j0: u32, li: u32) -> KvRegs {
  var r: KvRegs;
  r.k0 = load_k(kb, j0, li);
  r.v0 = load_v(vb, j0, li);
  if (PF > 1u) { r.k1 = load_k(kb, j0, min(li + NT, BKV * D4 - 1u)); r.v1 = load_v(vb, j0, min(li + NT, BKV * D4 - 1u)); }
  if (PF > 2u) { r.k2 = load_k(kb, j0, min(li + 2u * NT, BKV * D4 - 1u)); r.v2 = load_v(vb, j0, min(li + 2u * NT, BKV * D4 - 1u)); }
  if (PF > 3u) { r.k3 = load_k(kb, j0, min(li + 3u * NT, BKV * D4 - 1u)); r.v3 = load_v(vb, j0, min(li + 3u * NT, BKV * D4 - 1u)); }
  return r;
}

// Vec4 x of the K and V tiles into shared memory, if x is inside the tile.
fn put_kv(x: u32, kv: vec4<f32>, vv: vec4<f32>) {
  if (x < BKV * D4) {
    kps[(x / D4) * DP4 + x % D4] = kv;
    vs[x] = vv;
  }
}

@compute @workgroup_size(NT, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
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
  // Running row maxima and partial sums of score rows ty + TYS * r (component r).
  var m_run = vec4<f32>(LOWEST);
  var l_part = vec4<f32>(0.0);
  // Output rows og + NG * r (r < RO <= 16), zero-initialized.
  var o: array<vec4<f32>, 16>;
  var s: array<vec4<f32>, 4>;

  // This split's key tiles (all of them when KVS is 1; none for a split past the last).
  let ntiles = (p.skv + BKV - 1u) / BKV;
  let per_split = (ntiles + KVS - 1u) / KVS;
  let t_begin = min(wid.z * per_split, ntiles);
  let t_end = min(t_begin + per_split, ntiles);
  // The next tile's K and V (prefetch_kv).
  var pf: KvRegs;
  if (PF_ON && t_begin < t_end) { pf = prefetch_kv(kb, vb, t_begin * BKV, li); }
  for (var t = t_begin; t < t_end; t++) {
    let j0 = t * BKV;
    if (PF_ON) {
      put_kv(li, pf.k0, pf.v0);
      if (PF > 1u) { put_kv(li + NT, pf.k1, pf.v1); }
      if (PF > 2u) { put_kv(li + 2u * NT, pf.k2, pf.v2); }
      if (PF > 3u) { put_kv(li + 3u * NT, pf.k3, pf.v3); }
    } else {
      for (var x = li; x < BKV * D4; x += NT) { put_kv(x, load_k(kb, j0, x), load_v(vb, j0, x)); }
    }
    workgroupBarrier();
    // The next tile's loads, in flight while this one is computed.
    if (PF_ON && t + 1u < t_end) { pf = prefetch_kv(kb, vb, j0 + BKV, li); }
    // 1. the 4x4 score block: s[r][c] is row ty + TYS * r, column tx + TXS * c. Zeroed by an
    // assignment: a declaration here without one was not re-zeroed per tile on SwiftShader.
    s = array<vec4<f32>, 4>();
    for (var e = 0u; e < D4; e++) {
      let k0 = kps[tx * DP4 + e];
      let k1 = kps[(tx + TXS) * DP4 + e];
      let k2 = kps[(tx + 2u * TXS) * DP4 + e];
      let k3 = kps[(tx + 3u * TXS) * DP4 + e];
      if (SCORE_CHAIN) {
        s[0] = fma4(s[0], qs[ty * DP4 + e], k0, k1, k2, k3);
        s[1] = fma4(s[1], qs[(ty + TYS) * DP4 + e], k0, k1, k2, k3);
        if (RS > 2u) {
          s[2] = fma4(s[2], qs[(ty + 2u * TYS) * DP4 + e], k0, k1, k2, k3);
          s[3] = fma4(s[3], qs[(ty + 3u * TYS) * DP4 + e], k0, k1, k2, k3);
        }
      } else {
        s[0] += dot4(qs[ty * DP4 + e], k0, k1, k2, k3);
        s[1] += dot4(qs[(ty + TYS) * DP4 + e], k0, k1, k2, k3);
        if (RS > 2u) {
          s[2] += dot4(qs[(ty + 2u * TYS) * DP4 + e], k0, k1, k2, k3);
          s[3] += dot4(qs[(ty + 3u * TYS) * DP4 + e], k0, k1, k2, k3);
        }
      }
    }
    let jt = j0 + tx;
    let valid = vec4<bool>(jt < p.skv, jt + TXS < p.skv, jt + 2u * TXS < p.skv, jt + 3u * TXS < p.skv);
    s[0] = select(vec4<f32>(LOWEST), s[0] + mask4(b, h, i0, ty, j0, tx), valid);
    s[1] = select(vec4<f32>(LOWEST), s[1] + mask4(b, h, i0, ty + TYS, j0, tx), valid);
    if (RS > 2u) {
      s[2] = select(vec4<f32>(LOWEST), s[2] + mask4(b, h, i0, ty + 2u * TYS, j0, tx), valid);
      s[3] = select(vec4<f32>(LOWEST), s[3] + mask4(b, h, i0, ty + 3u * TYS, j0, tx), valid);
    }
    // 2. the tile's row maxima across the TXS invocations of each row (the includer's
    // tile_row_max), then weights and partial sums.
    let mt = tile_row_max(ty, tx, vec4<f32>(max(max(s[0].x, s[0].y), max(s[0].z, s[0].w)),
                                            max(max(s[1].x, s[1].y), max(s[1].z, s[1].w)),
                                            max(max(s[2].x, s[2].y), max(s[2].z, s[2].w)),
                                            max(max(s[3].x, s[3].y), max(s[3].z, s[3].w))));
    // P over the K tile: every invocation's score reads of K must be done first (a
    // tile_row_max through shared memory has that barrier already).
    if (!ROW_MAX_SYNCS && P_AT < BKV * DP4) { workgroupBarrier(); }
    let u0 = softmax_row(ty, tx, s[0], valid, m_run.x, l_part.x, mt.x);
    let u1 = softmax_row(ty + TYS, tx, s[1], valid, m_run.y, l_part.y, mt.y);
    var u2 = vec2<f32>(m_run.z, l_part.z);
    var u3 = vec2<f32>(m_run.w, l_part.w);
    if (RS > 2u) {
      u2 = softmax_row(ty + 2u * TYS, tx, s[2], valid, m_run.z, l_part.z, mt.z);
      u3 = softmax_row(ty + 3u * TYS, tx, s[3], valid, m_run.w, l_part.w, mt.w);
    }
    m_run = vec4<f32>(u0.x, u1.x, u2.x, u3.x);
    l_part = vec4<f32>(u0.y, u1.y, u2.y, u3.y);
    workgroupBarrier();
    // 3. o = o * corr + P V, rows og + NG * r for r < RO (RO is a pipeline constant).
    o[0] *= corr_s[og];
    if (RO > 1u) { o[1] *= corr_s[og + NG]; }
    if (RO > 2u) { o[2] *= corr_s[og + 2u * NG]; }
    if (RO > 3u) { o[3] *= corr_s[og + 3u * NG]; }
    if (RO > 4u) { o[4] *= corr_s[og + 4u * NG]; }
    if (RO > 5u) { o[5] *= corr_s[og + 5u * NG]; }
    if (RO > 6u) { o[6] *= corr_s[og + 6u * NG]; }
    if (RO > 7u) { o[7] *= corr_s[og + 7u * NG]; }
    if (RO > 8u) { o[8] *= corr_s[og + 8u * NG]; }
    if (RO > 9u) { o[9] *= corr_s[og + 9u * NG]; }
    if (RO > 10u) { o[10] *= corr_s[og + 10u * NG]; }
    if (RO > 11u) { o[11] *= corr_s[og + 11u * NG]; }
    if (RO > 12u) { o[12] *= corr_s[og + 12u * NG]; }
    if (RO > 13u) { o[13] *= corr_s[og + 13u * NG]; }
    if (RO > 14u) { o[14] *= corr_s[og + 14u * NG]; }
    if (RO > 15u) { o[15] *= corr_s[og + 15u * NG]; }
    for (var x = 0u; x < TXS; x++) {
      let v0 = vs[x * D4 + oc];
      let v1 = vs[(x + TXS) * D4 + oc];
      let v2 = vs[(x + 2u * TXS) * D4 + oc];
      let v3 = vs[(x + 3u * TXS) * D4 + oc];
      o[0] = pv_row(o[0], og, x, v0, v1, v2, v3);
      if (RO > 1u) { o[1] = pv_row(o[1], og + NG, x, v0, v1, v2, v3); }
      if (RO > 2u) { o[2] = pv_row(o[2], og + 2u * NG, x, v0, v1, v2, v3); }
      if (RO > 3u) { o[3] = pv_row(o[3], og + 3u * NG, x, v0, v1, v2, v3); }
      if (RO > 4u) { o[4] = pv_row(o[4], og + 4u * NG, x, v0, v1, v2, v3); }
      if (RO > 5u) { o[5] = pv_row(o[5], og + 5u * NG, x, v0, v1, v2, v3); }
      if (RO > 6u) { o[6] = pv_row(o[6], og + 6u * NG, x, v0, v1, v2, v3); }
      if (RO > 7u) { o[7] = pv_row(o[7], og + 7u * NG, x, v0, v1, v2, v3); }
      if (RO > 8u) { o[8] = pv_row(o[8], og + 8u * NG, x, v0, v1, v2, v3); }
      if (RO > 9u) { o[9] = pv_row(o[9], og + 9u * NG, x, v0, v1, v2, v3); }
      if (RO > 10u) { o[10] = pv_row(o[10], og + 10u * NG, x, v0, v1, v2, v3); }
      if (RO > 11u) { o[11] = pv_row(o[11], og + 11u * NG, x, v0, v1, v2, v3); }
      if (RO > 12u) { o[12] = pv_row(o[12], og + 12u * NG, x, v0, v1, v2, v3); }
      if (RO > 13u) { o[13] = pv_row(o[13], og + 13u * NG, x, v0, v1, v2, v3); }
      if (RO > 14u) { o[14] = pv_row(o[14], og + 14u * NG, x, v0, v1, v2, v3); }
      if (RO > 15u) { o[15] = pv_row(o[15], og + 15u * NG, x, v0, v1, v2, v3); }
    }
    workgroupBarrier();
  }
  // Row sums: the partials of a row's TXS invocations.
  red[ty * TXS + tx] = l_part.x;
  red[(ty + TYS) * TXS + tx] = l_part.y;
  if (RS > 2u) {
    red[(ty + 2u * TYS) * TXS + tx] = l_part.z;
    red[(ty + 3u * TYS) * TXS + tx] = l_part.w;
  }
  workgroupBarrier();
  // Split mode: also each score row's (maximum, sum), from the tx == 0 invocations.
  let part = (wid.z * nwg.y + bh) * p.sq;
  if (KVS > 1u && tx == 0u) {
    store_ml(part, i0, ty, m_run.x, nwg.y);
    store_ml(part, i0, ty + TYS, m_run.y, nwg.y);
    if (RS > 2u) {
      store_ml(part, i0, ty + 2u * TYS, m_run.z, nwg.y);
      store_ml(part, i0, ty + 3u * TYS, m_run.w, nwg.y);
    }
  }
  store_out(b, h, i0, part, og, oc, o[0]);
  if (RO > 1u) { store_out(b, h, i0, part, og + NG, oc, o[1]); }
  if (RO > 2u) { store_out(b, h, i0, part, og + 2u * NG, oc, o[2]); }
  if (RO > 3u) { store_out(b, h, i0, part, og + 3u * NG, oc, o[3]); }
  if (RO > 4u) { store_out(b, h, i0, part, og + 4u * NG, oc, o[4]); }
  if (RO > 5u) { store_out(b, h, i0, part, og + 5u * NG, oc, o[5]); }
  if (RO > 6u) { store_out(b, h, i0, part, og + 6u * NG, oc, o[6]); }
  if (RO > 7u) { store_out(b, h, i0, part, og + 7u * NG, oc, o[7]); }
  if (RO > 8u) { store_out(b, h, i0, part, og + 8u * NG, oc, o[8]); }
  if (RO > 9u) { store_out(b, h, i0, part, og + 9u * NG, oc, o[9]); }
  if (RO > 10u) { store_out(b, h, i0, part, og + 10u * NG, oc, o[10]); }
  if (RO > 11u) { store_out(b, h, i0, part, og + 11u * NG, oc, o[11]); }
  if (RO > 12u) { store_out(b, h, i0, part, og + 12u * NG, oc, o[12]); }
  if (RO > 13u) { store_out(b, h, i0, part, og + 13u * NG, oc, o[13]); }
  if (RO > 14u) { store_out(b, h, i0, part, og + 14u * NG, oc, o[14]); }
  if (RO > 15u) { store_out(b, h, i0, part, og + 15u * NG, oc, o[15]); }
}
