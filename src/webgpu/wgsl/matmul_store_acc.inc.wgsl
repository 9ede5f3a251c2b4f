// The end of the large matmul kernels (matmul_large_tile.inc.wgsl, matmul_large_vec4_f16math):
// a thread's RM x RN results acc[(g * 4 + i) * 2 + h] (row ty * 4 + i of row block g, columns
// of column block h; g < RM / 4, h < RN / 4) to store_block, each by a literal index. A loop
// here, whose body holds the includer's store and epilogue (erf, tanh, a switch per step),
// may stay rolled, and one dynamic index puts all of acc in local memory on NVIDIA's
// compiler, the main loop's FMAs too. The includer defines BM, BN, RM, RN, tile_m(),
// tile_n() and store_block(bi, gm, gn, v).
fn store_acc(bi: u32, row0: u32, col0: u32, ty: u32, tx: u32, acc: array<vec4<f32>, 16>) {
  store_acc_block(bi, row0, col0, ty, tx, 0u, 0u, 0u, acc[0]);
  store_acc_block(bi, row0, col0, ty, tx, 0u, 0u, 1u, acc[1]);
  store_acc_block(bi, row0, col0, ty, tx, 0u, 1u, 0u, acc[2]);
  store_acc_block(bi, row0, col0, ty, tx, 0u, 1u, 1u, acc[3]);
  store_acc_block(bi, row0, col0, ty, tx, 0u, 2u, 0u, acc[4]);
  store_acc_block(bi, row0, col0, ty, tx, 0u, 2u, 1u, acc[5]);
  store_acc_block(bi, row0, col0, ty, tx, 0u, 3u, 0u, acc[6]);
  store_acc_block(bi, row0, col0, ty, tx, 0u, 3u, 1u, acc[7]);
  store_acc_block(bi, row0, col0, ty, tx, 1u, 0u, 0u, acc[8]);
  store_acc_block(bi, row0, col0, ty, tx, 1u, 0u, 1u, acc[9]);
  store_acc_block(bi, row0, col0, ty, tx, 1u, 1u, 0u, acc[10]);
  store_acc_block(bi, row0, col0, ty, tx, 1u, 1u, 1u, acc[11]);
  store_acc_block(bi, row0, col0, ty, tx, 1u, 2u, 0u, acc[12]);
  store_acc_block(bi, row0, col0, ty, tx, 1u, 2u, 1u, acc[13]);
  store_acc_block(bi, row0, col0, ty, tx, 1u, 3u, 0u, acc[14]);
  store_acc_block(bi, row0, col0, ty, tx, 1u, 3u, 1u, acc[15]);
}

fn store_acc_block(bi: u32, row0: u32, col0: u32, ty: u32, tx: u32, g: u32, i: u32, h: u32,
                   v: vec4<f32>) {
  if (g >= RM / 4u || h >= RN / 4u) { return; }
  let gm = row0 + g * (BM / (RM / 4u)) + ty * 4u + i;
  let gn = col0 + h * (BN / (RN / 4u)) + tx * 4u;
  if (gm >= tile_m() || gn >= tile_n()) { return; }
  store_block(bi, gm, gn, v);
}
