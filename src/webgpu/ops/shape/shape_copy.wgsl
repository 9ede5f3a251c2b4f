// Generic strided copy: walks an iteration shape `dims` (rank <= 8, row-major) and for
// each coordinate c reads src[in_base + sum((c[d] % mods[d] + offs[d]) * in_strides[d])]
// (when every shifted coordinate lies in [0, lims[d]); otherwise writes `fill`) into
// dst[out_base + sum(c[d] * out_strides[d])]. mods/lims of 0 mean "none"; offs and
// in_strides are i32 bit patterns (u32 arithmetic wraps, so negative strides work).
// Words are moved raw unless `mode` converts: 1 f32->i32, 2 i32->f32, 3 f32->bool, 4 i32->bool.
//#include "per_element.inc.wgsl"
//#include "shape_copy_params.inc.wgsl"
//#include "shape_copy_convert.inc.wgsl"
alias Word = u32;


fn element_count() -> u32 { return p.n; }

fn element(i: u32) {
  var rem = i;
  var si = p.in_base;
  var di = p.out_base;
  var inside = true;
  for (var d = i32(p.rank) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    let size = p.dims[du / 4u][du % 4u];
    var c = rem % size;
    rem = rem / size;
    di = di + c * p.out_strides[du / 4u][du % 4u];
    let m = p.mods[du / 4u][du % 4u];
    if (m != 0u) { c = c % m; }
    let ic = i32(c) + bitcast<i32>(p.offs[du / 4u][du % 4u]);
    let lim = p.lims[du / 4u][du % 4u];
    if (lim != 0u && (ic < 0 || ic >= i32(lim))) { inside = false; }
    si = si + u32(ic) * p.in_strides[du / 4u][du % 4u];
  }
  var word = p.fill;
  if (inside) { word = convert(src[si]); }
  dst[di] = word;
}
