// Workgroup memory starts zeroed (WGSL's rule), whichever way the device zeroes it (on a CPU
// adapter src/gpu/device.cpp has Tint do it in the shader instead of Vulkan's extension).
// Each workgroup sums its 8 KiB of workgroup memory before writing anything, then fills it
// with its own id + 1: where the memory were not zeroed, a later workgroup that gets the
// same memory (SwiftShader reuses it) would read an earlier one's values.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

var<workgroup> scratch: array<vec4<f32>, 512>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  var s = vec4<f32>(0.0);
  for (var i = li; i < 512u; i += 64u) { s += abs(scratch[i]); }
  workgroupBarrier();
  out[wid.x * 64u + li] = s.x + s.y + s.z + s.w;
  for (var i = li; i < 512u; i += 64u) { scratch[i] = vec4<f32>(f32(wid.x + 1u)); }
}
