// The shared-memory tile of the implicit-GEMM convs (conv2d_igemm, conv2d_transposed_gemm,
// conv2d_transposed_phase; bench/kernels/conv v5/v6 and conv_transposed v2/v3): a workgroup
// computes BM = 64 rows (pixels) x BN columns (BN = 64: 16x16 invocations; 32: 16x8; 16: 16x4),
// each invocation 4 consecutive rows x 4 consecutive columns as 4 vec4 accumulators over
// rows (acc[j]: column 4 ty + j, rows 4 tx .. 4 tx + 3). With RM = 8 (BN 32 or 64) an
// invocation holds 8 rows, 4 tx .. 4 tx + 3 and 32 more (acc[4 + j]), so half the
// invocations, each with twice the FMAs per shared-memory read (bench/kernels/conv v29-v31;
// the matmul's 64x64 tile gained that way, bench/kernels/matmul v41). K advances BK = 16 at a time through
// shared memory: the A tile gathered by the includer (consecutive invocations load
// consecutive rows), the B tile one unchecked vec4 load per invocation from weights repacked
// at graph build (ops/conv/register.cpp) as rows of npad4 vec4s, zero-padded to whole tiles.
//
// The includer defines the parts that differ, so each kernel keeps its own index math:
//   struct ALoader, fn a_value(a: ALoader, k: u32) -> f32: element k of this invocation's
//     loader row (A-tile row li % BM), 0 outside the input;
//   struct TileOut, fn store_result(o: TileOut, m: u32, n: u32, v: f32): the sum v of row m,
//     column n (m, n below the totals tile_store is given).
//#include "conv2d_repacked.inc.wgsl"

override BN: u32 = 64;           // columns per tile: 64, 32 or 16
const BM: u32 = 64u;             // rows per tile
const BK: u32 = 16u;             // K per shared-memory step
override RM: u32 = 4u;           // rows per invocation: 4, or 8 where BN >= 32
override TX: u32 = BM / RM;      // invocations along rows (16 or 8)
override TY: u32 = BN / 4u;      // invocations along columns (16, 8 or 4)
override T: u32 = TX * TY;       // workgroup size (256, 128 or 64 at RM 4; 128 or 64 at RM 8)
override LK: u32 = T / BM;       // A-tile rows one pass of the workgroup loads (4, 2 or 1)
override RA: u32 = BK / LK;      // A values per invocation per step (4, 8 or 16)

override BV: u32 = BK * BN / 4u;  // vec4s of the B tile: one per invocation, two at RM 8
var<workgroup> ta: array<vec4<f32>, 256>;  // [BK][BM / 4]: 4 consecutive rows per vec4
// [BK][BN / 4]: 4 consecutive columns per vec4. Sized by BN: workgroup memory decides how
// many workgroups share a multiprocessor (48 KiB on the H100 under Dawn:
// bench/kernels/occupancy), 8 at BN 32 (6 KiB in all) against 6 with a 256-vec4 B tile.
var<workgroup> tb: array<vec4<f32>, BV>;

// A K step's shared tiles: A elements k0 .. k0 + 15 of the tile's rows and weight rows
// wrow .. wrow + 15 (vec4 columns n0 / 4 ..), then a barrier. Call it in uniform control flow.
fn tile_fill(a: ALoader, li: u32, k0: u32, wrow: u32, npad4: u32, n0: u32) {
  let lm = li % BM;
  let lk = li / BM;
  for (var r = 0u; r < RA; r = r + 1u) {
    let kk = lk + LK * r;
    ta[kk * 16u + lm / 4u][lm % 4u] = a_value(a, k0 + kk);
  }
  tb[li] = w[(wrow + li / TY) * npad4 + n0 / 4u + li % TY];
  if (BV > T) {
    let lb = li + T;
    tb[lb] = w[(wrow + lb / TY) * npad4 + n0 / 4u + lb % TY];
  }
  workgroupBarrier();
}

// One K row's FMAs: acc[j] += av * bv[j] (rows 4 tx .. 4 tx + 3), and with RM 8 acc[4 + j] +=
// av1 * bv[j] (32 rows further). The caller reads av, av1 and bv from ta and tb: in an entry
// point (the includers' main: tile_fill, then for each of the BK rows kk, bv = tb[kk * TY +
// lid.y], av = ta[kk * 16 + lid.x], av1 = ta[kk * 16 + lid.x + 8], then a barrier) at indices
// built from lid, which Tint's range analysis proves in bounds, so that Dawn's robustness adds
// no clamp to the K step's shared reads (a function parameter's index is clamped on every
// read: bench/kernels/robustness/README.md). The includers' workgroup is (TX, TY).
fn tile_fma_rows(acc: ptr<function, array<vec4<f32>, 8>>, av: vec4<f32>, bv: vec4<f32>) {
  (*acc)[0] = fma(av, vec4<f32>(bv.x), (*acc)[0]);
  (*acc)[1] = fma(av, vec4<f32>(bv.y), (*acc)[1]);
  (*acc)[2] = fma(av, vec4<f32>(bv.z), (*acc)[2]);
  (*acc)[3] = fma(av, vec4<f32>(bv.w), (*acc)[3]);
}
fn tile_fma_rows_hi(acc: ptr<function, array<vec4<f32>, 8>>, av1: vec4<f32>, bv: vec4<f32>) {
  (*acc)[4] = fma(av1, vec4<f32>(bv.x), (*acc)[4]);
  (*acc)[5] = fma(av1, vec4<f32>(bv.y), (*acc)[5]);
  (*acc)[6] = fma(av1, vec4<f32>(bv.z), (*acc)[6]);
  (*acc)[7] = fma(av1, vec4<f32>(bv.w), (*acc)[7]);
}

// This invocation's 16 (RM 8: 32) sums of the tile at (m0, n0), those with row < m_total and column
// < n_total, through store_result. acc by literal indices only: a loop index into it may
// put all of acc in local memory where the loop stays rolled (Dawn's robustness adds a guard
// to every loop; matmul_large_tile.inc.wgsl, "Register arrays").
fn tile_store(o: TileOut, acc: array<vec4<f32>, 8>, li: u32, m0: u32, n0: u32, m_total: u32, n_total: u32) {
  let m = m0 + 4u * (li % TX);
  let n = n0 + 4u * (li / TX);
  tile_store_column(o, acc[0], m, n, m_total, n_total);
  tile_store_column(o, acc[1], m, n + 1u, m_total, n_total);
  tile_store_column(o, acc[2], m, n + 2u, m_total, n_total);
  tile_store_column(o, acc[3], m, n + 3u, m_total, n_total);
  if (RM > 4u) {
    tile_store_column(o, acc[4], m + 32u, n, m_total, n_total);
    tile_store_column(o, acc[5], m + 32u, n + 1u, m_total, n_total);
    tile_store_column(o, acc[6], m + 32u, n + 2u, m_total, n_total);
    tile_store_column(o, acc[7], m + 32u, n + 3u, m_total, n_total);
  }
}

// Rows m .. m + 3 of column n (v), those within the bounds.
fn tile_store_column(o: TileOut, v: vec4<f32>, m: u32, n: u32, m_total: u32, n_total: u32) {
  if (n >= n_total) { return; }
  if (m < m_total) { store_result(o, m, n, v.x); }
  if (m + 1u < m_total) { store_result(o, m + 1u, n, v.y); }
  if (m + 2u < m_total) { store_result(o, m + 2u, n, v.z); }
  if (m + 3u < m_total) { store_result(o, m + 3u, n, v.w); }
}
