// Variant 3: 64x64 tile through shared memory like v1, but 8x8 threads with 8x8 outputs
// each: per k step a thread reads 4 vec4s (8 of a, 8 of b) for 64 FMAs instead of 2 for 16.
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

const TK: u32 = 16u;

// tile_x[kk * 16 + q] holds rows (or columns) 4q .. 4q + 3 at k0 + kk.
var<workgroup> tile_a: array<vec4<f32>, 256>;
var<workgroup> tile_b: array<vec4<f32>, 256>;

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row0 = wid.y * 64u;
  let col0 = wid.x * 64u;
  let a_base = wid.z * p.a_bs;
  let b_base = wid.z * p.b_bs;
  var acc: array<vec4<f32>, 16>;

  let ntiles = (p.k + TK - 1u) / TK;
  for (var t = 0u; t < ntiles; t++) {
    let k0 = t * TK;
    // 64 threads load 1024 elements each of a and b: 16 rounds.
    for (var r = 0u; r < 16u; r++) {
      let row = li / 16u + 4u * r;
      let kk = li % 16u;
      let gm = row0 + row;
      let gk = k0 + kk;
      var v = 0.0;
      if (gm < p.m && gk < p.k) { v = a[a_base + gm * p.k + gk]; }
      tile_a[kk * 16u + row / 4u][row % 4u] = v;
    }
    if (trans_b == 1u) {
      for (var r = 0u; r < 16u; r++) {
        let col = li / 16u + 4u * r;
        let kk = li % 16u;
        let gn = col0 + col;
        let gk = k0 + kk;
        var v = 0.0;
        if (gn < p.n && gk < p.k) { v = b[b_base + gn * p.k + gk]; }
        tile_b[kk * 16u + col / 4u][col % 4u] = v;
      }
    } else {
      for (var r = 0u; r < 16u; r++) {
        let kk = r;
        let col = li;
        let gn = col0 + col;
        let gk = k0 + kk;
        var v = 0.0;
        if (gn < p.n && gk < p.k) { v = b[b_base + gk * p.n + gn]; }
        tile_b[kk * 16u + col / 4u][col % 4u] = v;
      }
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TK; kk++) {
      let a0 = tile_a[kk * 16u + lid.y * 2u];
      let a1 = tile_a[kk * 16u + lid.y * 2u + 1u];
      let b0 = tile_b[kk * 16u + lid.x * 2u];
      let b1 = tile_b[kk * 16u + lid.x * 2u + 1u];
      for (var i = 0u; i < 4u; i++) {
        acc[2u * i] = fma(vec4<f32>(a0[i]), b0, acc[2u * i]);
        acc[2u * i + 1u] = fma(vec4<f32>(a0[i]), b1, acc[2u * i + 1u]);
        acc[8u + 2u * i] = fma(vec4<f32>(a1[i]), b0, acc[8u + 2u * i]);
        acc[8u + 2u * i + 1u] = fma(vec4<f32>(a1[i]), b1, acc[8u + 2u * i + 1u]);
      }
    }
    workgroupBarrier();
  }

  for (var i = 0u; i < 8u; i++) {
    let gm = row0 + lid.y * 8u + i;
    if (gm >= p.m) { break; }
    for (var j = 0u; j < 8u; j++) {
      let gn = col0 + lid.x * 8u + j;
      if (gn >= p.n) { break; }
      var r = p.alpha * acc[2u * i + j / 4u][j % 4u];
      if (p.bias_mode != 0u) { r = r + p.beta * bias[gm * p.bias_rs + gn * p.bias_cs]; }
      c[wid.z * p.c_bs + gm * p.n + gn] = r;
    }
  }
}
