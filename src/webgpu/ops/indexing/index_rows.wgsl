// Row gather for embedding / index_select / index.Tensor: viewing the source as
// [outer, S, inner] and the output as [outer, J, inner], out[o, j, i] = src[o, index[j], i].
// Out-of-range indices (after wrapping negatives when `wrap`) give 0 and are counted in
// flags[0], one of them (as given) kept in flags[1]: the host reads the flags back after
// the run when the indices were computed on the GPU (register.cpp). Words are copied
// as-is, so any 32-bit element type works.
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"
struct Params {
  total: u32, inner: u32, count: u32, src_size: u32,  // count = J, src_size = S
  wrap: u32, _p0: u32, _p1: u32, _p2: u32,
}

//#include "indexing_common.inc.wgsl"

fn element(o: u32) {
  // (c.x, c.y, c.plane) = (i, j, outer) of the output viewed as [outer, J, inner].
  let c = plane_coords(o, p.count, p.inner);
  let given = index[c.y];
  var idx = given;
  if (idx < 0 && p.wrap != 0u) { idx = idx + i32(p.src_size); }
  if (idx < 0 || u32(idx) >= p.src_size) {
    out_of_range(o, given, c.x == 0u);  // counted once per index and outer row, not per word
    return;
  }
  out[o] = src[(c.plane * p.src_size + u32(idx)) * p.inner + c.x];
}
