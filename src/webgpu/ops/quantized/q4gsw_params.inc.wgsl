// The uniform of every q4gsw shader (Q4Params in register.cpp).
struct Params {
  m: u32, n: u32, k: u32, k_packed: u32,
  group_size: u32, n_pad: u32, has_bias: u32, aligned: u32,
}
