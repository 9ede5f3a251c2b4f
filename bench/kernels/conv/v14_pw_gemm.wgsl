// v14-v17: conv2d_pw_gemm (src/webgpu/ops/conv/conv2d_pw_gemm.wgsl, modules expanded): the
// pointwise conv as a GEMM per image through matmul_large_tile's double-buffered, register-
// blocked tiling; the tile (BM output channels x BN pixels, BK, RM x RN per thread) as overrides.
// Pointwise 2-D convolution (1x1, stride 1, no padding, groups == 1) as a GEMM per image:
// y[b] [out_c, plane] = w [out_c, in_c] @ x[b] [in_c, plane], with the double-buffered,
// register-blocked tiling of the large matmuls (matmul_large_tile.inc.wgsl: M = output
// channels, N = pixels, K = input channels; workgroup z = image). Scalar global loads, so
// any channel count and plane size: consecutive threads read consecutive pixels of an input
// channel (coalesced) and store consecutive pixels of an output channel. The per-input-
// channel scale of x (a fused x * s[N|1, C, 1, 1]) is applied as the B tile is loaded;
// bias, clamp and the fused epilogue (residual add included) as the output is stored.
// Same Params and semantics as conv2d_pw.wgsl, which stays for small outputs (fewer tiles
// than this kernel needs to fill a GPU; bench/kernels/conv/README.md, pointwise section).
// The end of a pointwise conv's output element o (conv2d_pw, conv2d_pw_gemm): the clamp,
// then the fused epilogue with conv2d_pw's extra code 7, add a * residual[o] (a tensor
// shaped as y: a fused residual add), and the per-input-channel scale of x and the
// residual at bindings 5 and 6.
// conv2d shaders that read the weights as the program stores them (f32, [O, C/g, KH, KW]
// or [C, O/g, KH, KW] transposed): conv2d_params.inc.wgsl (Params, bindings 0 and 2-4,
// epilogue) plus binding 1 as array<f32>.
// What every conv2d shader shares whatever its weight layout: the uniform (ConvParams in
// register.cpp, whose static_assert pins the size), bindings 0 and 2-4, and the fused
// epilogue (the codes of EpilogueCode in webgpu/graph.h, applied in order by
// webgpu/fusion.cpp's plan). Binding 1, the weights, is declared by conv2d_common.inc.wgsl
// (f32, as the program stores them) or by a shader that reads them repacked (conv2d_block,
// conv2d_igemm); conv2d_splitk_reduce reads split-K partial sums at binding 0 and no weights.
// Flat indices of a 1-D dispatch folded into 2-D: Graph::set_grid (webgpu/graph.h) splits
// a grid of more workgroups than one dimension allows into x * y, so every shader turns
// (x, y) back into one index the same way. `wg` is the workgroup size (the shader's
// wg_size override).
fn flat_invocation(gid: vec3<u32>, nwg: vec3<u32>, wg: u32) -> u32 {
  return gid.x + gid.y * nwg.x * wg;
}
fn flat_workgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
struct Params {
  n: u32, in_c: u32, in_h: u32, in_w: u32,
  out_c: u32, out_h: u32, out_w: u32, groups: u32,
  k_h: u32, k_w: u32, stride_h: u32, stride_w: u32,
  pad_h: u32, pad_w: u32, dil_h: u32, dil_w: u32,
  total: u32, has_bias: u32, clamp_min: f32, clamp_max: f32,
  epi_n: u32, has_scale: u32, scale_bstride: u32, _p0: u32,  // fused epilogue / input scale
  epi: array<vec4<u32>, 6>,                                   // (code, bitcast a, -, -)
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

// One scalar epilogue step (codes 1-6); other codes (7, the residual add of conv2d_pw)
// are the caller's.
fn epilogue_step(v: f32, code: u32, a: f32) -> f32 {
  switch code {
    case 1u: { return max(v, a); }
    case 2u: { return min(v, a); }
    case 3u: { return v * clamp(v + 3.0, 0.0, 6.0) / 6.0; }  // hardswish
    case 4u: { return v + a; }
    case 5u: { return v * a; }
    case 6u: { return v / a; }
    default: { return v; }
  }
}

// The fused elementwise ops (graph fusion, webgpu/fusion.cpp), in order.
fn epilogue(v: f32) -> f32 {
  var r = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    r = epilogue_step(r, p.epi[k].x, bitcast<f32>(p.epi[k].y));
  }
  return r;
}

// The end of every scalar output: the clamp (et_vk.conv_with_clamp; +-inf bounds otherwise),
// then the fused epilogue.
fn finish(v: f32) -> f32 {
  let r = clamp(v, p.clamp_min, p.clamp_max);
  if (p.epi_n == 0u) { return r; }
  return epilogue(r);
}

// Where a sum over the kernel window starts: channel oc's bias, or 0.
fn bias_or_zero(oc: u32) -> f32 {
  if (p.has_bias != 0u) { return bias[oc]; }
  return 0.0;
}

// The shaders with one thread per output element (conv2d_direct, _transposed, _splitk_reduce,
// per_element.inc.wgsl) cover all `total` of them.
fn element_count() -> u32 { return p.total; }
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(5) var<storage, read> scale: array<f32>;
@group(0) @binding(6) var<storage, read> residual: array<f32>;

fn epilogue_res(v: f32, o: u32) -> f32 {
  var r = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    let a = bitcast<f32>(p.epi[k].y);
    if (p.epi[k].x == 7u) {
      r = r + a * residual[o];
    } else {
      r = epilogue_step(r, p.epi[k].x, a);
    }
  }
  return r;
}

fn finish_res(v: f32, o: u32) -> f32 {
  let r = clamp(v, p.clamp_min, p.clamp_max);
  if (p.epi_n == 0u) { return r; }
  return epilogue_res(r, o);
}
// The tiling of matmul_large.wgsl and matmul_large_vec4.wgsl, which differ only in the width
// of their global loads and stores (bench/kernels/matmul/ v8 and v13; measurements in its
// README). A BM x BN output tile per workgroup of (BN / RN) x (BM / RM) threads; each thread
// holds RM x RN outputs (RM, RN in {4, 8}) as 4x4 blocks spaced BM / (RM / 4) rows and
// BN / (RN / 4) columns apart, so a warp's shared-memory reads are consecutive vec4s and its
// stores to c are coalesced. K advances BK at a time through two shared-memory buffers: the
// next tile's global loads are issued into registers before the current tile's FMAs and
// stored to the other buffer after them, so one barrier per K step suffices.
// Shared tiles hold K-major rows: as_[kk][m] and bs_[kk][n], each read as vec4 along M / N.
// Workgroups: x over N tiles, y over M tiles, z over the batch.
//
// The includer defines the global side: `load_tile(li, bi, row0, col0, k0)` (K tile k0 of
// rows row0.. of a and columns col0.. of op(b) into registers), `store_tile(li, buf)` (those
// registers into shared buffer buf) and `store_block(bi, gm, gn, v)` (columns gn..gn+3 of
// row gm, gm < M and gn < N checked, v = a @ op(b) before the epilogue), and the sizes
// `tile_m()`, `tile_n()`, `tile_k()` (matmul_params.inc.wgsl: p.m, p.n, p.k; conv2d_pw_gemm:
// the output channels, the pixels, the input channels).
override trans_b: u32 = 0u;
override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 16u;
override RM: u32 = 8u;
override RN: u32 = 8u;

override TX: u32 = BN / RN;
override TY: u32 = BM / RM;
override NT: u32 = TX * TY;
// vec4s per shared tile (one buffer).
override A_V4: u32 = BM * BK / 4u;
override B_V4: u32 = BN * BK / 4u;

var<workgroup> as_: array<vec4<f32>, 2u * A_V4>;
var<workgroup> bs_: array<vec4<f32>, 2u * B_V4>;

@compute @workgroup_size(TX, TY, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let bi = wid.z;
  let tx = lid.x;
  let ty = lid.y;
  let GM = RM / 4u;  // 4-row blocks per thread
  let GN = RN / 4u;  // 4-column blocks per thread
  // acc[(g * 4 + i) * 2 + h]: row ty * 4 + i of row block g, columns of column block h.
  var acc: array<vec4<f32>, 16>;
  for (var i = 0u; i < 16u; i++) { acc[i] = vec4<f32>(0.0); }

  let nt = (tile_k() + BK - 1u) / BK;
  load_tile(li, bi, row0, col0, 0u);
  store_tile(li, 0u);
  workgroupBarrier();
  for (var t = 0u; t < nt; t++) {
    let cur = t & 1u;
    if (t + 1u < nt) { load_tile(li, bi, row0, col0, (t + 1u) * BK); }
    let abase = cur * A_V4;
    let bbase = cur * B_V4;
    for (var kk = 0u; kk < BK; kk++) {
      var av: array<vec4<f32>, 2>;
      var bv: array<vec4<f32>, 2>;
      for (var g = 0u; g < GM; g++) { av[g] = as_[abase + kk * (BM / 4u) + g * (BM / 4u / GM) + ty]; }
      for (var h = 0u; h < GN; h++) { bv[h] = bs_[bbase + kk * (BN / 4u) + h * (BN / 4u / GN) + tx]; }
      for (var g = 0u; g < GM; g++) {
        for (var h = 0u; h < GN; h++) {
          acc[(g * 4u + 0u) * 2u + h] = fma(vec4<f32>(av[g].x), bv[h], acc[(g * 4u + 0u) * 2u + h]);
          acc[(g * 4u + 1u) * 2u + h] = fma(vec4<f32>(av[g].y), bv[h], acc[(g * 4u + 1u) * 2u + h]);
          acc[(g * 4u + 2u) * 2u + h] = fma(vec4<f32>(av[g].z), bv[h], acc[(g * 4u + 2u) * 2u + h]);
          acc[(g * 4u + 3u) * 2u + h] = fma(vec4<f32>(av[g].w), bv[h], acc[(g * 4u + 3u) * 2u + h]);
        }
      }
    }
    if (t + 1u < nt) { store_tile(li, cur ^ 1u); }
    workgroupBarrier();
  }

  for (var g = 0u; g < GM; g++) {
    for (var i = 0u; i < 4u; i++) {
      let gm = row0 + g * (BM / GM) + ty * 4u + i;
      if (gm >= tile_m()) { continue; }
      for (var h = 0u; h < GN; h++) {
        let gn = col0 + h * (BN / GN) + tx * 4u;
        if (gn >= tile_n()) { continue; }
        store_block(bi, gm, gn, acc[(g * 4u + i) * 2u + h]);
      }
    }
  }
}

fn tile_m() -> u32 { return p.out_c; }
fn tile_n() -> u32 { return p.out_h * p.out_w; }
fn tile_k() -> u32 { return p.in_c; }

// Floats per thread's share of its global load.
override LA: u32 = BM * BK / NT;
override LB: u32 = BN * BK / NT;

var<private> ra: array<f32, 16>;
var<private> rb: array<f32, 16>;

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  let k = p.in_c;
  // A = w [out_c, in_c]: element e is row row0 + e / BK (clamped to the last: in bounds,
  // never stored), input channel k0 + e % BK (0 past in_c).
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let gk = k0 + e % BK;
    let row = min(row0 + e / BK, p.out_c - 1u);
    let v = w[row * k + min(gk, k - 1u)];
    ra[r] = select(0.0, v, gk < k);
  }
  // B = x[bi] [in_c, plane]: element e is channel k0 + e / BN, pixel col0 + e % BN.
  let plane = p.out_h * p.out_w;
  let xb = bi * k * plane;
  let sb = bi * p.scale_bstride;
  for (var r = 0u; r < LB; r++) {
    let e = li + NT * r;
    let gk = k0 + e / BN;
    let gn = col0 + e % BN;
    let kc = min(gk, k - 1u);
    var v = x[xb + kc * plane + min(gn, plane - 1u)];
    if (p.has_scale != 0u) { v = v * scale[sb + kc]; }
    rb[r] = select(0.0, v, gk < k && gn < plane);
  }
}

fn store_tile(li: u32, buf: u32) {
  let abase = buf * A_V4;
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let row = e / BK;
    as_[abase + (e % BK) * (BM / 4u) + row / 4u][row % 4u] = ra[r];
  }
  let bbase = buf * B_V4;
  for (var r = 0u; r < LB; r++) {
    let e = li + NT * r;
    let col = e % BN;
    bs_[bbase + (e / BN) * (BN / 4u) + col / 4u][col % 4u] = rb[r];
  }
}

// Pixels gn..gn+3 of output channel gm of image bi (gm < out_c and gn < plane checked by
// the caller; the last pixels here are checked).
fn store_block(bi: u32, gm: u32, gn: u32, v: vec4<f32>) {
  let plane = p.out_h * p.out_w;
  var bo = 0.0;
  if (p.has_bias != 0u) { bo = bias[gm]; }
  let base = (bi * p.out_c + gm) * plane;
  for (var j = 0u; j < 4u; j++) {
    if (gn + j >= plane) { return; }
    let o = base + gn + j;
    y[o] = finish_res(v[j] + bo, o);
  }
}
