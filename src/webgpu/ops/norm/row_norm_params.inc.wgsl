// The uniform block of the row norms (row_norm.wgsl, row_norm_rows.wgsl, row_norm_stats.wgsl,
// row_norm_apply.wgsl; RowNormParams in register.cpp). A row is `inner` contiguous words;
// split rows (few, long) are cut into `nchunks` chunks of `chunk` words, one workgroup each.
struct Params {
  rows: u32, inner: u32, mode: u32, flags: u32,  // flags: 1 weight, 2 bias, 4 write mean, 8 write rstd
  groups: u32, cpg: u32, hw: u32, nchunks: u32,
  eps: f32, chunk: u32, _p2: u32, _p3: u32,
}
