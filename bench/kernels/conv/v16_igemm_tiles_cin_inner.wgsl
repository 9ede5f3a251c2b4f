// v9 (BM x BN tile as overrides, 8 pixels x 4 channels per invocation, the next K step's
// global loads in registers during the FMAs, two shared buffers) with v15's K order (ky,
// kx, c), each tap's channels padded to a multiple of 16: one tap per K step, its bounds
// check once per step. Weights as in v15. The rest as v9:
// v8 with the tile as override constants, so one shader serves every tile shape: BM
// pixels (64 or 128) x BN channels (32 or 64) per workgroup of (BM / 8) x (BN / 4)
// invocations, each 8 pixels (4 tx .. 4 tx + 3 and BM / 2 + 4 tx ..) x 4 channels. The
// next K step's global loads go to registers before the current step's FMAs; two shared
// buffers, one barrier per K step. As v5:
// Implicit-GEMM convolution (groups == 1): M = output pixels (batch folded in), N = output
// channels, K = in_c * KH * KW in the weight's own order (c, ky, kx), in steps of 16. The A
// tile is the im2col of the input gathered on the fly (padding/stride/dilation checks;
// consecutive invocations read consecutive pixels), the B tile comes from weights
// repacked on the host as wT[Kpad][Npad] (zero-padded to whole tiles: unchecked vec4 loads).
// Split-K: workgroup z takes a share of the K steps; with ks > 1 the raw partial sums go
// to y[z * total + ...] for splitk_reduce.wgsl.
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
override BM: u32 = 128;  // 64 or 128
override BN: u32 = 64;   // 32 or 64

const BK: u32 = 16u;
override TX: u32 = BM / 8u;        // invocations along pixels
override TY: u32 = BN / 4u;        // invocations along channels
override T: u32 = TX * TY;         // workgroup size
override LK: u32 = T / BM;         // A-tile rows loaded at once (1 or 2)
override RA: u32 = BK / LK;        // A values per invocation per K step (16 or 8)
override RB: u32 = 128u / BM;      // B vec4s per invocation per K step (1 or 2)
override AV: u32 = BK * BM / 4u;   // vec4s of one A buffer
override BV: u32 = BK * BN / 4u;   // vec4s of one B buffer

var<workgroup> ta: array<vec4<f32>, 2u * AV>;
var<workgroup> tb: array<vec4<f32>, 2u * BV>;

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

@compute @workgroup_size(T)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let plane = p.out_h * p.out_w;
  let m_total = p.n * plane;
  let npad4 = ((p.out_c + BN - 1u) / BN) * (BN / 4u);
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;

  // This invocation's loader pixel (fixed over K) and its rows of the A tile.
  let lm = li % BM;
  let lk = li / BM;
  let gm = m0 + lm;
  let m_ok = gm < m_total;
  let b = gm / plane;
  let pix = gm % plane;
  let iy0 = i32((pix / p.out_w) * SH) - i32(p.pad_h);
  let ix0 = i32((pix % p.out_w) * SW) - i32(p.pad_w);
  let hw = p.in_h * p.in_w;
  let xb = b * p.in_c * hw;
  let in_h = i32(p.in_h);
  let in_w = i32(p.in_w);

  let tx = li % TX;
  let ty = li / TX;
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);
  var acc4 = vec4<f32>(0.0);
  var acc5 = vec4<f32>(0.0);
  var acc6 = vec4<f32>(0.0);
  var acc7 = vec4<f32>(0.0);

  let csteps = (p.in_c + BK - 1u) / BK;  // K steps per tap
  let steps = KH * KW * csteps;
  let t0 = (wid.z * steps) / ks;
  let t1 = ((wid.z + 1u) * steps) / ks;
  var ra: array<f32, 16>;
  var rb: array<vec4<f32>, 2>;
  for (var t = t0; t <= t1; t = t + 1u) {
    if (t > t0) {
      // Registers (step t - 1) -> shared buffer (t - 1 - t0) % 2.
      let abase = ((t - 1u - t0) & 1u) * AV;
      let bbase = ((t - 1u - t0) & 1u) * BV;
      for (var r = 0u; r < RA; r = r + 1u) {
        ta[abase + (lk + LK * r) * (BM / 4u) + lm / 4u][lm % 4u] = ra[r];
      }
      for (var r = 0u; r < RB; r = r + 1u) { tb[bbase + li + T * r] = rb[r]; }
      workgroupBarrier();
    }
    if (t < t1) {
      // Global loads of step t (in flight during step t - 1's FMAs below).
      let k0 = t * BK;
      let tap = t / csteps;
      let c0 = (t - tap * csteps) * BK;
      let ky = tap / KW;
      let kx = tap - ky * KW;
      let iy = iy0 + i32(ky * DH);
      let ix = ix0 + i32(kx * DW);
      let in_ok = m_ok && iy >= 0 && iy < in_h && ix >= 0 && ix < in_w;
      let base = xb + select(0u, u32(iy) * p.in_w + u32(ix), in_ok);
      for (var r = 0u; r < RA; r = r + 1u) {
        let c = c0 + lk + LK * r;
        var v = 0.0;
        if (in_ok && c < p.in_c) { v = x[base + c * hw]; }
        ra[r] = v;
      }
      for (var r = 0u; r < RB; r = r + 1u) {
        let e = li + T * r;
        rb[r] = w[(k0 + e / TY) * npad4 + n0 / 4u + e % TY];
      }
    }
    if (t > t0) {
      let abase = ((t - 1u - t0) & 1u) * AV;
      let bbase = ((t - 1u - t0) & 1u) * BV;
      for (var kk = 0u; kk < BK; kk = kk + 1u) {
        let av = ta[abase + kk * (BM / 4u) + tx];
        let aw = ta[abase + kk * (BM / 4u) + TX + tx];
        let bv = tb[bbase + kk * TY + ty];
        acc0 = fma(av, vec4<f32>(bv.x), acc0);
        acc1 = fma(av, vec4<f32>(bv.y), acc1);
        acc2 = fma(av, vec4<f32>(bv.z), acc2);
        acc3 = fma(av, vec4<f32>(bv.w), acc3);
        acc4 = fma(aw, vec4<f32>(bv.x), acc4);
        acc5 = fma(aw, vec4<f32>(bv.y), acc5);
        acc6 = fma(aw, vec4<f32>(bv.z), acc6);
        acc7 = fma(aw, vec4<f32>(bv.w), acc7);
      }
    }
  }

  // Accumulators by literal index only (v15).
  let ma = m0 + 4u * tx;
  let mb = ma + BM / 2u;
  let o = n0 + 4u * ty;
  store4(acc0, ma, o, m_total, plane, wid.z);
  store4(acc1, ma, o + 1u, m_total, plane, wid.z);
  store4(acc2, ma, o + 2u, m_total, plane, wid.z);
  store4(acc3, ma, o + 3u, m_total, plane, wid.z);
  store4(acc4, mb, o, m_total, plane, wid.z);
  store4(acc5, mb, o + 1u, m_total, plane, wid.z);
  store4(acc6, mb, o + 2u, m_total, plane, wid.z);
  store4(acc7, mb, o + 3u, m_total, plane, wid.z);
}
// Pixels m .. m + 3 of channel o, those within the output.
fn store4(v: vec4<f32>, m: u32, o: u32, m_total: u32, plane: u32, z: u32) {
  if (o >= p.out_c) { return; }
  store1(v.x, m, o, m_total, plane, z);
  store1(v.y, m + 1u, o, m_total, plane, z);
  store1(v.z, m + 2u, o, m_total, plane, z);
  store1(v.w, m + 3u, o, m_total, plane, z);
}

fn store1(v: f32, m: u32, o: u32, m_total: u32, plane: u32, z: u32) {
  if (m >= m_total) { return; }
  let oi = ((m / plane) * p.out_c + o) * plane + m % plane;
  if (ks == 1u) {
    var bo = 0.0;
    if (p.has_bias != 0u) { bo = bias[o]; }
    var r = clamp(v + bo, p.clamp_min, p.clamp_max);
    if (p.epi_n != 0u) { r = epilogue(r); }
    y[oi] = r;
  } else {
    y[z * p.total + oi] = v;
  }
}
