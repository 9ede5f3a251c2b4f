// 2-D average (mode 0) and max (mode 1, with flat h*W+w indices) pooling over NCHW planes,
// one thread per output element.
//#include "per_element.inc.wgsl"
//#include "nchw.inc.wgsl"
struct Params {
  total: u32, in_h: u32, in_w: u32, out_h: u32,
  out_w: u32, k_h: u32, k_w: u32, s_h: u32,
  s_w: u32, p_h: u32, p_w: u32, d_h: u32,
  d_w: u32, mode: u32, count_include_pad: u32, divisor: u32,  // divisor: 0 unless overridden
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;
@group(0) @binding(3) var<uniform> p: Params;

fn element_count() -> u32 { return p.total; }

fn element(i: u32) {
  let o = plane_coords(i, p.out_h, p.out_w);
  let base = o.plane * p.in_h * p.in_w;
  let ih = i32(p.in_h);
  let iw = i32(p.in_w);
  let hs = i32(o.y * p.s_h) - i32(p.p_h);
  let ws = i32(o.x * p.s_w) - i32(p.p_w);
  if (p.mode == 0u) {
    var he = min(hs + i32(p.k_h), ih + i32(p.p_h));
    var we = min(ws + i32(p.k_w), iw + i32(p.p_w));
    let pool_size = (he - hs) * (we - ws);
    let h0 = max(hs, 0);
    let w0 = max(ws, 0);
    he = min(he, ih);
    we = min(we, iw);
    var s = 0.0;
    for (var h = h0; h < he; h = h + 1) {
      for (var w = w0; w < we; w = w + 1) { s = s + x[base + u32(h * iw + w)]; }
    }
    var div = f32(pool_size);
    if (p.divisor != 0u) {
      div = f32(p.divisor);
    } else if (p.count_include_pad == 0u) {
      div = f32(max(he - h0, 0) * max(we - w0, 0));
    }
    if (he <= h0 || we <= w0) { out[i] = 0.0; } else { out[i] = s / div; }
  } else {
    var best = 0.0;  // replaced by the first in-bounds element
    var best_idx = -1;
    for (var kh = 0u; kh < p.k_h; kh = kh + 1u) {
      let h = hs + i32(kh * p.d_h);
      if (h < 0 || h >= ih) { continue; }
      for (var kw = 0u; kw < p.k_w; kw = kw + 1u) {
        let w = ws + i32(kw * p.d_w);
        if (w < 0 || w >= iw) { continue; }
        let v = x[base + u32(h * iw + w)];
        if (best_idx < 0 || v > best || v != v) {
          best = v;
          best_idx = h * iw + w;
          if (v != v) { break; }
        }
      }
      if (best != best) { break; }
    }
    out[i] = best;
    indices[i] = max(best_idx, 0);
  }
}
