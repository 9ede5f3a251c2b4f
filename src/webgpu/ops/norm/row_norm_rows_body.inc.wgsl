// The body of the short-row norms, row_norm_rows.wgsl (segment sums through shared memory) and
// row_norm_rows_sg.wgsl (through subgroup operations): a workgroup of WG threads normalizes
// WG / TPR rows of at most kCache * TPR words, TPR threads per row (a power of two;
// register.cpp aims at ~4 words a thread). Each thread keeps its words in registers, so the
// row is read once and written once (row_norm.wgsl reads it three times). The includer
// declares `fn segment_sum(v: f32, li: u32, lane: u32, sg: u32, bank: u32) -> f32`: the sum
// of v over the TPR threads of segment li / TPR, called by every thread (bank alternates
// between consecutive calls). Modes and affine as row_norm.wgsl.
//#include "dispatch.inc.wgsl"
//#include "row_norm_bindings.inc.wgsl"

override WG: u32 = 256u;   // at most 256
override TPR: u32 = 32u;   // threads per row, a power of two dividing WG
const kCache: u32 = 8u;    // words a thread holds (two vec4s): rows up to TPR * kCache

// Word i of a row (0 outside it or past a live row): the words a thread keeps.
fn row_word(live_row: bool, base: u32, i: u32) -> f32 {
  if (live_row && i < p.inner) { return x[base + i]; }
  return 0.0;
}

// Words i0, i0 + TPR, i0 + 2 TPR, i0 + 3 TPR: a thread's words are held in two such vec4s
// (k = 0..3 and 4..7 of kCache), not an array indexed in a loop, which would go to local
// memory where Dawn's robustness keeps the loop rolled (bench/kernels/robustness).
fn row_words(live_row: bool, base: u32, i0: u32) -> vec4<f32> {
  return vec4<f32>(row_word(live_row, base, i0), row_word(live_row, base, i0 + TPR),
                   row_word(live_row, base, i0 + 2u * TPR), row_word(live_row, base, i0 + 3u * TPR));
}

fn in_row(i0: u32) -> vec4<bool> {
  return vec4<bool>(i0 < p.inner, i0 + TPR < p.inner, i0 + 2u * TPR < p.inner, i0 + 3u * TPR < p.inner);
}

// The running sum s plus each component of v, in order.
fn add4(s: f32, v: vec4<f32>) -> f32 { return s + v.x + v.y + v.z + v.w; }

// Word i of the row (value c) normalized, weighted, biased and stored, if inside the row.
fn norm_store(row: u32, base: u32, i: u32, c: f32, mean: f32, rstd: f32) {
  if (i >= p.inner) { return; }
  var widx = i;
  if (p.mode == 1u) { widx = (row % max(p.groups, 1u)) * p.cpg + i / p.hw; }
  var y = (c - mean) * rstd;
  if ((p.flags & 1u) != 0u) { y = y * weight[widx]; }
  if ((p.flags & 2u) != 0u) { y = y + bias[widx]; }
  out[base + i] = y;
}

// sg: the subgroup size, for segment_sum (0 in row_norm_rows.wgsl, which has none).
fn row_norm_rows(wid: vec3<u32>, nwg: vec3<u32>, li: u32, sg: u32) {
  let lane = li % TPR;
  let row = flat_workgroup(wid, nwg) * (WG / TPR) + li / TPR;
  let live_row = row < p.rows;  // no early return: every thread reaches the barriers
  let base = row * p.inner;
  let n = f32(p.inner);
  let i1 = lane + 4u * TPR;  // the second vec4's first word
  let c0 = row_words(live_row, base, lane);
  let c1 = row_words(live_row, base, i1);
  let s = add4(add4(0.0, c0), c1);
  var mean = 0.0;
  if (p.mode != 2u) { mean = segment_sum(s, li, lane, sg, 0u) / n; }
  let d0 = select(vec4<f32>(0.0), c0 - vec4<f32>(mean), in_row(lane));
  let d1 = select(vec4<f32>(0.0), c1 - vec4<f32>(mean), in_row(i1));
  let s2 = add4(add4(0.0, d0 * d0), d1 * d1);
  let rstd = inverseSqrt(segment_sum(s2, li, lane, sg, 1u) / n + p.eps);
  if (!live_row) { return; }
  norm_store(row, base, lane, c0.x, mean, rstd);
  norm_store(row, base, lane + TPR, c0.y, mean, rstd);
  norm_store(row, base, lane + 2u * TPR, c0.z, mean, rstd);
  norm_store(row, base, lane + 3u * TPR, c0.w, mean, rstd);
  norm_store(row, base, i1, c1.x, mean, rstd);
  norm_store(row, base, i1 + TPR, c1.y, mean, rstd);
  norm_store(row, base, i1 + 2u * TPR, c1.z, mean, rstd);
  norm_store(row, base, i1 + 3u * TPR, c1.w, mean, rstd);
  if (lane == 0u) {
    if ((p.flags & 4u) != 0u) { mean_out[row] = mean; }
    if ((p.flags & 8u) != 0u) { rstd_out[row] = rstd; }
  }
}
