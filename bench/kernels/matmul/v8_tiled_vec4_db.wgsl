// Variant 8 (v8-v12, v15, v31 in matmul_bench.cpp, by overrides): large-shape fp32 matmul.
// fma_literal = 1 (v31): the inner FMA block written out, every acc element and operand by a
// literal index (for Dawn's robustness under dawn.node: matmul_f16_node.mjs "f32lit").
// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias. trans_b = 1: b is [N, K] (a linear
// weight), else [K, N]. Needs K % 4 == 0 and N % 4 == 0 (every load and store is a vec4);
// M, N and K need not be multiples of the tile.
//
// A BM x BN output tile per workgroup of (BN / RN) x (BM / RM) threads; each thread holds
// RM x RN outputs (RM, RN in {4, 8}) as 4x4 blocks spaced BM / (RM / 4) rows and
// BN / (RN / 4) columns apart, so a warp's shared-memory reads are consecutive vec4s and
// its stores to c are coalesced. K advances BK at a time through two shared-memory buffers:
// the next tile's global loads are issued into registers before the current tile's FMAs and
// stored to the other buffer after them, so one barrier per K step suffices.
// Shared tiles hold K-major rows: as_[kk][m] and bs_[kk][n], each read as vec4 along M / N.
struct Params {
  m: u32, n: u32, k: u32, batch: u32,
  a_bs: u32, b_bs: u32, c_bs: u32, bias_mode: u32,
  bias_rs: u32, bias_cs: u32, _p0: u32, _p1: u32,
  alpha: f32, beta: f32, _p2: f32, _p3: f32,
}

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> p: Params;

override trans_b: u32 = 0u;
override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 16u;
override RM: u32 = 8u;
override RN: u32 = 8u;
override fma_literal: u32 = 0u;

override TX: u32 = BN / RN;
override TY: u32 = BM / RM;
override NT: u32 = TX * TY;
// vec4s per shared tile (one buffer) and per thread's share of its global load.
override A_V4: u32 = BM * BK / 4u;
override B_V4: u32 = BN * BK / 4u;
override LA: u32 = A_V4 / NT;
override LB: u32 = B_V4 / NT;

var<workgroup> as_: array<vec4<f32>, 2u * A_V4>;
var<workgroup> bs_: array<vec4<f32>, 2u * B_V4>;

// Global loads of one K tile, in registers between issue and the shared-memory store.
var<private> ra: array<vec4<f32>, 8>;
var<private> rb: array<vec4<f32>, 8>;

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  let kq_n = BK / 4u;
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let row = e / kq_n;
    let gk = k0 + (e % kq_n) * 4u;
    let gm = min(row0 + row, p.m - 1u);
    let v = a[(bi * p.a_bs + gm * p.k + gk) / 4u];
    ra[r] = select(vec4<f32>(0.0), v, gk < p.k);
  }
  if (trans_b == 1u) {
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let col = e / kq_n;
      let gk = k0 + (e % kq_n) * 4u;
      let gn = min(col0 + col, p.n - 1u);
      let v = b[(bi * p.b_bs + gn * p.k + gk) / 4u];
      rb[r] = select(vec4<f32>(0.0), v, gk < p.k);
    }
  } else {
    let nq_n = BN / 4u;
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let gk = k0 + e / nq_n;
      let gn = col0 + (e % nq_n) * 4u;
      let v = b[(bi * p.b_bs + min(gk, p.k - 1u) * p.n + min(gn, p.n - 4u)) / 4u];
      rb[r] = select(vec4<f32>(0.0), v, gk < p.k && gn < p.n);
    }
  }
}

fn store_tile(li: u32, buf: u32) {
  let kq_n = BK / 4u;
  let abase = buf * A_V4;
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let row = e / kq_n;
    let kk = (e % kq_n) * 4u;
    let v = ra[r];
    as_[abase + kk * (BM / 4u) + row / 4u][row % 4u] = v.x;
    as_[abase + (kk + 1u) * (BM / 4u) + row / 4u][row % 4u] = v.y;
    as_[abase + (kk + 2u) * (BM / 4u) + row / 4u][row % 4u] = v.z;
    as_[abase + (kk + 3u) * (BM / 4u) + row / 4u][row % 4u] = v.w;
  }
  let bbase = buf * B_V4;
  if (trans_b == 1u) {
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let col = e / kq_n;
      let kk = (e % kq_n) * 4u;
      let v = rb[r];
      bs_[bbase + kk * (BN / 4u) + col / 4u][col % 4u] = v.x;
      bs_[bbase + (kk + 1u) * (BN / 4u) + col / 4u][col % 4u] = v.y;
      bs_[bbase + (kk + 2u) * (BN / 4u) + col / 4u][col % 4u] = v.z;
      bs_[bbase + (kk + 3u) * (BN / 4u) + col / 4u][col % 4u] = v.w;
    }
  } else {
    for (var r = 0u; r < LB; r++) {
      bs_[bbase + li + NT * r] = rb[r];
    }
  }
}

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

  let nt = (p.k + BK - 1u) / BK;
  load_tile(li, bi, row0, col0, 0u);
  store_tile(li, 0u);
  workgroupBarrier();
  for (var t = 0u; t < nt; t++) {
    let cur = t & 1u;
    if (t + 1u < nt) { load_tile(li, bi, row0, col0, (t + 1u) * BK); }
    let abase = cur * A_V4;
    let bbase = cur * B_V4;
    for (var kk = 0u; kk < BK; kk++) {
      if (fma_literal == 1u) {
        // Operands in plain values and every acc element by a literal index (no loop over g, h):
        // under robustness Tint clamps each dynamic index, and the clamp may keep acc out of
        // registers. GM, GN (1 or 2) are pipeline constants: the unused half folds away.
        let a0 = as_[abase + kk * (BM / 4u) + ty];
        let a1 = as_[abase + kk * (BM / 4u) + select(0u, BM / 8u, GM > 1u) + ty];
        let b0 = bs_[bbase + kk * (BN / 4u) + tx];
        let b1 = bs_[bbase + kk * (BN / 4u) + select(0u, BN / 8u, GN > 1u) + tx];
        acc[0] = fma(vec4<f32>(a0.x), b0, acc[0]);
        if (GN > 1u) { acc[1] = fma(vec4<f32>(a0.x), b1, acc[1]); }
        acc[2] = fma(vec4<f32>(a0.y), b0, acc[2]);
        if (GN > 1u) { acc[3] = fma(vec4<f32>(a0.y), b1, acc[3]); }
        acc[4] = fma(vec4<f32>(a0.z), b0, acc[4]);
        if (GN > 1u) { acc[5] = fma(vec4<f32>(a0.z), b1, acc[5]); }
        acc[6] = fma(vec4<f32>(a0.w), b0, acc[6]);
        if (GN > 1u) { acc[7] = fma(vec4<f32>(a0.w), b1, acc[7]); }
        if (GM > 1u) {
          acc[8] = fma(vec4<f32>(a1.x), b0, acc[8]);
          if (GN > 1u) { acc[9] = fma(vec4<f32>(a1.x), b1, acc[9]); }
          acc[10] = fma(vec4<f32>(a1.y), b0, acc[10]);
          if (GN > 1u) { acc[11] = fma(vec4<f32>(a1.y), b1, acc[11]); }
          acc[12] = fma(vec4<f32>(a1.z), b0, acc[12]);
          if (GN > 1u) { acc[13] = fma(vec4<f32>(a1.z), b1, acc[13]); }
          acc[14] = fma(vec4<f32>(a1.w), b0, acc[14]);
          if (GN > 1u) { acc[15] = fma(vec4<f32>(a1.w), b1, acc[15]); }
        }
      } else {
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
    }
    if (t + 1u < nt) { store_tile(li, cur ^ 1u); }
    workgroupBarrier();
  }

  for (var g = 0u; g < GM; g++) {
    for (var i = 0u; i < 4u; i++) {
      let gm = row0 + g * (BM / GM) + ty * 4u + i;
      if (gm >= p.m) { continue; }
      for (var h = 0u; h < GN; h++) {
        let gn = col0 + h * (BN / GN) + tx * 4u;
        if (gn >= p.n) { continue; }
        var r = p.alpha * acc[(g * 4u + i) * 2u + h];
        if (p.bias_mode != 0u) {
          let bb = gm * p.bias_rs + gn * p.bias_cs;
          r = r + p.beta * vec4<f32>(bias[bb], bias[bb + p.bias_cs], bias[bb + 2u * p.bias_cs],
                                     bias[bb + 3u * p.bias_cs]);
        }
        c[(bi * p.c_bs + gm * p.n + gn) / 4u] = r;
      }
    }
  }
}
