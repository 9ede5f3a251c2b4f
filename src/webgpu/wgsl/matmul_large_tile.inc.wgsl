// The tiling of matmul_large.wgsl and matmul_large_vec4.wgsl, which differ only in the width
// of their global loads and stores (bench/kernels/matmul/ v8 and v13; measurements in its
// README). A BM x BN output tile per workgroup of (BN / RN) x (BM / RM) threads; each thread
// holds RM x RN outputs (RM, RN in {4, 8}) as 4x4 blocks spaced BM / (RM / 4) rows and
// BN / (RN / 4) columns apart, so a warp's shared-memory reads are consecutive vec4s and its
// stores to c are coalesced. K advances BK at a time through two shared-memory buffers: the
// next tile's global loads are issued into registers before the current tile's FMAs and
// stored to the other buffer after them, so one barrier per K step suffices.
// Shared tiles hold K-major rows: as_[kk][m] and bs_[kk][n], each read as vec4 along M / N.
// Workgroups: x over N tiles, y over M tiles, z over the batch times KS.
//
// Split-K (KS > 1, a pipeline constant; register.cpp picks it for grids too small to fill
// the GPU): workgroup z = batch * KS + split, and each split sums its share of the K tiles.
// store_block then gets z in place of the batch and stores the raw sums (the includer's
// store: matmul_store_vec4.inc.wgsl), which matmul_splitk_reduce.wgsl adds up and finishes.
//
// One shared buffer (NBUF = 1, a pipeline constant; research benches only so far): half the
// workgroup memory, so twice the workgroups a multiprocessor where that memory is the limit
// (48 KiB on NVIDIA under Dawn: bench/kernels/occupancy), for a second barrier per K step:
// the staged registers are stored, a barrier, the next tile's global loads issued, the FMAs,
// a barrier before the next store.
//
// Tail split (TAIL_S > 1, pipeline constants set by ops/conv/register.cpp for the pointwise
// GEMM only; split_waves.h, tail_split): a grid whose last round of workgroups would be a few
// tiles on an otherwise idle GPU runs its last tile columns (x >= TAIL_X0) split over K
// instead, TAIL_S pieces a tile, in the same dispatch: workgroup x = TAIL_X0 + (column -
// TAIL_X0) * TAIL_S + piece. Each piece is a TAIL_S-th of the K steps, so the pieces fill
// the multiprocessors that the full tiles leave idle and end soon after them. store_block
// then gets kTailPiece | (z * TAIL_S + piece) in place of the batch and stores the raw sums
// (conv2d_pw_gemm_vec4.wgsl: to its tail partials, which conv2d_pw_tail_reduce.wgsl adds up).
//
// The includer defines the global side: `load_tile(li, bi, row0, col0, k0)` (K tile k0 of
// rows row0.. of a and columns col0.. of op(b) into registers), `store_tile(li, buf)` (those
// registers into shared buffer buf) and `store_block(bi, gm, gn, v)` (columns gn..gn+3 of
// row gm, gm < M and gn < N checked, v = a @ op(b) before the epilogue), and the sizes
// `tile_m()`, `tile_n()`, `tile_k()` (matmul_params.inc.wgsl: p.m, p.n, p.k; conv2d_pw_gemm:
// the output channels, the pixels, the input channels).
//
// Register arrays (acc, and the includer's staging of global loads) are indexed by literals
// or pipeline constants only, never by a loop variable. Under Dawn's robustness (every
// browser; dawn.node unless `disable_robustness`) each loop gets a guard counter, so a
// driver may leave a loop rolled, and one run-time index into acc puts all of it in local
// memory: 10x slower on the H200 (bench/kernels/robustness/README.md;
// private_index_check.mjs checks the SPIR-V).
//#include "matmul_store_acc.inc.wgsl"
override trans_b: u32 = 0u;
override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 16u;
override RM: u32 = 8u;
override RN: u32 = 8u;
override KS: u32 = 1u;
override TAIL_S: u32 = 1u;
override TAIL_X0: u32 = 0u;
override NBUF: u32 = 2u;  // shared buffers: 2 (double buffering) or 1 (above)
// The flag store_block gets on a tail piece's batch argument.
const kTailPiece: u32 = 0x80000000u;

override TX: u32 = BN / RN;
override TY: u32 = BM / RM;
override NT: u32 = TX * TY;
// vec4s per shared tile (one buffer).
override A_V4: u32 = BM * BK / 4u;
override B_V4: u32 = BN * BK / 4u;

var<workgroup> as_: array<vec4<f32>, NBUF * A_V4>;
var<workgroup> bs_: array<vec4<f32>, NBUF * B_V4>;

@compute @workgroup_size(TX, TY, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  // A tail piece (never when TAIL_S = 1: the branches fold) is column TAIL_X0 + c, piece q.
  let piece = TAIL_S > 1u && wid.x >= TAIL_X0;
  let tail_at = wid.x - TAIL_X0;
  let tile_x = select(wid.x, TAIL_X0 + tail_at / TAIL_S, piece);
  let row0 = wid.y * BM;
  let col0 = tile_x * BN;
  let bi = wid.z / KS;
  let splits = select(KS, TAIL_S, piece);
  let split = select(wid.z % KS, tail_at % TAIL_S, piece);
  // The thread's column and row block, lid's own: a run of 32 consecutive invocations is 2
  // rows of 16 threads at TX = 16, so a K step's vec4 reads of bs_ touch 16 addresses, two
  // shared-memory wavefronts. Other layouts of the run (4 x 8, 8 x 4: one wavefront) changed
  // nothing on the H100 (bench/kernels/matmul v52-v55, conv v32-v35) and would cost the range
  // proof below: tx and ty are lid's components as they are.
  let tx = lid.x;
  let ty = lid.y;
  let GM = RM / 4u;  // 4-row blocks per thread
  let GN = RN / 4u;  // 4-column blocks per thread
  // acc[(g * 4 + i) * 2 + h]: row ty * 4 + i of row block g, columns of column block h
  // (zero-initialized, as every WGSL variable). Every access below is by a literal index:
  // see "Register arrays" above.
  var acc: array<vec4<f32>, 16>;

  // This split's K tiles: t0 .. t0 + nt of the kt in all (every tile when KS = 1).
  let kt = (tile_k() + BK - 1u) / BK;
  let per = (kt + splits - 1u) / splits;
  let t0 = min(split * per, kt);
  let nt = min(kt - t0, per);
  let k_first = t0 * BK;
  load_tile(li, bi, row0, col0, k_first);
  if (NBUF == 2u) {
    store_tile(li, 0u);
    workgroupBarrier();
  }
  // The K tiles in runs of NBUF, tile t0 + cur in shared buffer cur. Every index into as_ and
  // bs_ in the K step is then built from constants and indices Tint can bound (cur and kk:
  // loops with constant bounds; tx, ty: lid's components), so its range analysis proves them
  // in bounds and Dawn's robustness (every browser) adds no clamp to the reads. With the
  // buffer as a run-time value (cur = t & 1) each read took a min() against the array's end,
  // and the index could not fold into the load's immediate offset: two or three integer
  // instructions per vec4 read, beside the 16 FMAs it feeds (bench/kernels/robustness).
  for (var t0 = 0u; t0 < nt; t0 += NBUF) {
    for (var cur = 0u; cur < NBUF; cur++) {
      let t = t0 + cur;
      if (t >= nt) { break; }
      if (NBUF == 1u) {
        store_tile(li, 0u);
        workgroupBarrier();
      }
      if (t + 1u < nt) { load_tile(li, bi, row0, col0, k_first + (t + 1u) * BK); }
      for (var kk = 0u; kk < BK; kk++) {
        // Row blocks g = 0, 1 and column blocks h = 0, 1 of this K step; the second of each is
        // a re-read of the first where the thread has one block (GM or GN = 1), and its FMAs
        // are skipped (GM, GN are pipeline constants: the branches fold).
        let a0 = as_[cur * A_V4 + kk * (BM / 4u) + ty];
        let a1 = as_[cur * A_V4 + kk * (BM / 4u) + (GM - 1u) * (BM / 8u) + ty];
        let b0 = bs_[cur * B_V4 + kk * (BN / 4u) + tx];
        let b1 = bs_[cur * B_V4 + kk * (BN / 4u) + (GN - 1u) * (BN / 8u) + tx];
        acc[0] = fma(vec4<f32>(a0.x), b0, acc[0]);
        acc[2] = fma(vec4<f32>(a0.y), b0, acc[2]);
        acc[4] = fma(vec4<f32>(a0.z), b0, acc[4]);
        acc[6] = fma(vec4<f32>(a0.w), b0, acc[6]);
        if (GN > 1u) {
          acc[1] = fma(vec4<f32>(a0.x), b1, acc[1]);
          acc[3] = fma(vec4<f32>(a0.y), b1, acc[3]);
          acc[5] = fma(vec4<f32>(a0.z), b1, acc[5]);
          acc[7] = fma(vec4<f32>(a0.w), b1, acc[7]);
        }
        if (GM > 1u) {
          acc[8] = fma(vec4<f32>(a1.x), b0, acc[8]);
          acc[10] = fma(vec4<f32>(a1.y), b0, acc[10]);
          acc[12] = fma(vec4<f32>(a1.z), b0, acc[12]);
          acc[14] = fma(vec4<f32>(a1.w), b0, acc[14]);
          if (GN > 1u) {
            acc[9] = fma(vec4<f32>(a1.x), b1, acc[9]);
            acc[11] = fma(vec4<f32>(a1.y), b1, acc[11]);
            acc[13] = fma(vec4<f32>(a1.z), b1, acc[13]);
            acc[15] = fma(vec4<f32>(a1.w), b1, acc[15]);
          }
        }
      }
      if (NBUF == 2u && t + 1u < nt) { store_tile(li, cur ^ 1u); }
      workgroupBarrier();
    }
  }

  // z, not bi: the batch when KS = 1, the batch and split of the partial sums otherwise; a
  // tail piece's batch and piece, flagged.
  store_acc(select(wid.z, kTailPiece | (wid.z * TAIL_S + split), piece), row0, col0, ty, tx, acc);
}
