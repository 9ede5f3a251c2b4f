// Research, not shipped (README.md, v35-v45: slower than the shipped tiled kernel on the H100
// at every ViT-S and Whisper setting but one tie). Fused attention with one query row per
// invocation, for head dims up to 64: out = softmax(q k^T * scale + mask) v per (batch, head), the score matrix
// never written, every operand a strided 4-D view as in flash_attention.wgsl (same Params,
// bindings, key split and partial-buffer layout, so flash_attention_combine.wgsl finishes
// its splits too).
//
// Why a row per invocation: flash_attention.wgsl spreads a score row over BKV / 4
// invocations, so each key tile needs the row maxima exchanged, the weights written to a
// shared P tile and read back by other invocations, and q's tile in shared memory: 3-4
// barriers a tile and 2 FMAs per shared float read. Here an invocation holds its row of q
// (pre-scaled) and of the output accumulator in registers (the Row struct: 16 vec4 fields,
// which nothing can index at run time), computes all BKV scores of its row, takes their
// maximum, weights and sum without talking to anyone, and adds the weighted V rows itself.
// Shared memory holds only the K and V tiles; every invocation of a workgroup reads the same
// key row at the same time, so each shared vec4 read is one broadcast feeding 4 FMAs in every
// lane. 2 barriers a tile (before the tile is overwritten, after it is written).
// Cost: ~170 registers an invocation (q, o: 64 floats each; the scores: BKV), so few
// invocations per multiprocessor; the many independent FMA chains (BKV scores, then 64
// output columns) are what keeps them busy. Small grids split the keys (KVS).
//#include "flash_params.inc.wgsl"

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

override D: u32 = 64u;      // head dim, a multiple of 4, at most 64
override BQ: u32 = 64u;     // query rows (= invocations) per workgroup
override BKV: u32 = 32u;    // keys per shared tile, a multiple of 4, at most 32
override KVS: u32 = 1u;     // key splits (workgroup z)
override D4: u32 = D / 4u;
// Two K and V tiles (DB): the next tile is stored into the other pair while this one is
// computed, one barrier a tile instead of two.
override DB: bool = false;
override TILE: u32 = BKV * D4;            // vec4s of one K (or V) tile
override NBUF: u32 = select(1u, 2u, DB);

var<workgroup> ks: array<vec4<f32>, NBUF * TILE>;
var<workgroup> vs: array<vec4<f32>, NBUF * TILE>;

const LOWEST: f32 = -3.4028234e38;

// A row of D floats as vec4s r0..r15 (those past D4 stay unused): q's row, the output's.
struct Row {
  r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>, r3: vec4<f32>,
  r4: vec4<f32>, r5: vec4<f32>, r6: vec4<f32>, r7: vec4<f32>,
  r8: vec4<f32>, r9: vec4<f32>, r10: vec4<f32>, r11: vec4<f32>,
  r12: vec4<f32>, r13: vec4<f32>, r14: vec4<f32>, r15: vec4<f32>,
}

// A tile's BKV scores (or weights) of the row: keys 4g .. 4g + 3 in g0..g7.
struct Scores {
  g0: vec4<f32>, g1: vec4<f32>, g2: vec4<f32>, g3: vec4<f32>,
  g4: vec4<f32>, g5: vec4<f32>, g6: vec4<f32>, g7: vec4<f32>,
}

// Vec4 e of q's view row that starts at `at` (dim stride sd).
fn load4(at: u32, e: u32, sd: u32) -> vec4<f32> {
  let i = at + e * 4u * sd;
  return vec4<f32>(q[i], q[i + sd], q[i + 2u * sd], q[i + 3u * sd]);
}

// q's row at `at`, times the scale.
fn load_q_row(at: u32) -> Row {
  var r: Row;
  let s = p.scale;
  let sd = p.q_sd;
  r.r0 = load4(at, 0u, sd) * s;
  if (D4 > 1u) { r.r1 = load4(at, 1u, sd) * s; }
  if (D4 > 2u) { r.r2 = load4(at, 2u, sd) * s; }
  if (D4 > 3u) { r.r3 = load4(at, 3u, sd) * s; }
  if (D4 > 4u) { r.r4 = load4(at, 4u, sd) * s; }
  if (D4 > 5u) { r.r5 = load4(at, 5u, sd) * s; }
  if (D4 > 6u) { r.r6 = load4(at, 6u, sd) * s; }
  if (D4 > 7u) { r.r7 = load4(at, 7u, sd) * s; }
  if (D4 > 8u) { r.r8 = load4(at, 8u, sd) * s; }
  if (D4 > 9u) { r.r9 = load4(at, 9u, sd) * s; }
  if (D4 > 10u) { r.r10 = load4(at, 10u, sd) * s; }
  if (D4 > 11u) { r.r11 = load4(at, 11u, sd) * s; }
  if (D4 > 12u) { r.r12 = load4(at, 12u, sd) * s; }
  if (D4 > 13u) { r.r13 = load4(at, 13u, sd) * s; }
  if (D4 > 14u) { r.r14 = load4(at, 14u, sd) * s; }
  if (D4 > 15u) { r.r15 = load4(at, 15u, sd) * s; }
  return r;
}

// acc + the scores of qv (dims 4e..4e+3 of the row) against keys j..j+3 of the K tile, each
// one chain of FMAs from its running sum.
fn fma_keys(acc: vec4<f32>, qv: vec4<f32>, j: u32, e: u32) -> vec4<f32> {
  let k0 = ks[j * D4 + e];
  let k1 = ks[(j + 1u) * D4 + e];
  let k2 = ks[(j + 2u) * D4 + e];
  let k3 = ks[(j + 3u) * D4 + e];
  return vec4<f32>(fma(qv.w, k0.w, fma(qv.z, k0.z, fma(qv.y, k0.y, fma(qv.x, k0.x, acc.x)))),
                   fma(qv.w, k1.w, fma(qv.z, k1.z, fma(qv.y, k1.y, fma(qv.x, k1.x, acc.y)))),
                   fma(qv.w, k2.w, fma(qv.z, k2.z, fma(qv.y, k2.y, fma(qv.x, k2.x, acc.z)))),
                   fma(qv.w, k3.w, fma(qv.z, k3.z, fma(qv.y, k3.y, fma(qv.x, k3.x, acc.w)))));
}

// Every score of the tile advanced by dims 4e..4e+3: BKV independent chains. The tile's keys
// are those from kb0 on in ks (kb0 = BKV x the buffer, DB).
fn score_dims(s: Scores, qv: vec4<f32>, e: u32, kb0: u32) -> Scores {
  var r = s;
  r.g0 = fma_keys(r.g0, qv, kb0, e);
  if (BKV > 4u) { r.g1 = fma_keys(r.g1, qv, kb0 + 4u, e); }
  if (BKV > 8u) { r.g2 = fma_keys(r.g2, qv, kb0 + 8u, e); }
  if (BKV > 12u) { r.g3 = fma_keys(r.g3, qv, kb0 + 12u, e); }
  if (BKV > 16u) { r.g4 = fma_keys(r.g4, qv, kb0 + 16u, e); }
  if (BKV > 20u) { r.g5 = fma_keys(r.g5, qv, kb0 + 20u, e); }
  if (BKV > 24u) { r.g6 = fma_keys(r.g6, qv, kb0 + 24u, e); }
  if (BKV > 28u) { r.g7 = fma_keys(r.g7, qv, kb0 + 28u, e); }
  return r;
}

fn tile_scores(qr: Row, kb0: u32) -> Scores {
  var s = Scores();
  s = score_dims(s, qr.r0, 0u, kb0);
  if (D4 > 1u) { s = score_dims(s, qr.r1, 1u, kb0); }
  if (D4 > 2u) { s = score_dims(s, qr.r2, 2u, kb0); }
  if (D4 > 3u) { s = score_dims(s, qr.r3, 3u, kb0); }
  if (D4 > 4u) { s = score_dims(s, qr.r4, 4u, kb0); }
  if (D4 > 5u) { s = score_dims(s, qr.r5, 5u, kb0); }
  if (D4 > 6u) { s = score_dims(s, qr.r6, 6u, kb0); }
  if (D4 > 7u) { s = score_dims(s, qr.r7, 7u, kb0); }
  if (D4 > 8u) { s = score_dims(s, qr.r8, 8u, kb0); }
  if (D4 > 9u) { s = score_dims(s, qr.r9, 9u, kb0); }
  if (D4 > 10u) { s = score_dims(s, qr.r10, 10u, kb0); }
  if (D4 > 11u) { s = score_dims(s, qr.r11, 11u, kb0); }
  if (D4 > 12u) { s = score_dims(s, qr.r12, 12u, kb0); }
  if (D4 > 13u) { s = score_dims(s, qr.r13, 13u, kb0); }
  if (D4 > 14u) { s = score_dims(s, qr.r14, 14u, kb0); }
  if (D4 > 15u) { s = score_dims(s, qr.r15, 15u, kb0); }
  return s;
}

// Keys j..j+3 (j = j0 + 4g): scores plus the row's additive mask, LOWEST past skv.
fn masked(sv: vec4<f32>, j: u32, mrow: u32) -> vec4<f32> {
  var r = sv;
  if (p.mask_mode == 1u) {
    let last = p.skv - 1u;
    r += vec4<f32>(mask[mrow + min(j, last) * p.m_sj], mask[mrow + min(j + 1u, last) * p.m_sj],
                   mask[mrow + min(j + 2u, last) * p.m_sj], mask[mrow + min(j + 3u, last) * p.m_sj]);
  }
  let valid = vec4<bool>(j < p.skv, j + 1u < p.skv, j + 2u < p.skv, j + 3u < p.skv);
  return select(vec4<f32>(LOWEST), r, valid);
}

fn max4(x: vec4<f32>) -> f32 { return max(max(x.x, x.y), max(x.z, x.w)); }

// Weights exp(s - m) of keys j..j+3, 0 past skv (their scores are LOWEST, but a row whose
// maximum is LOWEST too would give them 1).
fn weights(sv: vec4<f32>, j: u32, m: f32) -> vec4<f32> {
  let valid = vec4<bool>(j < p.skv, j + 1u < p.skv, j + 2u < p.skv, j + 3u < p.skv);
  return select(vec4<f32>(0.0), exp(sv - vec4<f32>(m)), valid);
}

// o_e + the weighted V rows j..j+3 at dims 4e..4e+3.
fn pv4(o_e: vec4<f32>, w: vec4<f32>, j: u32, e: u32) -> vec4<f32> {
  return fma(vec4<f32>(w.w), vs[(j + 3u) * D4 + e],
             fma(vec4<f32>(w.z), vs[(j + 2u) * D4 + e],
                 fma(vec4<f32>(w.y), vs[(j + 1u) * D4 + e], fma(vec4<f32>(w.x), vs[j * D4 + e], o_e))));
}

// o + weights w (keys j..j+3 of the tile) times their V rows: 64 independent chains.
fn pv_keys(o: Row, w: vec4<f32>, j: u32) -> Row {
  var r = o;
  r.r0 = pv4(r.r0, w, j, 0u);
  if (D4 > 1u) { r.r1 = pv4(r.r1, w, j, 1u); }
  if (D4 > 2u) { r.r2 = pv4(r.r2, w, j, 2u); }
  if (D4 > 3u) { r.r3 = pv4(r.r3, w, j, 3u); }
  if (D4 > 4u) { r.r4 = pv4(r.r4, w, j, 4u); }
  if (D4 > 5u) { r.r5 = pv4(r.r5, w, j, 5u); }
  if (D4 > 6u) { r.r6 = pv4(r.r6, w, j, 6u); }
  if (D4 > 7u) { r.r7 = pv4(r.r7, w, j, 7u); }
  if (D4 > 8u) { r.r8 = pv4(r.r8, w, j, 8u); }
  if (D4 > 9u) { r.r9 = pv4(r.r9, w, j, 9u); }
  if (D4 > 10u) { r.r10 = pv4(r.r10, w, j, 10u); }
  if (D4 > 11u) { r.r11 = pv4(r.r11, w, j, 11u); }
  if (D4 > 12u) { r.r12 = pv4(r.r12, w, j, 12u); }
  if (D4 > 13u) { r.r13 = pv4(r.r13, w, j, 13u); }
  if (D4 > 14u) { r.r14 = pv4(r.r14, w, j, 14u); }
  if (D4 > 15u) { r.r15 = pv4(r.r15, w, j, 15u); }
  return r;
}

fn scale_row(o: Row, c: f32) -> Row {
  var r = o;
  r.r0 *= c; r.r1 *= c; r.r2 *= c; r.r3 *= c; r.r4 *= c; r.r5 *= c; r.r6 *= c; r.r7 *= c;
  r.r8 *= c; r.r9 *= c; r.r10 *= c; r.r11 *= c; r.r12 *= c; r.r13 *= c; r.r14 *= c; r.r15 *= c;
  return r;
}

// Vec4 x (< BKV * D4: key x / D4, dims 4 (x % D4) ...) of the key tile that starts at key
// j0; the last key stands in for keys past skv (masked off by `masked`).
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

// The K and V tiles that start at key j0 into ks / vs from vec4 `at` on.
fn store_tile(kb: u32, vb: u32, j0: u32, at: u32, li: u32) {
  for (var x = li; x < TILE; x += BQ) {
    ks[at + x] = load_k(kb, j0, x);
    vs[at + x] = load_v(vb, j0, x);
  }
}

// Vec4 e of the finished row: into the output view (dims 4e..4e+3 at `at`, stride sd), or
// (split mode) as it is into the partial row at `at` (contiguous).
fn put4(at: u32, e: u32, sd: u32, x: vec4<f32>) {
  let i = at + e * 4u * sd;
  out[i] = x.x;
  out[i + sd] = x.y;
  out[i + 2u * sd] = x.z;
  out[i + 3u * sd] = x.w;
}

fn store_row(at: u32, sd: u32, o: Row) {
  put4(at, 0u, sd, o.r0);
  if (D4 > 1u) { put4(at, 1u, sd, o.r1); }
  if (D4 > 2u) { put4(at, 2u, sd, o.r2); }
  if (D4 > 3u) { put4(at, 3u, sd, o.r3); }
  if (D4 > 4u) { put4(at, 4u, sd, o.r4); }
  if (D4 > 5u) { put4(at, 5u, sd, o.r5); }
  if (D4 > 6u) { put4(at, 6u, sd, o.r6); }
  if (D4 > 7u) { put4(at, 7u, sd, o.r7); }
  if (D4 > 8u) { put4(at, 8u, sd, o.r8); }
  if (D4 > 9u) { put4(at, 9u, sd, o.r9); }
  if (D4 > 10u) { put4(at, 10u, sd, o.r10); }
  if (D4 > 11u) { put4(at, 11u, sd, o.r11); }
  if (D4 > 12u) { put4(at, 12u, sd, o.r12); }
  if (D4 > 13u) { put4(at, 13u, sd, o.r13); }
  if (D4 > 14u) { put4(at, 14u, sd, o.r14); }
  if (D4 > 15u) { put4(at, 15u, sd, o.r15); }
}

@compute @workgroup_size(BQ, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let bh = wid.y;
  let b = bh / p.heads;
  let h = bh % p.heads;
  let i = wid.x * BQ + li;          // this invocation's query row
  let row = min(i, p.sq - 1u);      // rows past sq compute the last one's (not stored)
  let kb = p.k_off + b * p.k_sb + h * p.k_sh;
  let vb = p.v_off + b * p.v_sb + h * p.v_sh;
  let qr = load_q_row(p.q_off + b * p.q_sb + h * p.q_sh + row * p.q_ss);
  let mrow = p.m_off + b * p.m_sb + h * p.m_sh + row * p.m_ss;
  var o = Row();
  var m_run = LOWEST;
  var l = 0.0;

  // This split's key tiles (all of them when KVS is 1; none for a split past the last).
  let ntiles = (p.skv + BKV - 1u) / BKV;
  let per_split = (ntiles + KVS - 1u) / KVS;
  let t_begin = min(wid.z * per_split, ntiles);
  let t_end = min(t_begin + per_split, ntiles);
  if (DB && t_begin < t_end) {
    store_tile(kb, vb, t_begin * BKV, 0u, li);
    workgroupBarrier();
  }
  for (var t = t_begin; t < t_end; t++) {
    let j0 = t * BKV;
    var kb0 = 0u;  // the tile's first key in ks / vs
    if (DB) {
      kb0 = ((t - t_begin) % 2u) * BKV;
      // The next tile into the other buffer (its last readers passed the barrier that ended
      // the previous step).
      if (t + 1u < t_end) { store_tile(kb, vb, j0 + BKV, (BKV - kb0) * D4, li); }
    } else {
      workgroupBarrier();  // every read of the last tile done
      store_tile(kb, vb, j0, 0u, li);
      workgroupBarrier();
    }
    var s = tile_scores(qr, kb0);
    s.g0 = masked(s.g0, j0, mrow);
    var mt = max4(s.g0);
    if (BKV > 4u) { s.g1 = masked(s.g1, j0 + 4u, mrow); mt = max(mt, max4(s.g1)); }
    if (BKV > 8u) { s.g2 = masked(s.g2, j0 + 8u, mrow); mt = max(mt, max4(s.g2)); }
    if (BKV > 12u) { s.g3 = masked(s.g3, j0 + 12u, mrow); mt = max(mt, max4(s.g3)); }
    if (BKV > 16u) { s.g4 = masked(s.g4, j0 + 16u, mrow); mt = max(mt, max4(s.g4)); }
    if (BKV > 20u) { s.g5 = masked(s.g5, j0 + 20u, mrow); mt = max(mt, max4(s.g5)); }
    if (BKV > 24u) { s.g6 = masked(s.g6, j0 + 24u, mrow); mt = max(mt, max4(s.g6)); }
    if (BKV > 28u) { s.g7 = masked(s.g7, j0 + 28u, mrow); mt = max(mt, max4(s.g7)); }
    let m_new = max(m_run, mt);
    let corr = exp(m_run - m_new);
    m_run = m_new;
    o = scale_row(o, corr);
    var w = weights(s.g0, j0, m_new);
    var lt = w.x + w.y + w.z + w.w;
    o = pv_keys(o, w, kb0);
    if (BKV > 4u) { w = weights(s.g1, j0 + 4u, m_new); lt += w.x + w.y + w.z + w.w; o = pv_keys(o, w, kb0 + 4u); }
    if (BKV > 8u) { w = weights(s.g2, j0 + 8u, m_new); lt += w.x + w.y + w.z + w.w; o = pv_keys(o, w, kb0 + 8u); }
    if (BKV > 12u) { w = weights(s.g3, j0 + 12u, m_new); lt += w.x + w.y + w.z + w.w; o = pv_keys(o, w, kb0 + 12u); }
    if (BKV > 16u) { w = weights(s.g4, j0 + 16u, m_new); lt += w.x + w.y + w.z + w.w; o = pv_keys(o, w, kb0 + 16u); }
    if (BKV > 20u) { w = weights(s.g5, j0 + 20u, m_new); lt += w.x + w.y + w.z + w.w; o = pv_keys(o, w, kb0 + 20u); }
    if (BKV > 24u) { w = weights(s.g6, j0 + 24u, m_new); lt += w.x + w.y + w.z + w.w; o = pv_keys(o, w, kb0 + 24u); }
    if (BKV > 28u) { w = weights(s.g7, j0 + 28u, m_new); lt += w.x + w.y + w.z + w.w; o = pv_keys(o, w, kb0 + 28u); }
    l = l * corr + lt;
    if (DB) { workgroupBarrier(); }  // the next tile stored, this one's reads done
  }
  if (i >= p.sq) { return; }
  if (KVS == 1u) {
    store_row(p.o_off + b * p.o_sb + h * p.o_sh + i * p.o_ss, p.o_sd, scale_row(o, 1.0 / l));
    return;
  }
  // Split mode: the unnormalized row into this split's partial rows [KVS][B*H][sq][D], then
  // its (maximum, sum of weights) pair after all KVS * B*H * sq of them.
  let part = (wid.z * nwg.y + bh) * p.sq + i;
  store_row(part * D, 1u, o);
  let at = KVS * nwg.y * p.sq * D + part * 2u;
  out[at] = m_run;
  out[at + 1u] = l;
}
