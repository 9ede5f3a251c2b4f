// dst[0] = src[at.x], with at.x past the bound range of src (robustness_test.cpp). Under
// Dawn's robustness the index is clamped to the binding's last element; without it the read
// lands where the index points.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> at: vec4<u32>;

@compute @workgroup_size(1)
fn main() {
  dst[0] = src[at.x];
}
