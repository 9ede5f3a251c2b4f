// v5/v6 (the shipped conv2d_igemm: 64 x BN tile, 4 pixels x 4 channels per invocation, one
// shared buffer, BK 16) with K in the order (ky, kx, c) instead of the weight's own (c, ky,
// kx), each tap's channels padded to a multiple of 16 (K = KH * KW * cpad). A K step then
// lies within one tap: the tap's input position and its bounds check are worked out once
// per step, not once per element, and the step's elements of a pixel are one channel stride
// (hw) apart. In v5/v6 each gathered element paid two divisions' worth of index math and a
// four-way bounds check, about as many instructions per step as the FMAs at BN 32
// (bench/kernels/conv/README.md, v15). The weights are repacked on the host in that order
// (wT[tap * cpad + c][Npad], zeros for c >= in_c).
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

override BM: u32 = 64u;  // 64 only (16 invocations along pixels)
override BN: u32 = 64u;  // 64 or 32
const BK: u32 = 16u;

var<workgroup> ta: array<vec4<f32>, 256>;  // [BK][BM / 4]: 4 consecutive pixels per vec4
override BV: u32 = BK * BN / 4u;
var<workgroup> tb: array<vec4<f32>, BV>;  // [BK][BN / 4]: 4 consecutive channels per vec4 (6 KiB in all at BN 32)

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

override TY: u32 = BN / 4u;   // invocations along channels (16 or 8)
override T: u32 = 16u * TY;    // workgroup size (256 or 128)
override LK: u32 = T / BM;     // A-tile rows one pass loads (4 or 2)
override RA: u32 = BK / LK;    // A values per invocation per step (4 or 8)

@compute @workgroup_size(T)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let plane = p.out_h * p.out_w;
  let m_total = p.n * plane;
  let cpad = (p.in_c + BK - 1u) / BK * BK;
  let csteps = cpad / BK;  // K steps per tap
  let npad4 = ((p.out_c + BN - 1u) / BN) * (BN / 4u);
  let m0 = wid.x * BM;
  let n0 = wid.y * BN;

  // This invocation's loader pixel (fixed over K) and its rows of the A tile.
  let lm = li % BM;
  let lk = li / BM;  // rows lk, lk + LK, ...
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

  let steps = KH * KW * csteps;
  let t0 = (wid.z * steps) / ks;
  let t1 = ((wid.z + 1u) * steps) / ks;
  for (var t = t0; t < t1; t = t + 1u) {
    // The step's tap and first channel; the tap's input position, checked once.
    let tap = t / csteps;
    let c0 = (t - tap * csteps) * BK;
    let ky = tap / KW;
    let kx = tap - ky * KW;
    let iy = iy0 + i32(ky * DH);
    let ix = ix0 + i32(kx * DW);
    let in_ok = m_ok && iy >= 0 && iy < i32(p.in_h) && ix >= 0 && ix < i32(p.in_w);
    let base = xb + select(0u, u32(iy) * p.in_w + u32(ix), in_ok);
    for (var r = 0u; r < RA; r = r + 1u) {
      let kk = lk + LK * r;
      let c = c0 + kk;
      var v = 0.0;
      if (in_ok && c < p.in_c) { v = x[base + c * hw]; }
      ta[kk * 16u + lm / 4u][lm % 4u] = v;
    }
    // B: 16 rows x BN / 4 vec4s, one per invocation.
    tb[li] = w[(t * BK + li / TY) * npad4 + n0 / 4u + li % TY];
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

  // Accumulators by literal index only (a loop index into them can put them in local
  // memory on NVIDIA: bench/kernels/matmul/README.md, "Two traps").
  store4(acc0, m0 + 4u * tx, n0 + 4u * ty, m_total, plane, wid.z);
  store4(acc1, m0 + 4u * tx, n0 + 4u * ty + 1u, m_total, plane, wid.z);
  store4(acc2, m0 + 4u * tx, n0 + 4u * ty + 2u, m_total, plane, wid.z);
  store4(acc3, m0 + 4u * tx, n0 + 4u * ty + 3u, m_total, plane, wid.z);
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
