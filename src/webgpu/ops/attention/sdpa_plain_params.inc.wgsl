// The uniform of sdpa_plain.wgsl (SdpaParams in register.cpp).
struct Params {
  total: u32, hq: u32, sq: u32, skv: u32,
  d: u32, kv_bh_stride: u32, mask_mode: u32, scale: f32,  // mask_mode: 0 none, 1 [Sq,Skv], 2 [B,H,Sq,Skv]
  kv_b_div: u32, kv_h_div: u32, _p0: u32, _p1: u32,
}
