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

// v after the steps, at output column gn; res: the residual at this element (p.res_mode != 0).
fn epilogue_steps(v: f32, gn: u32, res: f32) -> f32 {
  var r = v;
  for (var s = 0u; s < 4u; s++) {
    let code = (p.epi >> (4u * s)) & 15u;
    if (code == 0u) { break; }
    let a = p.epi_a[s];
    switch code {
      case 1u: { r = 0.5 * r * (1.0 + erf_f(r * 0.7071067811865476)); }  // gelu (erf)
      case 2u: { r = 0.5 * r * (1.0 + tanh_safe(0.7978845608028654 * (r + 0.044715 * r * r * r))); }  // gelu (tanh)
      case 3u: { r = max(r, 0.0); }
      case 4u: { r = r * column[gn]; }
      case 5u: { r = r + a * column[gn]; }
      case 6u: { r = r + a * res; }
      case 7u: { r = r * a; }
      default: { r = r + a; }  // 8: add a scalar
    }
  }
  return r;
}
