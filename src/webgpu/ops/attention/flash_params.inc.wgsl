// The fused attention's parameters (flash_attention_dispatch.cpp's FlashParams), shared by
// flash_attention.wgsl and flash_attention_combine.wgsl: the sizes, the scale, and each
// operand's strided 4-D view (element offset; batch, head, row and dim strides).
struct Params {
  heads: u32, sq: u32, skv: u32, mask_mode: u32,  // mask_mode 0: none, 1: additive
  scale: f32, _p0: u32, _p1: u32, _p2: u32,
  q_off: u32, q_sb: u32, q_sh: u32, q_ss: u32,
  k_off: u32, k_sb: u32, k_sh: u32, k_ss: u32,
  v_off: u32, v_sb: u32, v_sh: u32, v_ss: u32,
  o_off: u32, o_sb: u32, o_sh: u32, o_ss: u32,
  m_off: u32, m_sb: u32, m_sh: u32, m_ss: u32,
  q_sd: u32, k_sd: u32, v_sd: u32, o_sd: u32,
  m_sj: u32, _p3: u32, _p4: u32, _p5: u32,
}
