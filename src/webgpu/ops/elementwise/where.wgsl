// out = cond ? a : b with PyTorch broadcasting over all three operands. Every buffer word
// holds one element, f32 or i32 as the flags say; the selected word is converted to the
// output's kind.
//#include "dispatch.inc.wgsl"
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

override wg_size: u32 = 256;

//#include "elementwise_common.inc.wgsl"
// Elements per thread, a grid's width apart: see unary.wgsl. The grid needs n / per threads.
override per: u32 = 1u;
// Params.flags as a pipeline constant (the field stays in the layout, unread): per-element
// branches on a uniform value cost 2x on SwiftShader (bench/kernels/elementwise/README.md).
override kind_flags: u32 = 0u;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * nwg.y * wg_size;
  let t = flat_invocation(gid, nwg, wg_size);
  for (var j = 0u; j < per; j++) {
    let i = t + j * stride;
    if (i >= p.n) { return; }
    element(i);
  }
}

fn element(i: u32) {
  var rem = i;
  var ci = 0u;
  var ai = 0u;
  var bi = 0u;
  for (var d = i32(p.rank) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    let size = p.out_dims[du / 4u][du % 4u];
    let coord = rem % size;
    rem = rem / size;
    ci = ci + coord * p.c_strides[du / 4u][du % 4u];
    ai = ai + coord * p.a_strides[du / 4u][du % 4u];
    bi = bi + coord * p.b_strides[du / 4u][du % 4u];
  }
  let c = load(cond[ci], (kind_flags & 1u) != 0u) != 0.0;
  var word: u32;
  var is_int: bool;
  if (c) {
    word = a[ai];
    is_int = (kind_flags & 2u) != 0u;
  } else {
    word = b[bi];
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
