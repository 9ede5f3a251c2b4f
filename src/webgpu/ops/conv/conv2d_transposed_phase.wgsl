// Transposed convolution, any stride, padding, dilation, output_padding and groups, as an
// implicit GEMM per output phase (bench/kernels/conv_transposed v3): the outputs (oy, ox)
// with oy % SH == py and ox % SW == px (workgroup z = py * SW + px) receive exactly the taps
// ky with (py + pad_h - ky * DH) % SH == 0 (and likewise kx), each from input row
// iy = oy / SH + (py + pad_h - ky * DH) / SH: per phase a small dense conv, M = that phase's
// output pixels (batch folded in), N = out_c / groups (workgroup y = group * channel tiles
// + tile), K = the phase's taps x in_c / groups, taps outer, channels inner in steps of 16
// (the tile of conv2d_igemm_tile.inc.wgsl).
// Weights repacked at graph build (ops/conv/register.cpp) to wr[groups][KH][KW][Cpad][Npad]
// (Cpad = in_c / groups rounded up to 16, Npad = out_c / groups rounded up to BN, zeros in
// the padding): one unchecked vec4 load per invocation per step fills the B tile; the A
// tile is gathered with a bounds check per value (borders, padding). Tap validity depends
// only on the workgroup, so the barriers stay in uniform control flow. A phase without
// taps (stride past the kernel) writes bias. Same Params and bindings as conv2d_igemm.
//#include "conv2d_igemm_tile.inc.wgsl"

// The loader row under one tap: off is the input pixel's channel 0 of the group, ok whether
// the pixel is inside the input.
struct ALoader { ok: bool, off: u32, hw: u32, cin_g: u32 }

// Channel k of the group at the pixel.
fn a_value(a: ALoader, k: u32) -> f32 {
  if (a.ok && k < a.cin_g) { return x[a.off + k * a.hw]; }
  return 0.0;
}

struct TileOut { g: u32, cout_g: u32, qplane: u32, qw: u32, py: u32, px: u32 }

// This phase's output pixel m (batch folded in) of the group's channel n.
fn store_result(o: TileOut, m: u32, n: u32, v: f32) {
  let oc = o.g * o.cout_g + n;
  let b = m / o.qplane;
  let q = m - b * o.qplane;
  let oy = o.py + SH * (q / o.qw);
  let ox = o.px + SW * (q % o.qw);
  y[(b * p.out_c + oc) * (p.out_h * p.out_w) + oy * p.out_w + ox] = finish(v + bias_or_zero(oc));
}

// TX x TY invocations (li = lid.x + TX lid.y): the K step's shared reads at lid.x / lid.y,
// which Tint bounds, so robustness adds no clamp to them (conv2d_igemm_tile.inc.wgsl).
@compute @workgroup_size(TX, TY)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
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
  let gm = m0 + li % BM;
  let m_ok = gm < m_total;
  let lq = gm % qplane;
  let qy = i32(lq / qw);
  let qx = i32(lq % qw);
  let hw = p.in_h * p.in_w;
  let xb = ((gm / qplane) * p.in_c + g * cin_g) * hw;

  var acc: array<vec4<f32>, 8>;  // 4 unless RM is 8 (the rest folds away)
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
      let a = ALoader(in_ok, xb + u32(iy) * p.in_w + u32(ix), hw, cin_g);
      let wb = ((g * KH + ky) * KW + kx) * cpad;
      for (var t = 0u; t < steps; t = t + 1u) {
        tile_fill(a, li, t * BK, wb + t * BK, npad4, n0);
        for (var kk = 0u; kk < BK; kk = kk + 1u) {
          let bv = tb[kk * TY + lid.y];
          tile_fma_rows(&acc, ta[kk * 16u + lid.x], bv);
          if (RM > 4u) { tile_fma_rows_hi(&acc, ta[kk * 16u + lid.x + 8u], bv); }
        }
        workgroupBarrier();
      }
    }
  }
  tile_store(TileOut(g, cout_g, qplane, qw, py, px), acc, li, m0, n0, m_total, cout_g);
}
