// Rotary embeddings for q and k in one dispatch (x [B,S,H,D], one thread per output
// element; threads below nq handle q, the rest k).
//   mode 0 (Llama, interleaved pairs): freqs [S, D/2], row s;
//     out[2i] = x[2i] c - x[2i+1] s,  out[2i+1] = x[2i] s + x[2i+1] c.
//   mode 1 (HF rotate-half): freqs [P, R] (R = rotary dims <= D), row start_pos + s;
//     out[d] = x[d] c[d] + rotate_half(x)[d] s[d] for d < R, x[d] beyond.
//#include "per_element.inc.wgsl"
struct Params {
  nq: u32, n: u32, s_len: u32, d: u32,
  hq: u32, hk: u32, mode: u32, start_pos: u32,
  f_width: u32, f_rows: u32, _p0: u32, _p1: u32,
}

@group(0) @binding(0) var<storage, read> xq: array<f32>;
@group(0) @binding(1) var<storage, read> xk: array<f32>;
@group(0) @binding(2) var<storage, read> fcos: array<f32>;
@group(0) @binding(3) var<storage, read> fsin: array<f32>;
@group(0) @binding(4) var<storage, read_write> q_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> k_out: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;


fn load_x(is_q: bool, i: u32) -> f32 {
  if (is_q) { return xq[i]; }
  return xk[i];
}

fn element_count() -> u32 { return p.n; }

fn element(g: u32) {
  let is_q = g < p.nq;
  var i = g;
  var heads = p.hq;
  if (!is_q) { i = g - p.nq; heads = p.hk; }
  let d = i % p.d;
  let s = (i / (p.d * heads)) % p.s_len;
  var r = 0.0;
  if (p.mode == 0u) {
    var row = s;
    if (p.f_rows == 1u) { row = 0u; }
    let f = row * p.f_width + d / 2u;
    let c = fcos[f];
    let sn = fsin[f];
    if ((d & 1u) == 0u) {
      r = load_x(is_q, i) * c - load_x(is_q, i + 1u) * sn;
    } else {
      r = load_x(is_q, i - 1u) * sn + load_x(is_q, i) * c;
    }
  } else {
    let rot = p.f_width;
    if (d >= rot) {
      r = load_x(is_q, i);
    } else {
      let half = rot / 2u;
      let f = (p.start_pos + s) * p.f_width + d;
      let x = load_x(is_q, i);
      if (d < half) {
        r = x * fcos[f] - load_x(is_q, i + half) * fsin[f];
      } else {
        r = x * fcos[f] + load_x(is_q, i - half) * fsin[f];
      }
    }
  }
  if (is_q) { q_out[i] = r; } else { k_out[i] = r; }
}
