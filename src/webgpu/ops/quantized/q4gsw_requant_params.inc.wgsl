// q4gsw_requant's uniform (RequantParams in q4gsw_requant.cpp).
struct RequantParams {
  n: u32,          // rows of latent
  k: u32,          // columns of latent
  k_packed: u32,   // (k + 1) / 2 output bytes per row
  group_size: u32,
  scale_row: u32,  // row length of scales [groups, N_pad]
  pad0: u32,
  pad1: u32,
  pad2: u32,
}
