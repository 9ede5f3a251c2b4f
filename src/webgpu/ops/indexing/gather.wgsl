// aten.gather: out has the index's shape; out[c] = src[c with c[dim] = index[c]].
// Out-of-range indices give 0 and are counted in flags[0], one of them kept in flags[1]
// (read back by the host when the indices were computed on the GPU; see index_rows.wgsl).
// Rank up to 8; words are copied as-is.
//#include "per_element.inc.wgsl"
struct Params {
  total: u32, rank: u32, dim: u32, src_size: u32,  // src_size: the source's size along dim
  index_dims: array<vec4<u32>, 2>,
  src_strides: array<vec4<u32>, 2>,
}

//#include "indexing_common.inc.wgsl"

fn element(o: u32) {
  let idx = index[o];
  if (idx < 0 || u32(idx) >= p.src_size) {
    out_of_range(o, idx, true);
    return;
  }
  var rem = o;
  var off = 0u;
  for (var d = i32(p.rank) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    let size = p.index_dims[du / 4u][du % 4u];
    let coord = rem % size;
    rem = rem / size;
    var c = coord;
    if (du == p.dim) { c = u32(idx); }
    off = off + c * p.src_strides[du / 4u][du % 4u];
  }
  out[o] = src[off];
}
