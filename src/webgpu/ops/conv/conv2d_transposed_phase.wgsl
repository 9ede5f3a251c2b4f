// Transposed convolution, any stride, padding, dilation, output_padding and groups, as an
// implicit GEMM per output phase (bench/kernels/conv_transposed v3): the outputs (oy, ox)
// with oy % SH == py and ox % SW == px (workgroup z = py * SW + px) receive exactly the taps
// ky with (py + pad_h - ky * DH) % SH == 0 (and likewise kx), each from input row
// iy = oy / SH + (py + pad_h - ky * DH) / SH: per phase a small dense conv, M = that phase's
// output pixels (batch folded in), N = out_c / groups (workgroup y = group * channel tiles
// + tile), K = the phase's taps x in_c / groups, taps outer, channels inner in steps of 16.
// Weights repacked at graph build (ops/conv/register.cpp) to wr[groups][KH][KW][Cpad][Npad]
// (Cpad = in_c / groups rounded up to 16, Npad = out_c / groups rounded up to BN, zeros in
// the padding): one unchecked vec4 load per invocation per step fills the B tile; the A
// tile is gathered with a bounds check per value (borders, padding). Tap validity depends
// only on the workgroup, so the barriers stay in uniform control flow. A phase without
// taps (stride past the kernel) writes bias. Same Params and bindings as conv2d_igemm.
//#include "conv2d_repacked.inc.wgsl"

override BN: u32 = 64;
const BM: u32 = 64u;
const BK: u32 = 16u;
override TY: u32 = BN / 4u;
override T: u32 = 16u * TY;
override LK: u32 = T / BM;
override RA: u32 = BK / LK;

var<workgroup> ta: array<vec4<f32>, 256>;  // [BK][BM / 4]
var<workgroup> tb: array<vec4<f32>, 256>;  // [BK][BN / 4]

@compute @workgroup_size(T)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let py = wid.z / SW;
  let px = wid.z % SW;
  // This phase's output grid: rows py, py + SH, ... below out_h.
  let qh = (p.out_h + SH - 1u - py) / SH;
  let qw = (p.out_w + SW - 1u - px) / SW;
  let qplane = qh * qw;
  let m_total = p.n * qplane;
  let m0 = wid.x * BM;
  if (m0 >= m_total) { return; }  // uniform: this phase has fewer pixels than the grid
  let cin_g = p.in_c / p.groups;
  let cout_g = p.out_c / p.groups;
  let ntiles = (cout_g + BN - 1u) / BN;
  let g = wid.y / ntiles;
  let n0 = (wid.y % ntiles) * BN;
  let cpad = (cin_g + BK - 1u) / BK * BK;
  let npad4 = ntiles * (BN / 4u);

  // This invocation's loader pixel (fixed over K).
  let lm = li % BM;
  let lk = li / BM;
  let gm = m0 + lm;
  let m_ok = gm < m_total;
  let lb = gm / qplane;
  let lq = gm % qplane;
  let qy = i32(lq / qw);
  let qx = i32(lq % qw);
  let hw = p.in_h * p.in_w;
  let xb = (lb * p.in_c + g * cin_g) * hw;

  let tx = li % 16u;
  let ty = li / 16u;
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);

  let steps = cpad / BK;
  for (var ky = 0u; ky < KH; ky = ky + 1u) {
    let ty0 = i32(py + p.pad_h) - i32(ky * DH);
    if (ty0 % i32(SH) != 0) { continue; }
    let iy = qy + ty0 / i32(SH);
    for (var kx = 0u; kx < KW; kx = kx + 1u) {
      let tx0 = i32(px + p.pad_w) - i32(kx * DW);
      if (tx0 % i32(SW) != 0) { continue; }
      let ix = qx + tx0 / i32(SW);
      let in_ok = m_ok && iy >= 0 && iy < i32(p.in_h) && ix >= 0 && ix < i32(p.in_w);
      let xoff = xb + u32(iy) * p.in_w + u32(ix);
      let wb = ((g * KH + ky) * KW + kx) * cpad;
      for (var t = 0u; t < steps; t = t + 1u) {
        let c0 = t * BK;
        for (var r = 0u; r < RA; r = r + 1u) {
          let kk = lk + LK * r;
          let c = c0 + kk;
          var v = 0.0;
          if (in_ok && c < cin_g) { v = x[xoff + c * hw]; }
          ta[kk * 16u + lm / 4u][lm % 4u] = v;
        }
        tb[li] = w[(wb + c0 + li / TY) * npad4 + n0 / 4u + li % TY];
        workgroupBarrier();
        for (var kk = 0u; kk < BK; kk = kk + 1u) {
          let av = ta[kk * 16u + tx];
          let bv = tb[kk * TY + ty];
          acc0 = fma(av, vec4<f32>(bv.x), acc0);
          acc1 = fma(av, vec4<f32>(bv.y), acc1);
          acc2 = fma(av, vec4<f32>(bv.z), acc2);
          acc3 = fma(av, vec4<f32>(bv.w), acc3);
        }
        workgroupBarrier();
      }
    }
  }

  var acc = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  let oplane = p.out_h * p.out_w;
  for (var j = 0u; j < 4u; j = j + 1u) {
    let oc = n0 + 4u * ty + j;
    if (oc >= cout_g) { break; }
    let o = g * cout_g + oc;
    let bo = bias_or_zero(o);
    for (var i = 0u; i < 4u; i = i + 1u) {
      let m = m0 + 4u * tx + i;
      if (m >= m_total) { break; }
      let b = m / qplane;
      let q = m - b * qplane;
      let oy = py + SH * (q / qw);
      let ox = px + SW * (q % qw);
      y[(b * p.out_c + o) * oplane + oy * p.out_w + ox] = finish(acc[j][i] + bo);
    }
  }
}
