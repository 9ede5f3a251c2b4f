// The body of the float reductions of contiguous rows (the reduced dims are the input's
// innermost, merged into one run of `len` words): sum (mean: scale 1/len), amax, amin, softmax, log_softmax.
// One workgroup per row, or per chunk of a row (nchunks > 1: partial results, reduced again
// by a second dispatch of this shader over [rows, nchunks]), so long rows of few channels
// (MODNet's means over H*W) still fill the GPU. Each thread keeps up to kCache of its row's
// words in registers: a softmax row of len <= kCache * WG is read once and written
// once; longer rows are read twice (an online max/sum pass, then the write pass). The
// includer combines the threads' partials: `fn wg_reduce(op: u32, lid: u32, v: f32, sg: u32,
// bank: u32) -> f32` (op as combine's; every thread calls it; bank alternates between
// consecutive calls): reduce_rows.wgsl through shared memory in log2(WG) steps,
// reduce_rows_sg.wgsl through subgroup operations.
// Chosen by register.cpp on GPU kernel choices (bench/kernels/softmax/README.md, v4).
// ops: 0 sum, 1 amax, 2 amin, 3 softmax, 4 log_softmax.
//#include "dispatch.inc.wgsl"
struct RowParams {
  rows: u32, len: u32, op: u32, nchunks: u32,
  chunk: u32, scale: f32, _p0: u32, _p1: u32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: RowParams;

override WG: u32 = 256u;  // a power of two, at most 256
const kCache: u32 = 8u;
const kNegInf: f32 = -3.4028234e38;  // below it, a value is -inf

fn combine(op: u32, a: f32, b: f32) -> f32 {
  if (op == 0u) { return a + b; }
  if (op == 2u) { return min(a, b); }
  return max(a, b);  // amax, and the softmax's max
}

fn identity(op: u32) -> f32 {
  if (op == 0u) { return 0.0; }
  if (op == 2u) { return 3.4028234e38; }
  return -3.4028234e38;  // WGSL has no inf literal; a row of -inf still gives -inf (max keeps it)
}

// sg: the subgroup size, for wg_reduce (0 in reduce_rows.wgsl, which has none).
// Words i0 + k * WG (k = 0..3) of the row at base, `past` past its end (-inf: the row's max
// must not see them, or an all -inf row would not read as masked).
fn row_words(base: u32, i0: u32, past: f32) -> vec4<f32> {
  var v = vec4<f32>(past);
  if (i0 < p.len) { v.x = x[base + i0]; }
  if (i0 + WG < p.len) { v.y = x[base + i0 + WG]; }
  if (i0 + 2u * WG < p.len) { v.z = x[base + i0 + 2u * WG]; }
  if (i0 + 3u * WG < p.len) { v.w = x[base + i0 + 3u * WG]; }
  return v;
}

// s plus exp(v - m) for the components of v inside the row (words i0 + k * WG), in order.
fn exp_sum(s: f32, v: vec4<f32>, m: f32, i0: u32) -> f32 {
  var r = s;
  if (i0 < p.len) { r = r + exp(v.x - m); }
  if (i0 + WG < p.len) { r = r + exp(v.y - m); }
  if (i0 + 2u * WG < p.len) { r = r + exp(v.z - m); }
  if (i0 + 3u * WG < p.len) { r = r + exp(v.w - m); }
  return r;
}

// Word i (value c) of a softmax (op 3) or log_softmax (op 4) row, if inside the row.
fn softmax_store(base: u32, i: u32, c: f32, m: f32, inv: f32, log_total: f32, all_masked: bool, nan: f32) {
  if (i >= p.len) { return; }
  var y = exp(c - m) * inv;
  if (p.op == 4u) { y = c - m - log_total; }
  out[base + i] = select(y, nan, all_masked);
}

fn reduce_rows(lid: u32, wid: vec3<u32>, nwg: vec3<u32>, sg: u32) {
  let g = flat_workgroup(wid, nwg);
  let row = g / p.nchunks;
  if (row >= p.rows) { return; }  // uniform per workgroup: no thread reaches a barrier
  let base = row * p.len;
  if (p.op < 3u) {
    let chunk = g % p.nchunks;
    let lo = chunk * p.chunk;
    let hi = min(p.len, lo + p.chunk);
    var acc = identity(p.op);
    if (p.op == 1u || p.op == 2u) {
      // A row of -inf (amax) or +inf (amin): seed with the first value so it survives.
      if (lo < hi) { acc = x[base + lo]; }
    }
    for (var i = lo + lid; i < hi; i = i + WG) { acc = combine(p.op, acc, x[base + i]); }
    let r = wg_reduce(p.op, lid, acc, sg, 0u);
    if (lid == 0u) { out[g] = r * p.scale; }
    return;
  }

  // softmax / log_softmax: max, then the sum of exp(v - max), then the write.
  // -inf, built at run time (WGSL has no inf literal); _p0 is always 0.
  var m = bitcast<f32>(0xff800000u | p._p0);
  var s = 0.0;
  let cached = p.len <= kCache * WG;
  // A thread's words lid + k * WG (k < kCache = 8) in two vec4s, -inf past the row: an
  // array indexed in a loop would go to local memory where Dawn's robustness keeps the loop
  // rolled (bench/kernels/robustness).
  var c0 = vec4<f32>(kNegInf);
  var c1 = vec4<f32>(kNegInf);
  if (cached) {
    c0 = row_words(base, lid, m);  // m is -inf here
    c1 = row_words(base, lid + 4u * WG, m);
    // In word order, as a loop would (max of -inf past the row's end changes nothing).
    m = max(max(max(max(max(max(max(max(m, c0.x), c0.y), c0.z), c0.w), c1.x), c1.y), c1.z), c1.w);
    m = wg_reduce(1u, lid, m, sg, 0u);
    s = exp_sum(exp_sum(s, c0, m, lid), c1, m, lid + 4u * WG);
  } else {
    // Online: the running sum is rescaled when the running max grows.
    for (var i = lid; i < p.len; i = i + WG) {
      let v = x[base + i];
      if (v > m) {
        s = s * exp(m - v) + 1.0;
        m = v;
      } else {
        // v == m adds 1 without exp(m - m): -inf - -inf would be NaN while this thread has
        // seen only -inf; that count is wiped (scaled by exp(-inf)) once a finite max comes.
        s = s + select(exp(v - m), 1.0, v == m);
      }
    }
    let mt = wg_reduce(1u, lid, m, sg, 0u);
    if (s > 0.0 && mt >= kNegInf) { s = s * exp(m - mt); }
    m = mt;
  }
  let total = wg_reduce(0u, lid, s, sg, 1u);
  // A row of only -inf (a fully masked attention row): NaN, as torch (a NaN constant is a
  // WGSL compile error too).
  let all_masked = m < kNegInf || p.len == 0u;
  let nan = bitcast<f32>(0x7fc00000u | p._p0);
  let log_total = log(total);
  let inv = 1.0 / total;
  if (cached) {
    softmax_store(base, lid, c0.x, m, inv, log_total, all_masked, nan);
    softmax_store(base, lid + WG, c0.y, m, inv, log_total, all_masked, nan);
    softmax_store(base, lid + 2u * WG, c0.z, m, inv, log_total, all_masked, nan);
    softmax_store(base, lid + 3u * WG, c0.w, m, inv, log_total, all_masked, nan);
    softmax_store(base, lid + 4u * WG, c1.x, m, inv, log_total, all_masked, nan);
    softmax_store(base, lid + 5u * WG, c1.y, m, inv, log_total, all_masked, nan);
    softmax_store(base, lid + 6u * WG, c1.z, m, inv, log_total, all_masked, nan);
    softmax_store(base, lid + 7u * WG, c1.w, m, inv, log_total, all_masked, nan);
  } else {
    for (var i = lid; i < p.len; i = i + WG) {
      let v = x[base + i];
      var y = exp(v - m) * inv;
      if (p.op == 4u) { y = v - m - log_total; }
      out[base + i] = select(y, nan, all_masked);
    }
  }
}
