// The uniform of linear_qcs4w.wgsl (Qcs4wParams in linear_qcs4w.cpp).
struct Params {
  m: u32, n: u32, k: u32, row_bytes: u32,
}
