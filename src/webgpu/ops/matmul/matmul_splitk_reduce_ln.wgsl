// matmul_splitk_reduce.wgsl and the layer norm that reads its result, in one dispatch
// (ops/norm/register.cpp fuses them where a layer norm over the last dim directly follows a
// split-K product: Whisper's, DINOv2's and Hiera's pre-norm blocks, where the out-projection
// and fc2 add the residual and the next norm reads the sum). One workgroup per row of c:
// each thread finishes VPT vec4s of the row as the plain reduce does (sum of the KS partial
// sums, alpha, bias, epilogue, residual) and stores them to c, the residual stream the next
// block adds to; it keeps them in registers for the row's mean and variance (two workgroup
// sums), then writes the normalized row, times the norm's weight plus its bias, to ln_out.
// The norm's mean and rstd outputs are not written: the fusion is planned only where
// nothing reads them. RES_IN_LN: the memory plan gave the norm's output the residual's words
// (the residual's last reader is this sum): the residual is read from ln_out, each thread
// reading its own four values before it writes them (binding 5 then holds another buffer).
//#include "matmul_store_vec4.inc.wgsl"
//#include "dispatch.inc.wgsl"
//#include "workgroup_reduce.inc.wgsl"
alias Word = vec4<f32>;
alias BWord = Word;

struct NormParams {
  eps: f32, flags: u32,  // flags: 1 weight, 2 bias
  _p0: u32, _p1: u32,
}

@group(0) @binding(7) var<storage, read> ln_weight: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> ln_bias: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> ln_out: array<vec4<f32>>;
@group(0) @binding(10) var<uniform> np: NormParams;

override KS: u32 = 2u;
override WG: u32 = 128u;  // a power of two
override VPT: u32 = 1u;   // vec4s of a row per thread, 1..4: rows of up to 16 * WG floats
override RES_IN_LN: bool = false;

var<workgroup> red: array<f32, WG>;

// Vec4 q of row (bi, gm) finished and stored to c; zero past the row's end.
fn finish_q(bi: u32, gm: u32, q: u32) -> vec4<f32> {
  let gn = q * 4u;
  if (gn >= p.n) { return vec4<f32>(0.0); }
  var s = vec4<f32>(0.0);
  for (var z = 0u; z < KS; z++) { s = s + a[((bi * KS + z) * p.c_bs + gm * p.n + gn) / 4u]; }
  let ci = (bi * p.c_bs + gm * p.n + gn) / 4u;
  var r: vec4<f32>;
  if (RES_IN_LN) {
    r = finished_with(gm, gn, s, ln_out[ci]);  // c_bs = m * n: c's words are ln_out's
  } else {
    r = finished(bi, gm, gn, s);
  }
  c[ci] = r;
  return r;
}

// Vec4 q of the row's deviations d (zero past the row's end) normalized into ln_out.
fn norm_q(row: u32, q: u32, d: vec4<f32>, rstd: f32) {
  if (q * 4u >= p.n) { return; }
  var y = d * rstd;
  if ((np.flags & 1u) != 0u) { y = y * ln_weight[q]; }
  if ((np.flags & 2u) != 0u) { y = y + ln_bias[q]; }
  ln_out[(row * p.n) / 4u + q] = y;
}

fn live(q: u32) -> vec4<f32> { return select(vec4<f32>(0.0), vec4<f32>(1.0), q * 4u < p.n); }

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row = flat_workgroup(wid, nwg);
  if (row >= p.batch * p.m) { return; }  // the whole workgroup: no barrier is skipped by half of it
  let bi = row / p.m;
  let gm = row % p.m;
  // The thread's vec4s, in named registers (not an array indexed in a loop: matmul_large_tile.inc.wgsl).
  let v0 = finish_q(bi, gm, li);
  var v1 = vec4<f32>(0.0);
  var v2 = vec4<f32>(0.0);
  var v3 = vec4<f32>(0.0);
  if (VPT > 1u) { v1 = finish_q(bi, gm, li + WG); }
  if (VPT > 2u) { v2 = finish_q(bi, gm, li + 2u * WG); }
  if (VPT > 3u) { v3 = finish_q(bi, gm, li + 3u * WG); }
  let n = f32(p.n);
  let mean = reduce_sum(dot(v0 + v1 + v2 + v3, vec4<f32>(1.0)), li) / n;
  let mv = vec4<f32>(mean);
  let d0 = (v0 - mv) * live(li);
  let d1 = (v1 - mv) * live(li + WG);
  let d2 = (v2 - mv) * live(li + 2u * WG);
  let d3 = (v3 - mv) * live(li + 3u * WG);
  let var_sum = reduce_sum(dot(d0, d0) + dot(d1, d1) + dot(d2, d2) + dot(d3, d3), li);
  let rstd = inverseSqrt(var_sum / n + np.eps);
  norm_q(row, li, d0, rstd);
  if (VPT > 1u) { norm_q(row, li + WG, d1, rstd); }
  if (VPT > 2u) { norm_q(row, li + 2u * WG, d2, rstd); }
  if (VPT > 3u) { norm_q(row, li + 3u * WG, d3, rstd); }
}
