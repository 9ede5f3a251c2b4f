// Deliberately broken (a missing ';'): compile errors must name this shader.
@group(0) @binding(0) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x
  y[i] = 1.0;
}
