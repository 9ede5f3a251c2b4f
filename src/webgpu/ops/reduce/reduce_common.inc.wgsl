// The uniform of reduce and softmax_rows (ReduceParams in register.cpp) and the offset
// of a kept (non-reduced) row; the shader declares `p: Params`.
struct Params {
  out_n: u32, red_n: u32, kept_rank: u32, red_rank: u32,
  op: u32, flags: u32, tpr: u32, _p0: u32,  // flags: 1 in_int, 4 out_int
  scale: f32, _p1: u32, _p2: u32, _p3: u32,
  kept_dims: array<vec4<u32>, 2>,
  kept_strides: array<vec4<u32>, 2>,
  red_dims: array<vec4<u32>, 2>,
  red_strides: array<vec4<u32>, 2>,
}

fn kept_offset(row: u32) -> u32 {
  var rem = row;
  var off = 0u;
  for (var d = i32(p.kept_rank) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    let size = p.kept_dims[du / 4u][du % 4u];
    off = off + (rem % size) * p.kept_strides[du / 4u][du % 4u];
    rem = rem / size;
  }
  return off;
}
