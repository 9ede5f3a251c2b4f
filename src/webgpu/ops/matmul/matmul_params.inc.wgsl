// The uniform of every matmul shader (MatmulParams in register.cpp).
struct Params {
  m: u32, n: u32, k: u32, batch: u32,
  a_bs: u32, b_bs: u32, c_bs: u32, bias_mode: u32,
  bias_rs: u32, bias_cs: u32, _p0: u32, _p1: u32,
  alpha: f32, beta: f32, _p2: f32, _p3: f32,
}
