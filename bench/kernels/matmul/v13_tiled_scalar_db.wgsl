// Variant 13 (v13-v14 in matmul_bench.cpp): v8's tiling, double buffering and register
// blocking with scalar global loads and stores, so any K and N (attention products whose N or
// K is a token count, e.g. 1,370). Consecutive threads read consecutive floats of a row
// (coalesced); the shared tiles and their vec4 reads are v8's.
// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias; trans_b = 1: b is [N, K], else [K, N].
struct Params {
  m: u32, n: u32, k: u32, batch: u32,
  a_bs: u32, b_bs: u32, c_bs: u32, bias_mode: u32,
  bias_rs: u32, bias_cs: u32, _p0: u32, _p1: u32,
  alpha: f32, beta: f32, _p2: f32, _p3: f32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override trans_b: u32 = 0u;
override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 16u;
override RM: u32 = 8u;
override RN: u32 = 8u;

override TX: u32 = BN / RN;
override TY: u32 = BM / RM;
override NT: u32 = TX * TY;
// vec4s per shared tile (one buffer); floats per thread's share of its global load.
override A_V4: u32 = BM * BK / 4u;
override B_V4: u32 = BN * BK / 4u;
override LA: u32 = BM * BK / NT;
override LB: u32 = BN * BK / NT;

var<workgroup> as_: array<vec4<f32>, 2u * A_V4>;
var<workgroup> bs_: array<vec4<f32>, 2u * B_V4>;

// Global loads of one K tile, in registers between issue and the shared-memory store.
var<private> ra: array<f32, 16>;
var<private> rb: array<f32, 16>;

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let gk = k0 + e % BK;
    let gm = min(row0 + e / BK, p.m - 1u);
    let v = a[bi * p.a_bs + gm * p.k + min(gk, p.k - 1u)];
    ra[r] = select(0.0, v, gk < p.k);
  }
  if (trans_b == 1u) {
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let gk = k0 + e % BK;
      let gn = min(col0 + e / BK, p.n - 1u);
      let v = b[bi * p.b_bs + gn * p.k + min(gk, p.k - 1u)];
      rb[r] = select(0.0, v, gk < p.k);
    }
  } else {
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let gk = k0 + e / BN;
      let gn = col0 + e % BN;
      let v = b[bi * p.b_bs + min(gk, p.k - 1u) * p.n + min(gn, p.n - 1u)];
      rb[r] = select(0.0, v, gk < p.k && gn < p.n);
    }
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
  if (trans_b == 1u) {
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let col = e / BK;
      bs_[bbase + (e % BK) * (BN / 4u) + col / 4u][col % 4u] = rb[r];
    }
  } else {
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let col = e % BN;
      bs_[bbase + (e / BN) * (BN / 4u) + col / 4u][col % 4u] = rb[r];
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
      if (gm >= p.m) { continue; }
      for (var h = 0u; h < GN; h++) {
        let gn = col0 + h * (BN / GN) + tx * 4u;
        if (gn >= p.n) { continue; }
        let v = p.alpha * acc[(g * 4u + i) * 2u + h];
        for (var j = 0u; j < 4u; j++) {
          if (gn + j >= p.n) { break; }
          var r = v[j];
          if (p.bias_mode != 0u) { r = r + p.beta * bias[gm * p.bias_rs + (gn + j) * p.bias_cs]; }
          c[bi * p.c_bs + gm * p.n + gn + j] = r;
        }
      }
    }
  }
}
