// kernel == stride, no padding, dilation 1, groups 1: the transposed conv is one GEMM
// [input pixels (batch folded in), in_c] x [in_c, out_c * KH * KW] whose every result lands
// on exactly one output element (input pixel (iy, ix), column (oc, ky, kx) -> output
// (oc, iy * KH + ky, ix * KW + kx)): no sums across taps. B is the weight itself
// ([in_c][out_c][KH][KW] is [K][N] row-major), zero-padded on the host to wT[Kpad][Npad]
// so one unchecked vec4 load per invocation fills the B tile. A workgroup computes
// 64 pixels x BN columns (16 x BN/4 invocations, 4 pixels x 4 columns each), K in steps
// of 16 through shared memory; the store scatters each result to its output element with
// bias and clamp (consecutive invocations hold consecutive pixels, so a warp's stores to
// one output row are KW-wide runs side by side).
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;  // wT [Kpad][Npad / 4]

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
  let plane = p.in_h * p.in_w;
  let m_total = p.n * plane;
  let kk_n = KH * KW;
  let n_total = p.out_c * kk_n;
  let npad4 = ((n_total + BN - 1u) / BN) * (BN / 4u);
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;

  let lm = li % BM;
  let lk = li / BM;
  let gm = m0 + lm;
  let m_ok = gm < m_total;
  let xb = (gm / plane) * p.in_c * plane + gm % plane;

  let tx = li % 16u;
  let ty = li / 16u;
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);

  let steps = (p.in_c + BK - 1u) / BK;
  for (var t = 0u; t < steps; t = t + 1u) {
    let k0 = t * BK;
    for (var r = 0u; r < RA; r = r + 1u) {
      let kk = lk + LK * r;
      let c = k0 + kk;
      var v = 0.0;
      if (m_ok && c < p.in_c) { v = x[xb + c * plane]; }
      ta[kk * 16u + lm / 4u][lm % 4u] = v;
    }
    tb[li] = w[(k0 + li / TY) * npad4 + n0 / 4u + li % TY];
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

  var acc = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  let oplane = p.out_h * p.out_w;
  for (var j = 0u; j < 4u; j = j + 1u) {
    let col = n0 + 4u * ty + j;
    if (col >= n_total) { break; }
    let o = col / kk_n;
    let tap = col - o * kk_n;
    let ky = tap / KW;
    let kx = tap - ky * KW;
    let bo = bias_or_zero(o);
    for (var i = 0u; i < 4u; i = i + 1u) {
      let m = m0 + 4u * tx + i;
      if (m >= m_total) { break; }
      let b = m / plane;
      let pix = m - b * plane;
      let iy = pix / p.in_w;
      let ix = pix - iy * p.in_w;
      y[(b * p.out_c + o) * oplane + (iy * KH + ky) * p.out_w + ix * KW + kx] = finish(acc[j][i] + bo);
    }
  }
}
