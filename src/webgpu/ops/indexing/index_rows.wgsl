// Row gather for embedding / index_select / index.Tensor: viewing the source as
// [outer, S, inner] and the output as [outer, J, inner], out[o, j, i] = src[o, index[j], i].
// Out-of-range indices (after wrapping negatives when `wrap`) give 0 and are counted in
// flags[0], one of them (as given) kept in flags[1]: the host reads the flags back after
// the run when the indices were computed on the GPU (register.cpp). Words are copied
// as-is, so any 32-bit element type works.
//#include "dispatch.inc.wgsl"
struct Params {
  total: u32, inner: u32, count: u32, src_size: u32,  // count = J, src_size = S
  wrap: u32, _p0: u32, _p1: u32, _p2: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> index: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;
@group(0) @binding(4) var<storage, read_write> flags: array<atomic<i32>, 2>;

override wg_size: u32 = 256;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let o = flat_invocation(gid, nwg, wg_size);
  if (o >= p.total) { return; }
  let i = o % p.inner;
  let j = (o / p.inner) % p.count;
  let outer = o / (p.inner * p.count);
  let given = index[j];
  var idx = given;
  if (idx < 0 && p.wrap != 0u) { idx = idx + i32(p.src_size); }
  if (idx < 0 || u32(idx) >= p.src_size) {
    out[o] = 0u;
    if (i == 0u) {  // once per index and outer row, not per copied word
      atomicAdd(&flags[0], 1);
      atomicStore(&flags[1], given);
    }
    return;
  }
  out[o] = src[(outer * p.src_size + u32(idx)) * p.inner + i];
}
