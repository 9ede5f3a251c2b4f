// The uniform of both upsample shaders (UpsampleParams in register.cpp).
struct Params {
  n: u32, in_h: u32, in_w: u32, out_h: u32,
  out_w: u32, align_corners: u32, _p0: u32, _p1: u32,
  scale_h: f32, scale_w: f32, _p2: u32, _p3: u32,
}
