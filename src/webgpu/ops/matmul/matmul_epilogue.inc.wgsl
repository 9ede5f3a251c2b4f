// The elementwise ops a matrix product applies to its result before storing it, after alpha
// and its bias (webgpu/matmul_fusion.h plans them; MatmulStep in webgpu/graph.h): p.epi holds
// up to four step codes, 4 bits each, the first in the low bits, 0 ending the list, and
// p.epi_a each step's scalar or coefficient. Every matmul shader applies them through
// `epilogue_steps`; a kernel of its own (another store width, f16 arithmetic) needs only
// these bindings and Params fields, and passes the residual value it loaded (p.res_mode:
// 1 from binding 5 at the output's flat index, 2 from the output's own words, which the
// thread that writes an element reads first: the memory plan may put both in one buffer).
//#include "unary_math.inc.wgsl"

@group(0) @binding(5) var<storage, read> residual: array<f32>;  // kAddResidual: shaped as c
@group(0) @binding(6) var<storage, read> column: array<f32>;    // kMulColumn / kAddColumn: N values

// The step codes as a pipeline constant (GraphOptions::specialize_matmul_epilogue): the
// pipeline then holds only the steps it runs (no erf, tanh or switch it does not need). The
// default, 0xffffffff, reads them from p.epi at run time: one pipeline for every epilogue.
override EPI: u32 = 0xffffffffu;

fn epi_codes() -> u32 { return select(p.epi, EPI, EPI != 0xffffffffu); }

// One step (code 1..8) on r; a: its scalar or coefficient; res: the residual at this element.
fn matmul_epilogue_step(code: u32, a: f32, r: f32, gn: u32, res: f32) -> f32 {
  switch code {
    case 1u: { return 0.5 * r * (1.0 + erf_f(r * 0.7071067811865476)); }  // gelu (erf)
    case 2u: { return 0.5 * r * (1.0 + tanh_safe(0.7978845608028654 * (r + 0.044715 * r * r * r))); }  // gelu (tanh)
    case 3u: { return max(r, 0.0); }
    case 4u: { return r * column[gn]; }
    case 5u: { return r + a * column[gn]; }
    case 6u: { return r + a * res; }
    case 7u: { return r * a; }
    default: { return r + a; }  // 8: add a scalar
  }
}

// v after the steps, at output column gn; res: the residual at this element (p.res_mode != 0).
// The four steps written out, not looped: each code is a constant where EPI is set, and no
// loop index reaches p.epi_a (bench/kernels/robustness).
fn epilogue_steps(v: f32, gn: u32, res: f32) -> f32 {
  let codes = epi_codes();
  var r = v;
  if ((codes & 15u) == 0u) { return r; }
  r = matmul_epilogue_step(codes & 15u, p.epi_a.x, r, gn, res);
  if (((codes >> 4u) & 15u) == 0u) { return r; }
  r = matmul_epilogue_step((codes >> 4u) & 15u, p.epi_a.y, r, gn, res);
  if (((codes >> 8u) & 15u) == 0u) { return r; }
  r = matmul_epilogue_step((codes >> 8u) & 15u, p.epi_a.z, r, gn, res);
  if (((codes >> 12u) & 15u) == 0u) { return r; }
  return matmul_epilogue_step((codes >> 12u) & 15u, p.epi_a.w, r, gn, res);
}
