// shape_copy.wgsl's plain strided copy for copies that move the innermost dim (NCHW <->
// NHWC, k^T before a matmul, head/token swaps): the iteration's last two dims are `a` (the
// source's contiguous dim) and `b` (the destination's), so one thread per element would
// read with a stride (or write with one). Each workgroup moves a 32 x 32 tile of (a, b)
// through workgroup memory instead: it reads the tile along a and writes it along b, both
// coalesced. The dims before a and b (at most 6) are a batch, decomposed once per thread.
// Strides are free (it is correct for any plain plan); copy.cpp picks it for the
// transposing ones. Same Params as shape_copy.wgsl, with the tile grid in tiles_a /
// tiles_b; n = workgroups in all.
//#include "dispatch.inc.wgsl"
//#include "shape_copy_params.inc.wgsl"
//#include "shape_copy_convert.inc.wgsl"
alias Word = u32;

const T: u32 = 32u;   // tile edge
const R: u32 = 8u;    // rows per pass: 32 x 8 = 256 threads, 4 passes
var<workgroup> tile: array<u32, 1056>;  // 32 x 33: the padding column keeps the transposed reads off one bank

// Entry d of the uniform's dims / strides, read in place: passing the array by value would
// copy it into a register array indexed at run time (bench/kernels/robustness).
fn dim_at(d: u32) -> u32 { return p.dims[d / 4u][d % 4u]; }
fn in_stride_at(d: u32) -> u32 { return p.in_strides[d / 4u][d % 4u]; }
fn out_stride_at(d: u32) -> u32 { return p.out_strides[d / 4u][d % 4u]; }

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let w = flat_workgroup(wid, nwg);
  if (w >= p.n) { return; }  // the grid's rounding: whole workgroups only, so uniform
  let ra = p.rank - 2u;
  let rb = p.rank - 1u;
  let size_a = dim_at(ra);
  let size_b = dim_at(rb);
  let tb = w % p.tiles_b;
  let ta = (w / p.tiles_b) % p.tiles_a;
  var rem = w / (p.tiles_b * p.tiles_a);
  var si = p.in_base;
  var di = p.out_base;
  for (var d = i32(ra) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    let size = dim_at(du);
    let c = rem % size;
    rem = rem / size;
    si = si + c * in_stride_at(du);
    di = di + c * out_stride_at(du);
  }
  let isa = in_stride_at(ra);
  let isb = in_stride_at(rb);
  let osa = out_stride_at(ra);
  let osb = out_stride_at(rb);
  let a0 = ta * T;
  let b0 = tb * T;
  let x = li % T;
  let y = li / T;
  // Read: neighbouring threads walk a (the source's contiguous dim).
  for (var k = 0u; k < T; k = k + R) {
    let a = a0 + x;
    let b = b0 + y + k;
    if (a < size_a && b < size_b) { tile[(y + k) * (T + 1u) + x] = src[si + a * isa + b * isb]; }
  }
  workgroupBarrier();
  // Write: neighbouring threads walk b (the destination's contiguous dim).
  for (var k = 0u; k < T; k = k + R) {
    let a = a0 + y + k;
    let b = b0 + x;
    if (a < size_a && b < size_b) { dst[di + a * osa + b * osb] = convert(tile[x * (T + 1u) + y + k]); }
  }
}
