// out = cond ? a : b with PyTorch broadcasting over all three operands. Every buffer word
// holds one element, f32 or i32 as the flags say; the selected word is converted to the
// output's kind.
struct Params {
  n: u32, rank: u32, flags: u32, _p0: u32,  // flags: 1 cond_int, 2 a_int, 4 b_int, 8 out_int
  out_dims: array<vec4<u32>, 2>,
  c_strides: array<vec4<u32>, 2>,
  a_strides: array<vec4<u32>, 2>,
  b_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> cond: array<u32>;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var<uniform> p: Params;

//#include "elementwise_common.inc.wgsl"
//#include "broadcast.inc.wgsl"

fn operand_strides(d: u32) -> vec3<u32> {
  return vec3<u32>(p.a_strides[d / 4u][d % 4u], p.b_strides[d / 4u][d % 4u], p.c_strides[d / 4u][d % 4u]);
}

fn element(i: u32) {
  let off = broadcast_offsets(i);
  let c = load(cond[off.z], (kind_flags & 1u) != 0u) != 0.0;
  var word: u32;
  var is_int: bool;
  if (c) {
    word = a[off.x];
    is_int = (kind_flags & 2u) != 0u;
  } else {
    word = b[off.y];
    is_int = (kind_flags & 4u) != 0u;
  }
  let out_int = (kind_flags & 8u) != 0u;
  if (is_int == out_int) {
    out[i] = word;
  } else if (out_int) {
    out[i] = bitcast<u32>(i32(bitcast<f32>(word)));
  } else {
    out[i] = bitcast<u32>(f32(bitcast<i32>(word)));
  }
}
