// Implicit-GEMM convolution (groups == 1): M = output pixels (batch folded in), N = output
// channels, K = in_c * KH * KW in the weight's own order (c, ky, kx). A workgroup of 16x16
// invocations computes a 64-pixel x 64-channel tile; each invocation 4 consecutive pixels
// x 4 consecutive channels (4 vec4 accumulators over pixels). K runs in steps of 16
// through shared memory: the A tile (im2col of the input, gathered on the fly with
// padding/stride/dilation checks; consecutive invocations read consecutive pixels) and the
// B tile (weights repacked on the host as wT[Kpad][Npad], zero-padded to whole tiles, so
// one unchecked vec4 load per invocation fills it).
// Split-K: workgroup z takes a share of the K steps. With ks == 1 the result gets bias,
// clamp and the fused epilogue and goes to y; with ks > 1 the raw partial sums go to
// y[z * total + ...] and a reduce pass (splitk_reduce.wgsl) finishes them.
struct Params {
  n: u32, in_c: u32, in_h: u32, in_w: u32,
  out_c: u32, out_h: u32, out_w: u32, groups: u32,
  k_h: u32, k_w: u32, stride_h: u32, stride_w: u32,
  pad_h: u32, pad_w: u32, dil_h: u32, dil_w: u32,
  total: u32, has_bias: u32, clamp_min: f32, clamp_max: f32,
  epi_n: u32, has_scale: u32, scale_bstride: u32, _p0: u32,
  epi: array<vec4<u32>, 6>,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;  // wT [Kpad][Npad / 4]
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override KH: u32 = 3;
override KW: u32 = 3;
override SH: u32 = 1;
override SW: u32 = 1;
override DH: u32 = 1;
override DW: u32 = 1;
override ks: u32 = 1;

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 16u;

var<workgroup> ta: array<vec4<f32>, 256>;  // [BK][BM / 4]: 4 consecutive pixels per vec4
var<workgroup> tb: array<vec4<f32>, 256>;  // [BK][BN / 4]: 4 consecutive channels per vec4

fn epilogue(v: f32) -> f32 {
  var r = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    let a = bitcast<f32>(p.epi[k].y);
    switch p.epi[k].x {
      case 1u: { r = max(r, a); }
      case 2u: { r = min(r, a); }
      case 3u: { r = r * clamp(r + 3.0, 0.0, 6.0) / 6.0; }
      case 4u: { r = r + a; }
      case 5u: { r = r * a; }
      case 6u: { r = r / a; }
      default: {}
    }
  }
  return r;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let plane = p.out_h * p.out_w;
  let m_total = p.n * plane;
  let kk_n = KH * KW;
  let k_total = p.in_c * kk_n;
  let npad4 = ((p.out_c + BN - 1u) / BN) * (BN / 4u);
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;

  // This invocation's loader pixel (fixed over K) and its rows of the A tile.
  let lm = li % BM;
  let lk = li / BM;  // 0..3; rows lk, lk + 4, lk + 8, lk + 12
  let gm = m0 + lm;
  let m_ok = gm < m_total;
  let b = gm / plane;
  let pix = gm % plane;
  let iy0 = i32((pix / p.out_w) * SH) - i32(p.pad_h);
  let ix0 = i32((pix % p.out_w) * SW) - i32(p.pad_w);
  let hw = p.in_h * p.in_w;
  let xb = b * p.in_c * hw;

  let tx = li % 16u;  // pixels 4 tx .. 4 tx + 3
  let ty = li / 16u;  // channels 4 ty .. 4 ty + 3
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);

  let steps = (k_total + BK - 1u) / BK;
  let t0 = (wid.z * steps) / ks;
  let t1 = ((wid.z + 1u) * steps) / ks;
  for (var t = t0; t < t1; t = t + 1u) {
    let k0 = t * BK;
    for (var r = 0u; r < 4u; r = r + 1u) {
      let kk = lk + 4u * r;
      let k = k0 + kk;
      let c = k / kk_n;
      let rem = k - c * kk_n;
      let ky = rem / KW;
      let kx = rem - ky * KW;
      let iy = iy0 + i32(ky * DH);
      let ix = ix0 + i32(kx * DW);
      var v = 0.0;
      if (m_ok && k < k_total && iy >= 0 && iy < i32(p.in_h) && ix >= 0 && ix < i32(p.in_w)) {
        v = x[xb + c * hw + u32(iy) * p.in_w + u32(ix)];
      }
      ta[kk * 16u + lm / 4u][lm % 4u] = v;
    }
    // B: 16 rows x 16 vec4s, one per invocation.
    tb[li] = w[(k0 + li / 16u) * npad4 + n0 / 4u + li % 16u];
    workgroupBarrier();
    for (var kk = 0u; kk < BK; kk = kk + 1u) {
      let av = ta[kk * 16u + tx];
      let bv = tb[kk * 16u + ty];
      acc0 = fma(av, vec4<f32>(bv.x), acc0);
      acc1 = fma(av, vec4<f32>(bv.y), acc1);
      acc2 = fma(av, vec4<f32>(bv.z), acc2);
      acc3 = fma(av, vec4<f32>(bv.w), acc3);
    }
    workgroupBarrier();
  }

  var acc = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  for (var j = 0u; j < 4u; j = j + 1u) {
    let o = n0 + 4u * ty + j;
    if (o >= p.out_c) { break; }
    var bo = 0.0;
    if (ks == 1u && p.has_bias != 0u) { bo = bias[o]; }
    for (var i = 0u; i < 4u; i = i + 1u) {
      let m = m0 + 4u * tx + i;
      if (m >= m_total) { break; }
      let mb = m / plane;
      let mp = m % plane;
      let oi = (mb * p.out_c + o) * plane + mp;
      if (ks == 1u) {
        var r = clamp(acc[j][i] + bo, p.clamp_min, p.clamp_max);
        if (p.epi_n != 0u) { r = epilogue(r); }
        y[oi] = r;
      } else {
        y[wid.z * p.total + oi] = acc[j][i];
      }
    }
  }
}
