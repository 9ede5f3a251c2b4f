// aten.grid_sampler_2d: out[n, c, h, w] samples input[n, c] at grid[n, h, w] = (x, y) in
// [-1, 1], as PyTorch's CPU kernel does: unnormalize (align_corners: (g + 1) / 2 * (size - 1),
// else ((g + 1) * size - 1) / 2), border padding clips the coordinate to [0, size - 1], and
// taps outside the input read 0 (zeros padding). Bilinear (mode 0) or nearest (mode 1,
// round half to even). One thread per output element.
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"
//#include "grid_sampler_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> grid: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

override mode: u32 = 0u;

fn unnormalize(g: f32, size: u32) -> f32 {
  let s = f32(size);
  var v = 0.0;
  if ((p.flags & 1u) != 0u) {
    v = (g + 1.0) / 2.0 * (s - 1.0);
  } else {
    v = ((g + 1.0) * s - 1.0) / 2.0;
  }
  if ((p.flags & 2u) != 0u) { v = clamp(v, 0.0, s - 1.0); }
  return v;
}

fn tap(base: u32, y: i32, x: i32) -> f32 {
  if (x < 0 || y < 0 || x >= i32(p.w_in) || y >= i32(p.h_in)) { return 0.0; }
  return src[base + u32(y) * p.w_in + u32(x)];
}

fn element_count() -> u32 { return p.total; }

fn element(i: u32) {
  let o = nchw_coords(i, p.c, p.h_out, p.w_out);
  let gi = ((o.n * p.h_out + o.y) * p.w_out + o.x) * 2u;
  let ix = unnormalize(grid[gi], p.w_in);
  let iy = unnormalize(grid[gi + 1u], p.h_in);
  let base = (o.n * p.c + o.c) * p.h_in * p.w_in;
  if (mode == 1u) {
    out[i] = tap(base, i32(round(iy)), i32(round(ix)));
    return;
  }
  let x0 = floor(ix);
  let y0 = floor(iy);
  let tx = ix - x0;
  let ty = iy - y0;
  let xi = i32(x0);
  let yi = i32(y0);
  out[i] = tap(base, yi, xi) * (1.0 - tx) * (1.0 - ty) + tap(base, yi, xi + 1) * tx * (1.0 - ty) +
           tap(base, yi + 1, xi) * (1.0 - tx) * ty + tap(base, yi + 1, xi + 1) * tx * ty;
}
