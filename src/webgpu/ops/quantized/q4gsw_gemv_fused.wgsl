// linear_q4gsw for one input row (M == 1) with the neighbours an LLM decode step puts
// around it folded in (webgpu/llm_gemv_fusion.h), so a layer costs fewer dispatches:
//   flags & 1: RMSNorm of x first:  y[n] = rstd * sum_k (x[k] * nw[k]) * W(n, k),
//              rstd = 1 / sqrt(mean_k(x[k]^2) + eps). rstd is one scalar, so it factors out
//              of the dot product and every workgroup gets it from the same single pass
//              over x that feeds the dot products (x is K floats; no separate dispatch).
//   flags & 2: residual add after:  y[n] = res[n] + (...).
// Weight layout, threads and loads as q4gsw_gemv_rows.wgsl (4 rows per 64-thread workgroup,
// 16-byte chunks of 32 nibbles, K % 32 == 0, k_packed % 16 == 0, group_size % 32 == 0,
// checked on the host).
//#include "q4gsw_rows_entry.inc.wgsl"
//#include "q4gsw_gemv_normed.inc.wgsl"
struct Params {
  n: u32, k: u32, k_packed: u32, group_size: u32,
  n_pad: u32, flags: u32, eps: f32, pad: u32,
}

@group(0) @binding(2) var<storage, read> w: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> scales: array<f32>;
@group(0) @binding(4) var<storage, read> res: array<f32>;        // residual [N] (x if unused)
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

const ROWS: u32 = 4u;  // output rows per workgroup, one accumulator each

fn gemv(n0: u32, tid: u32) {
  let chunks = p.k / 32u;
  let row_stride = p.k_packed / 16u;
  let norm = (p.flags & 1u) != 0u;
  // The ROWS = 4 rows (past N: row N-1 again, not written), written out rather than looped
  // (bench/kernels/robustness).
  let n_a = min(n0, p.n - 1u);
  let n_b = min(n0 + 1u, p.n - 1u);
  let n_c = min(n0 + 2u, p.n - 1u);
  let n_d = min(n0 + 3u, p.n - 1u);
  var acc = vec4<f32>(0.0);
  var ss = 0.0;
  for (var c = tid; c < chunks; c = c + WG) {
    let xv = load_chunk(c, norm, &ss);
    let srow = (c * 32u / p.group_size) * p.n_pad;
    acc += vec4<f32>(scales[srow + n_a] * chunk_dot(w[n_a * row_stride + c], xv),
                     scales[srow + n_b] * chunk_dot(w[n_b * row_stride + c], xv),
                     scales[srow + n_c] * chunk_dot(w[n_c * row_stride + c], xv),
                     scales[srow + n_d] * chunk_dot(w[n_d * row_stride + c], xv));
  }
  reduce_partials(tid, acc, ss);
  if (tid < ROWS && n0 + tid < p.n) {
    var v = red[tid * WG];
    if (norm) { v = v * reduced_rstd(p.k, p.eps); }
    if ((p.flags & 2u) != 0u) { v = v + res[n0 + tid]; }
    y[n0 + tid] = v;
  }
}
