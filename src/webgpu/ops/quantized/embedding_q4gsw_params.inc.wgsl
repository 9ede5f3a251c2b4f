// The uniform of embedding_q4gsw.wgsl (EmbedQ4Params in embedding_q4gsw.cpp).
struct Params {
  total: u32, dim: u32, vocab: u32, row_bytes: u32,
  groups: u32, group_size: u32, linear: u32, _p0: u32,
}
