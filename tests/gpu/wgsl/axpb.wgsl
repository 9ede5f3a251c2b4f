// y[i] = a * x[i] + b for i < n. The gpu/ tests' kernel.
// Linear index folds a 2-D grid: i = gid.x + gid.y * (num_workgroups.x * wg_size).
override wg_size: u32 = 64;

struct Params {
  n: u32,
  a: f32,
  b: f32,
  _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * (groups.x * wg_size);
  if (i >= params.n) {
    return;
  }
  y[i] = params.a * x[i] + params.b;
}
