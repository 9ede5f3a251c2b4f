// Variant 3: like v2, but max and sum in one online pass (rescale the sum when the max
// grows), so the row is read twice instead of three times.
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
  var s = 1.0;
  for (var i = 1u; i < p.len; i++) {
    let v = x[base + i];
    if (v > m) {
      s = s * exp(m - v) + 1.0;
      m = v;
    } else {
      s += exp(v - m);
    }
  }
  let inv = 1.0 / s;
  for (var i = 0u; i < p.len; i++) { out[base + i] = exp(x[base + i] - m) * inv; }
}
