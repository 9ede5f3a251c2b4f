// Variant 2: softmax over contiguous rows, one thread per row, no shared memory or barriers:
// pass 1 max, pass 2 sum of exp, pass 3 writes exp * (1 / sum).
struct Params { rows: u32, len: u32, _p0: u32, _p1: u32 }

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

override wg_size: u32 = 64;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = gid.x + gid.y * nwg.x * wg_size;
  if (row >= p.rows) { return; }
  let base = row * p.len;
  var m = x[base];
  for (var i = 1u; i < p.len; i++) { m = max(m, x[base + i]); }
  var s = 0.0;
  for (var i = 0u; i < p.len; i++) { s += exp(x[base + i] - m); }
  let inv = 1.0 / s;
  for (var i = 0u; i < p.len; i++) { out[base + i] = exp(x[base + i] - m) * inv; }
}
