// The uniform of reduce and softmax_rows (ReduceParams in register.cpp) and the offsets
// of a kept (non-reduced) row and of a reduced element; the shader declares `p: Params`.
struct Params {
  out_n: u32, red_n: u32, kept_rank: u32, red_rank: u32,
  op: u32, flags: u32, tpr: u32, _p0: u32,  // flags: 1 in_int, 4 out_int
  scale: f32, _p1: u32, _p2: u32, _p3: u32,
  kept_dims: array<vec4<u32>, 2>,
  kept_strides: array<vec4<u32>, 2>,
  red_dims: array<vec4<u32>, 2>,
  red_strides: array<vec4<u32>, 2>,
}

// Offset of index idx into the kept (non-reduced) dims, or (reduced) the reduced ones:
// the row-major walk over kept_dims / kept_strides or red_dims / red_strides. `reduced` is a
// constant at every call, so only one pair of fields is read.
fn strided_offset(idx: u32, reduced: bool) -> u32 {
  var rem = idx;
  var off = 0u;
  for (var d = i32(select(p.kept_rank, p.red_rank, reduced)) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    var size = p.kept_dims[du / 4u][du % 4u];
    var stride = p.kept_strides[du / 4u][du % 4u];
    if (reduced) {
      size = p.red_dims[du / 4u][du % 4u];
      stride = p.red_strides[du / 4u][du % 4u];
    }
    off = off + (rem % size) * stride;
    rem = rem / size;
  }
  return off;
}

fn kept_offset(row: u32) -> u32 { return strided_offset(row, false); }
