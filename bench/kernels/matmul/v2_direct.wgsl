// Variant 2: no shared memory, no barriers. wg_x * wg_y threads (8x8: a 32x32 tile; 4x16: a
// 64-row, 16-column tile for narrow N), 4x4 outputs per thread; each thread reads its 4 rows of a and 4 columns of op(b) straight from global
// memory (caches do the reuse). Out-of-range rows/cols are clamped on load, masked on store.
struct Params {
  m: u32, n: u32, k: u32, batch: u32,
  a_bs: u32, b_bs: u32, c_bs: u32, bias_mode: u32,
  bias_rs: u32, bias_cs: u32, _p0: u32, _p1: u32,
  alpha: f32, beta: f32, _p2: f32, _p3: f32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

override trans_b: u32 = 0u;
override wg_x: u32 = 8u;
override wg_y: u32 = 8u;

@compute @workgroup_size(wg_x, wg_y, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let r0 = wid.y * wg_y * 4u + lid.y * 4u;
  let c0 = wid.x * wg_x * 4u + lid.x * 4u;
  let a_base = wid.z * p.a_bs;
  let b_base = wid.z * p.b_bs;
  var ar: array<u32, 4>;
  var bc: array<u32, 4>;
  for (var i = 0u; i < 4u; i++) {
    ar[i] = a_base + min(r0 + i, p.m - 1u) * p.k;
    if (trans_b == 1u) { bc[i] = b_base + min(c0 + i, p.n - 1u) * p.k; } else { bc[i] = b_base + min(c0 + i, p.n - 1u); }
  }
  var acc: array<vec4<f32>, 4>;
  for (var kk = 0u; kk < p.k; kk++) {
    var bv: vec4<f32>;
    if (trans_b == 1u) {
      bv = vec4<f32>(b[bc[0] + kk], b[bc[1] + kk], b[bc[2] + kk], b[bc[3] + kk]);
    } else {
      let o = kk * p.n;
      bv = vec4<f32>(b[bc[0] + o], b[bc[1] + o], b[bc[2] + o], b[bc[3] + o]);
    }
    for (var i = 0u; i < 4u; i++) { acc[i] = fma(vec4<f32>(a[ar[i] + kk]), bv, acc[i]); }
  }
  for (var i = 0u; i < 4u; i++) {
    let gm = r0 + i;
    if (gm >= p.m) { break; }
    for (var j = 0u; j < 4u; j++) {
      let gn = c0 + j;
      if (gn >= p.n) { break; }
      var r = p.alpha * acc[i][j];
      if (p.bias_mode != 0u) { r = r + p.beta * bias[gm * p.bias_rs + gn * p.bias_cs]; }
      c[wid.z * p.c_bs + gm * p.n + gn] = r;
    }
  }
}
