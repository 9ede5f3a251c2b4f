// PyTorch broadcasting for binary.wgsl and where.wgsl: the offsets of output element i in
// each operand. The includer's Params has `rank` and `out_dims` (rank <= 8, packed as two
// vec4s, row-major), and it defines `operand_strides(d)`, the strides of dimension d of its
// (up to three) operands, 0 where an operand is broadcast along it; an unused lane is 0 and
// its sums fold away.
fn broadcast_offsets(i: u32) -> vec3<u32> {
  var rem = i;
  var off = vec3<u32>(0u);
  for (var d = i32(p.rank) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    let size = p.out_dims[du / 4u][du % 4u];
    let coord = rem % size;
    rem = rem / size;
    off = off + coord * operand_strides(du);
  }
  return off;
}
