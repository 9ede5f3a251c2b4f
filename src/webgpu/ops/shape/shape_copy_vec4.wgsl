// shape_copy.wgsl's plain strided copy (no wrap, shift or bounds) four words at a time:
// every dim, stride and base is in units of 4 words (copy.cpp's choose_copy_kernel picks
// it when the innermost dim is contiguous on both sides and everything else is a multiple
// of 4: window partitions, slices that keep the innermost dim, channel-last permutes).
// One 16-byte load and store per thread, and a quarter of the index arithmetic.
//#include "per_element.inc.wgsl"
//#include "shape_copy_params.inc.wgsl"
alias Word = vec4<u32>;

fn convert(w: vec4<u32>) -> vec4<u32> {
  switch p.mode {
    case 1u: { return bitcast<vec4<u32>>(vec4<i32>(bitcast<vec4<f32>>(w))); }
    case 2u: { return bitcast<vec4<u32>>(vec4<f32>(bitcast<vec4<i32>>(w))); }
    case 3u: { return select(vec4<u32>(0u), vec4<u32>(1u), bitcast<vec4<f32>>(w) != vec4<f32>(0.0)); }
    case 4u: { return select(vec4<u32>(0u), vec4<u32>(1u), w != vec4<u32>(0u)); }
    default: { return w; }
  }
}

fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  var rem = i;
  var si = p.in_base;
  var di = p.out_base;
  for (var d = i32(p.rank) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    let size = p.dims[du / 4u][du % 4u];
    let c = rem % size;
    rem = rem / size;
    di = di + c * p.out_strides[du / 4u][du % 4u];
    si = si + c * p.in_strides[du / 4u][du % 4u];
  }
  dst[di] = convert(src[si]);
}
