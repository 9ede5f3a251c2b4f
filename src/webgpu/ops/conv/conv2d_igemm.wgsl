// Implicit-GEMM convolution for groups == 1 (1-D runs as height 1), the shared-memory tiled
// kernel of bench/kernels/conv (v5/v6): M = output pixels (batch folded in), N = output
// channels, K = in_c * KH * KW in the weight's own order (c, ky, kx). A workgroup computes
// a 64-pixel x BN-channel tile (BN = 64: 16x16 invocations; BN = 32: 16x8), each
// invocation 4 consecutive pixels x 4 consecutive channels (4 vec4 accumulators over
// pixels). K runs in steps of 16 through shared memory: the A tile is the im2col of the
// input gathered on the fly (padding/stride/dilation checks; consecutive invocations read
// consecutive pixels), the B tile comes from weights repacked at graph build
// (ops/conv/register.cpp) as wT[Kpad][Npad], zero-padded to whole tiles, so one unchecked
// vec4 load per invocation fills it.
// Split-K (ks > 1, for layers with too few tiles to fill the GPU): workgroup z sums its
// share of the K steps and writes the raw partial sums to y[z * total + i] (y is then a
// scratch buffer); conv2d_splitk_reduce.wgsl adds them up with bias, clamp and epilogue.
// With ks == 1 this shader applies those itself. Same Params, bindings 0 and 2-4
// (conv2d_params.inc.wgsl) and semantics as conv2d_block.
//#include "conv2d_repacked.inc.wgsl"

override ks: u32 = 1;   // K splits (workgroups along z)
override BN: u32 = 64;  // 64 or 32 output channels per tile

const BM: u32 = 64u;             // output pixels per tile
const BK: u32 = 16u;             // K per shared-memory step
override TY: u32 = BN / 4u;      // invocations along channels (16 or 8)
override T: u32 = 16u * TY;      // workgroup size (256 or 128) = BK * BN / 4: one B vec4 each
override LK: u32 = T / BM;       // A-tile rows one pass of the workgroup loads (4 or 2)
override RA: u32 = BK / LK;      // A values per invocation per step (4 or 8)

var<workgroup> ta: array<vec4<f32>, 256>;  // [BK][BM / 4]: 4 consecutive pixels per vec4
var<workgroup> tb: array<vec4<f32>, 256>;  // [BK][BN / 4]: 4 consecutive channels per vec4

@compute @workgroup_size(T)
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
  let lk = li / BM;
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
    for (var r = 0u; r < RA; r = r + 1u) {
      let kk = lk + LK * r;
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
  for (var j = 0u; j < 4u; j = j + 1u) {
    let o = n0 + 4u * ty + j;
    if (o >= p.out_c) { break; }
    var bo = 0.0;
    if (ks == 1u && p.has_bias != 0u) { bo = bias[o]; }
    for (var i = 0u; i < 4u; i = i + 1u) {
      let m = m0 + 4u * tx + i;
      if (m >= m_total) { break; }
      let oi = ((m / plane) * p.out_c + o) * plane + m % plane;
      if (ks == 1u) {
        y[oi] = finish(acc[j][i] + bo);
      } else {
        y[wid.z * p.total + oi] = acc[j][i];
      }
    }
  }
}
