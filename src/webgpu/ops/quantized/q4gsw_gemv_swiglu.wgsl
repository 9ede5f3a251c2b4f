// The SwiGLU feed-forward input of an LLM decode step in one dispatch
// (webgpu/llm_gemv_fusion.h): optional RMSNorm of x (flags & 1, as q4gsw_gemv_fused.wgsl),
// the gate and up q4gsw GEMVs over the same x, and out[n] = silu(gate[n]) * up[n].
// One 64-thread workgroup computes 2 output rows: gate rows n0, n0+1 (w0, s0) and up rows
// n0, n0+1 (w1, s1) share each loaded chunk of x. Loads and host checks as
// q4gsw_gemv_rows.wgsl; both weights have the same K, k_packed, group size and N.
//#include "q4gsw_rows_entry.inc.wgsl"
//#include "q4gsw_gemv_normed.inc.wgsl"
struct Params {
  n: u32, k: u32, k_packed: u32, group_size: u32,
  n_pad0: u32, n_pad1: u32, flags: u32, eps: f32,
}

@group(0) @binding(2) var<storage, read> w0: array<vec4<u32>>;   // gate
@group(0) @binding(3) var<storage, read> s0: array<f32>;
@group(0) @binding(4) var<storage, read> w1: array<vec4<u32>>;   // up
@group(0) @binding(5) var<storage, read> s1: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;
@group(0) @binding(7) var<uniform> p: Params;

const ROWS: u32 = 2u;  // output rows per workgroup; accumulators: gate 0..1, up 2..3

fn gemv(n0: u32, tid: u32) {
  let chunks = p.k / 32u;
  let row_stride = p.k_packed / 16u;
  let norm = (p.flags & 1u) != 0u;
  let na = n0;
  let nb = min(n0 + 1u, p.n - 1u);  // past N (odd N): re-read row N-1, not written
  var acc = vec4<f32>(0.0);
  var ss = 0.0;
  for (var c = tid; c < chunks; c = c + WG) {
    let xv = load_chunk(c, norm, &ss);
    let g = c * 32u / p.group_size;
    acc.x = acc.x + s0[g * p.n_pad0 + na] * chunk_dot(w0[na * row_stride + c], xv);
    acc.y = acc.y + s0[g * p.n_pad0 + nb] * chunk_dot(w0[nb * row_stride + c], xv);
    acc.z = acc.z + s1[g * p.n_pad1 + na] * chunk_dot(w1[na * row_stride + c], xv);
    acc.w = acc.w + s1[g * p.n_pad1 + nb] * chunk_dot(w1[nb * row_stride + c], xv);
  }
  reduce_partials(tid, acc, ss);
  if (tid < ROWS && n0 + tid < p.n) {
    var gate = red[tid * WG];
    var up = red[(2u + tid) * WG];
    if (norm) {
      let rstd = reduced_rstd(p.k, p.eps);
      gate = gate * rstd;
      up = up * rstd;
    }
    y[n0 + tid] = gate / (1.0 + exp(-gate)) * up;
  }
}
