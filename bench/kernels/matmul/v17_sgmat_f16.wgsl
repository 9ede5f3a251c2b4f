// Variant 17 (v17-v19 in matmul_f16_bench.cpp, by the constants below): f16 x f16 -> f32
// matmul on subgroup matrices (Dawn's chromium_experimental_subgroup_matrix; tensor cores
// through VK_KHR_cooperative_matrix on NVIDIA's Vulkan driver).
// c[b] = alpha * (a[b] @ op(b[b])) + beta * bias, op = transpose when trans_b = 1 (b is
// [N, K], a linear weight). a is f32 in memory, b is BT (f16 weights, or f32 for bmm's
// second activation): both are rounded to f16 in the tile loader, so the graph around the
// matmul stays f32. Needs K % 4 == 0 (and N % 4 == 0 when trans_b = 0): vec4 loads.
//
// The host rewrites the `const` lines (the subgroup-matrix shape SM x SN x SK from the
// adapter's configs, the tile, the subgroup size) before compiling: function-scope arrays
// of matrices need constant sizes.
//
// A BM x BN tile per workgroup of WGM x WGN subgroups; each subgroup owns FM x FN result
// matrices (an (FM * SM) x (FN * SN) block). K advances BK at a time through two shared
// buffers (f16, rows padded by 8 halves against bank conflicts): the next tile's global
// loads are issued into registers before the current tile's products and stored after
// them, so one barrier per K step suffices. The results go through a per-subgroup
// SM x SN f32 staging area so that edge tiles, alpha and the bias are handled per element.
enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
// Each subgroup works on its own matrices, picked by its index (local_invocation_index /
// SG): uniform within the subgroup, which is what the matrix builtins need, though WGSL's
// workgroup-level uniformity analysis cannot see it.
diagnostic(off, chromium.subgroup_matrix_uniformity);

alias BT = f16;
const SM: u32 = 16u;
const SN: u32 = 16u;
const SK: u32 = 16u;
const FM: u32 = 2u;
const FN: u32 = 4u;
const WGM: u32 = 4u;
const WGN: u32 = 2u;
const BK: u32 = 32u;
const SG: u32 = 32u;

const BM: u32 = WGM * FM * SM;
const BN: u32 = WGN * FN * SN;
const NT: u32 = WGM * WGN * SG;
const LDA: u32 = BK + 8u;          // shared row stride of a's tile (and b's when trans_b)
const LDBN: u32 = BN + 8u;         // shared row stride of b's tile when b is [K, N]
const A_SZ: u32 = BM * LDA;
const B_SZ: u32 = max(BN * LDA, BK * LDBN);
const LA: u32 = BM * BK / 4u / NT;  // vec4 loads per thread per tile
const LB: u32 = BN * BK / 4u / NT;

struct Params {
  m: u32, n: u32, k: u32, batch: u32,
  a_bs: u32, b_bs: u32, c_bs: u32, bias_mode: u32,
  bias_rs: u32, bias_cs: u32, _p0: u32, _p1: u32,
  alpha: f32, beta: f32, _p2: f32, _p3: f32,
}

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<BT>>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override trans_b: u32 = 0u;

var<workgroup> as_: array<f16, 2u * A_SZ>;
var<workgroup> bs_: array<f16, 2u * B_SZ>;
var<workgroup> stage: array<f32, WGM * WGN * SM * SN>;

var<private> ra: array<vec4<f32>, LA>;
var<private> rb: array<vec4<BT>, LB>;

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  let kq_n = BK / 4u;
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let gk = k0 + (e % kq_n) * 4u;
    let gm = min(row0 + e / kq_n, p.m - 1u);
    let v = a[(bi * p.a_bs + gm * p.k + min(gk, p.k - 4u)) / 4u];
    ra[r] = select(vec4<f32>(0.0), v, gk < p.k);
  }
  if (trans_b == 1u) {
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let gk = k0 + (e % kq_n) * 4u;
      let gn = min(col0 + e / kq_n, p.n - 1u);
      let v = b[(bi * p.b_bs + gn * p.k + min(gk, p.k - 4u)) / 4u];
      rb[r] = select(vec4<BT>(0.0), v, gk < p.k);
    }
  } else {
    let nq_n = BN / 4u;
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let gk = k0 + e / nq_n;
      let gn = col0 + (e % nq_n) * 4u;
      let v = b[(bi * p.b_bs + min(gk, p.k - 1u) * p.n + min(gn, p.n - 4u)) / 4u];
      rb[r] = select(vec4<BT>(0.0), v, gk < p.k && gn < p.n);
    }
  }
}

fn store_tile(li: u32, buf: u32) {
  let kq_n = BK / 4u;
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let o = buf * A_SZ + (e / kq_n) * LDA + (e % kq_n) * 4u;
    let v = vec4<f16>(ra[r]);
    as_[o] = v.x;
    as_[o + 1u] = v.y;
    as_[o + 2u] = v.z;
    as_[o + 3u] = v.w;
  }
  if (trans_b == 1u) {
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let o = buf * B_SZ + (e / kq_n) * LDA + (e % kq_n) * 4u;
      let v = vec4<f16>(rb[r]);
      bs_[o] = v.x;
      bs_[o + 1u] = v.y;
      bs_[o + 2u] = v.z;
      bs_[o + 3u] = v.w;
    }
  } else {
    let nq_n = BN / 4u;
    for (var r = 0u; r < LB; r++) {
      let e = li + NT * r;
      let o = buf * B_SZ + (e / nq_n) * LDBN + (e % nq_n) * 4u;
      let v = vec4<f16>(rb[r]);
      bs_[o] = v.x;
      bs_[o + 1u] = v.y;
      bs_[o + 2u] = v.z;
      bs_[o + 3u] = v.w;
    }
  }
}

@compute @workgroup_size(NT, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let bi = wid.z;
  // Subgroups are consecutive runs of SG invocations of the 1-D workgroup.
  let sg = li / SG;
  let sm = sg / WGN;
  let sn = sg % WGN;

  var acc: array<subgroup_matrix_result<f32, SN, SM>, FM * FN>;
  var lm: array<subgroup_matrix_left<f16, SK, SM>, FM>;
  var rm: array<subgroup_matrix_right<f16, SN, SK>, FN>;

  let nt = (p.k + BK - 1u) / BK;
  load_tile(li, bi, row0, col0, 0u);
  store_tile(li, 0u);
  workgroupBarrier();
  for (var t = 0u; t < nt; t++) {
    let cur = t & 1u;
    if (t + 1u < nt) { load_tile(li, bi, row0, col0, (t + 1u) * BK); }
    for (var ks = 0u; ks < BK; ks += SK) {
      for (var i = 0u; i < FM; i++) {
        lm[i] = subgroupMatrixLoad<subgroup_matrix_left<f16, SK, SM>>(
            &as_, cur * A_SZ + (sm * FM * SM + i * SM) * LDA + ks, false, LDA);
      }
      for (var j = 0u; j < FN; j++) {
        if (trans_b == 1u) {
          rm[j] = subgroupMatrixLoad<subgroup_matrix_right<f16, SN, SK>>(
              &bs_, cur * B_SZ + (sn * FN * SN + j * SN) * LDA + ks, true, LDA);
        } else {
          rm[j] = subgroupMatrixLoad<subgroup_matrix_right<f16, SN, SK>>(
              &bs_, cur * B_SZ + ks * LDBN + sn * FN * SN + j * SN, false, LDBN);
        }
      }
      for (var i = 0u; i < FM; i++) {
        for (var j = 0u; j < FN; j++) {
          acc[i * FN + j] = subgroupMatrixMultiplyAccumulate(lm[i], rm[j], acc[i * FN + j]);
        }
      }
    }
    if (t + 1u < nt) { store_tile(li, cur ^ 1u); }
    workgroupBarrier();
  }

  // Each result matrix through the subgroup's staging area, then out with bounds and bias.
  let so = sg * SM * SN;
  for (var i = 0u; i < FM; i++) {
    for (var j = 0u; j < FN; j++) {
      subgroupMatrixStore(&stage, so, acc[i * FN + j], false, SN);
      workgroupBarrier();
      for (var e = lane; e < SM * SN; e += SG) {
        let gm = row0 + sm * FM * SM + i * SM + e / SN;
        let gn = col0 + sn * FN * SN + j * SN + e % SN;
        if (gm < p.m && gn < p.n) {
          var r = p.alpha * stage[so + e];
          if (p.bias_mode != 0u) { r = r + p.beta * bias[gm * p.bias_rs + gn * p.bias_cs]; }
          c[bi * p.c_bs + gm * p.n + gn] = r;
        }
      }
      workgroupBarrier();
    }
  }
}
