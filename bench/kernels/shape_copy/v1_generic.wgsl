// Snapshot of src/webgpu/ops/shape/shape_copy.wgsl (one element per thread, full plan) with
// per_element.inc.wgsl's entry point inlined (per = 1).
// Generic strided copy: walks an iteration shape `dims` (rank <= 8, row-major) and for
// each coordinate c reads src[in_base + sum((c[d] % mods[d] + offs[d]) * in_strides[d])]
// (when every shifted coordinate lies in [0, lims[d]); otherwise writes `fill`) into
// dst[out_base + sum(c[d] * out_strides[d])]. mods/lims of 0 mean "none"; offs and
// in_strides are i32 bit patterns (u32 arithmetic wraps, so negative strides work).
// Words are moved raw unless `mode` converts: 1 f32->i32, 2 i32->f32, 3 f32->bool, 4 i32->bool.
struct Params {
  n: u32, rank: u32, in_base: u32, out_base: u32,
  mode: u32, fill: u32, _p0: u32, _p1: u32,
  dims: array<vec4<u32>, 2>,
  in_strides: array<vec4<u32>, 2>,
  out_strides: array<vec4<u32>, 2>,
  mods: array<vec4<u32>, 2>,
  offs: array<vec4<u32>, 2>,
  lims: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;


fn convert(w: u32) -> u32 {
  switch p.mode {
    case 1u: { return bitcast<u32>(i32(bitcast<f32>(w))); }
    case 2u: { return bitcast<u32>(f32(bitcast<i32>(w))); }
    case 3u: { return select(0u, 1u, bitcast<f32>(w) != 0.0); }
    case 4u: { return select(0u, 1u, w != 0u); }
    default: { return w; }
  }
}

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

fn flat_invocation(gid: vec3<u32>, nwg: vec3<u32>, wg: u32) -> u32 { return gid.x + gid.y * nwg.x * wg; }
fn flat_workgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.x + wid.y * nwg.x; }
override wg_size: u32 = 256u;
@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_invocation(gid, nwg, wg_size);
  if (i >= element_count()) { return; }
  element(i);
}
