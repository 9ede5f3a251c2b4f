// Finishes a split-K implicit-GEMM conv (v5-v8 with ks > 1): y[i] = epilogue(clamp(sum over
// z of part[z * total + i] + bias[channel of i])). One invocation per output element.
struct Params {
  n: u32, in_c: u32, in_h: u32, in_w: u32,
  out_c: u32, out_h: u32, out_w: u32, groups: u32,
  k_h: u32, k_w: u32, stride_h: u32, stride_w: u32,
  pad_h: u32, pad_w: u32, dil_h: u32, dil_w: u32,
  total: u32, has_bias: u32, clamp_min: f32, clamp_max: f32,
  epi_n: u32, has_scale: u32, scale_bstride: u32, _p0: u32,
  epi: array<vec4<u32>, 6>,
}

@group(0) @binding(0) var<storage, read> part: array<f32>;  // [ks][total]
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override ks: u32 = 2;
override wg_size: u32 = 256;

fn epilogue(v: f32) -> f32 {
  var r = v;
  for (var k = 0u; k < p.epi_n; k = k + 1u) {
    let a = bitcast<f32>(p.epi[k].y);
    switch p.epi[k].x {
      case 1u: { r = max(r, a); }
      case 2u: { r = min(r, a); }
      case 3u: { r = r * clamp(r + 3.0, 0.0, 6.0) / 6.0; }
      case 4u: { r = r + a; }
      case 5u: { r = r * a; }
      case 6u: { r = r / a; }
      default: {}
    }
  }
  return r;
}

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * wg_size;
  if (i >= p.total) { return; }
  var s = 0.0;
  for (var z = 0u; z < ks; z = z + 1u) { s = s + part[z * p.total + i]; }
  if (p.has_bias != 0u) { s = s + bias[(i / (p.out_h * p.out_w)) % p.out_c]; }
  var r = clamp(s, p.clamp_min, p.clamp_max);
  if (p.epi_n != 0u) { r = epilogue(r); }
  y[i] = r;
}
