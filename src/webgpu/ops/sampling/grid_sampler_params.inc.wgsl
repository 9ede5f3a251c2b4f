// The uniform of grid_sampler_2d.wgsl (GridParams in register.cpp, which static_asserts
// its size against this one).
struct Params {
  n: u32, c: u32, h_in: u32, w_in: u32,
  h_out: u32, w_out: u32, total: u32, flags: u32,  // flags: 1 align_corners, 2 border
}
