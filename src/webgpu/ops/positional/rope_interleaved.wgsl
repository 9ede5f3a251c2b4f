// et_vk.apply_rotary_emb_interleaved (EdgeTAM's pair-interleaved complex RoPE): x [B, N, C]
// with (real, imag) pairs along C, freqs_cis flattened to [N, C] with (cos, sin) pairs:
//   out[2k] = x[2k] cos_k - x[2k+1] sin_k,  out[2k+1] = x[2k] sin_k + x[2k+1] cos_k
// One thread per pair.
//#include "per_element.inc.wgsl"
struct Params { pairs: u32, n: u32, c: u32, _p0: u32, }

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> freqs: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

fn element_count() -> u32 { return p.pairs; }

fn element(i: u32) {
  let e = 2u * i;                  // element index of the pair's real part in x
  let f = e % (p.n * p.c);         // the same position in one batch's [N, C]
  let xr = x[e];
  let xi = x[e + 1u];
  let c = freqs[f];
  let s = freqs[f + 1u];
  out[e] = xr * c - xi * s;
  out[e + 1u] = xr * s + xi * c;
}
