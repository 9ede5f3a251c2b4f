// c[b] = alpha * (a @ b^T) + beta * bias for a linear whose weight b [N, K] is stored as f16
// (GraphOptions::f16_weights) on an adapter with shader-f16 (GraphOptions::f16_arith; else
// matmul_large_vec4_f16w.wgsl): bench/kernels/matmul/ v26-v28. The tiling of
// matmul_large_tile.inc.wgsl (BM x BN per workgroup, RM x RN outputs per thread as 4x4
// blocks, K-major shared tiles double-buffered, one barrier per K step) in f16:
//   - a (f32 activations) is rounded to f16 in the tile loader, clamped to f16's finite range
//     (|x| <= 65504), and b read as vec4<f16> (8-byte loads): shared tiles of half the bytes;
//   - products and their sum within one K tile (BK of them) are f16 (vec4<f16> FMAs: NVIDIA's
//     CUDA cores run packed f16 FMAs at twice the f32 rate), added to an f32 accumulator after
//     every K tile, so the rounding grows with BK, not with K: about 5e-4 relative (L2) from
//     the f32 path at BK 8, against 2e-4 for f16 weights with f32 math.
// K % 4 == 0 and N % 4 == 0 (vec4 loads and stores); M, N and K need not fill a tile.
enable f16;
//#include "matmul_params.inc.wgsl"
//#include "matmul_store_vec4.inc.wgsl"
//#include "matmul_store_acc.inc.wgsl"
alias Word = vec4<f32>;
alias BWord = vec4<f16>;

override BM: u32 = 128u;
override BN: u32 = 64u;
override BK: u32 = 8u;
override RM: u32 = 8u;
override RN: u32 = 8u;

override TX: u32 = BN / RN;
override TY: u32 = BM / RM;
override NT: u32 = TX * TY;
override A_V4: u32 = BM * BK / 4u;
override B_V4: u32 = BN * BK / 4u;
override LA: u32 = A_V4 / NT;
override LB: u32 = B_V4 / NT;

var<workgroup> as_: array<vec4<f16>, 2u * A_V4>;
var<workgroup> bs_: array<vec4<f16>, 2u * B_V4>;

var<private> ra: array<vec4<f16>, 8>;
var<private> rb: array<vec4<f16>, 8>;

const F16_MAX: f32 = 65504.0;

fn load_tile(li: u32, bi: u32, row0: u32, col0: u32, k0: u32) {
  let kq_n = BK / 4u;
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let gk = k0 + (e % kq_n) * 4u;
    let row = min(row0 + e / kq_n, p.m - 1u);
    let v = clamp(a[(bi * p.a_bs + row * p.k + gk) / 4u], vec4<f32>(-F16_MAX), vec4<f32>(F16_MAX));
    ra[r] = select(vec4<f16>(0.0h), vec4<f16>(v), gk < p.k);
  }
  for (var r = 0u; r < LB; r++) {
    let e = li + NT * r;
    let gk = k0 + (e % kq_n) * 4u;
    let col = min(col0 + e / kq_n, p.n - 1u);
    rb[r] = select(vec4<f16>(0.0h), b[(bi * p.b_bs + col * p.k + gk) / 4u], gk < p.k);
  }
}

fn store_tile(li: u32, buf: u32) {
  let kq_n = BK / 4u;
  for (var r = 0u; r < LA; r++) {
    let e = li + NT * r;
    let row = e / kq_n;
    let at = buf * A_V4 + (e % kq_n) * 4u * (BM / 4u) + row / 4u;
    let v = ra[r];
    as_[at][row % 4u] = v.x;
    as_[at + BM / 4u][row % 4u] = v.y;
    as_[at + 2u * (BM / 4u)][row % 4u] = v.z;
    as_[at + 3u * (BM / 4u)][row % 4u] = v.w;
  }
  for (var r = 0u; r < LB; r++) {
    let e = li + NT * r;
    let col = e / kq_n;
    let at = buf * B_V4 + (e % kq_n) * 4u * (BN / 4u) + col / 4u;
    let v = rb[r];
    bs_[at][col % 4u] = v.x;
    bs_[at + BN / 4u][col % 4u] = v.y;
    bs_[at + 2u * (BN / 4u)][col % 4u] = v.z;
    bs_[at + 3u * (BN / 4u)][col % 4u] = v.w;
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
  let GM = RM / 4u;
  let GN = RN / 4u;
  // acc / part[(g * 4 + i) * 2 + h]: row ty * 4 + i of row block g, column block h; part holds
  // the current K tile's f16 sums, acc the f32 total.
  var acc: array<vec4<f32>, 16>;
  var part: array<vec4<f16>, 16>;
  for (var i = 0u; i < 16u; i++) { acc[i] = vec4<f32>(0.0); part[i] = vec4<f16>(0.0h); }

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
      var av: array<vec4<f16>, 2>;
      var bv: array<vec4<f16>, 2>;
      for (var g = 0u; g < GM; g++) { av[g] = as_[abase + kk * (BM / 4u) + g * (BM / 4u / GM) + ty]; }
      for (var h = 0u; h < GN; h++) { bv[h] = bs_[bbase + kk * (BN / 4u) + h * (BN / 4u / GN) + tx]; }
      for (var g = 0u; g < GM; g++) {
        for (var h = 0u; h < GN; h++) {
          for (var i = 0u; i < 4u; i++) {
            let s = (g * 4u + i) * 2u + h;
            part[s] = fma(vec4<f16>(av[g][i]), bv[h], part[s]);
          }
        }
      }
    }
    for (var g = 0u; g < GM; g++) {
      for (var h = 0u; h < GN; h++) {
        for (var i = 0u; i < 4u; i++) {
          let s = (g * 4u + i) * 2u + h;
          acc[s] = acc[s] + vec4<f32>(part[s]);
          part[s] = vec4<f16>(0.0h);
        }
      }
    }
    if (t + 1u < nt) { store_tile(li, cur ^ 1u); }
    workgroupBarrier();
  }

  store_acc(bi, row0, col0, ty, tx, acc);
}
