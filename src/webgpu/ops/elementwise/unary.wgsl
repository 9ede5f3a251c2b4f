// out = op(a) elementwise over a contiguous tensor (same shape in and out). Every buffer
// word holds one element, f32 or i32 as the flags say; arithmetic runs in f32.
struct Params {
  n: u32, op: u32, flags: u32, _p0: u32,  // flags: 1 a_int, 4 out_int, 16 has_lo, 32 has_hi
  lo: f32, hi: f32, s: f32, _p1: u32,      // clamp bounds; s = slope / exponent
}

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

//#include "elementwise_common.inc.wgsl"
//#include "unary_math.inc.wgsl"

// sin / cos to about 1 ulp for moderate |x| (WGSL only promises 2^-11 absolute): Cody-Waite
// reduction by pi/2 in three short parts (exact products), then minimax polynomials on
// [-pi/4, pi/4] (Cephes sinf/cosf).
fn sin_cos(x: f32, want_cos: bool) -> f32 {
  let k = round(x * 0.6366197723675814);
  var r = x - k * 1.5703125;
  r = r - k * 4.837512969970703125e-4;
  r = r - k * 7.549789954891882e-8;
  let z = r * r;
  let s = r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
  let c = 1.0 - 0.5 * z + z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
  var q = u32(i32(k) & 3);
  if (want_cos) { q = (q + 1u) & 3u; }
  switch q {
    case 0u: { return s; }
    case 1u: { return c; }
    case 2u: { return -s; }
    default: { return -c; }
  }
}

fn pow_scalar(x: f32, e: f32) -> f32 {
  if (e == 0.0) { return 1.0; }
  if (e == 1.0) { return x; }
  if (e == 2.0) { return x * x; }
  if (e == 0.5) { return sqrt(x); }
  if (e == -1.0) { return 1.0 / x; }
  let ie = round(e);
  if (ie == e) {
    // Integral exponent: defined for negative bases; the sign follows the parity.
    let m = pow(abs(x), e);
    let odd = (i32(abs(ie)) & 1) == 1;
    if (x == 0.0) { return select(1.0 / select(abs(x), x, odd), 0.0, e > 0.0); }  // inf for e < 0
    return select(m, -m, x < 0.0 && odd);
  }
  return pow(x, e);
}

// WGSL leaves log of 0 and of negatives undefined; PyTorch gives -inf and NaN (and NaN
// for NaN). Built from bits at run time (a NaN or infinite constant is a WGSL error);
// _p0 is always 0.
fn log_f(x: f32) -> f32 {
  if (x == 0.0) { return bitcast<f32>(0xff800000u | p._p0); }
  if (!(x > 0.0)) { return bitcast<f32>(0x7fc00000u | p._p0); }
  return log(x);
}

fn apply(op: u32, x: f32) -> f32 {
  switch op {
    case 0u: { return max(x, 0.0); }                          // relu
    case 1u: { return 1.0 / (1.0 + exp(-x)); }                // sigmoid
    case 2u: { return tanh_safe(x); }                          // tanh
    case 3u: { return exp(x); }
    case 4u: { return sqrt(x); }
    case 5u: { return inverseSqrt(x); }
    case 6u: { return -x; }
    case 7u: { return abs(x); }
    case 8u: { return sin_cos(x, false); }
    case 9u: { return sin_cos(x, true); }
    case 10u: { return 0.5 * x * (1.0 + erf_f(x * 0.7071067811865476)); }  // gelu (erf)
    case 11u: {                                                 // gelu (tanh)
      return 0.5 * x * (1.0 + tanh_safe(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    }
    case 12u: { return x * clamp(x + 3.0, 0.0, 6.0) / 6.0; }  // hardswish
    case 13u: {                                                 // clamp / hardtanh
      var y = x;
      if ((kind_flags & 16u) != 0u) { y = max(y, p.lo); }
      if ((kind_flags & 32u) != 0u) { y = min(y, p.hi); }
      return y;
    }
    case 14u: { return select(x * p.s, x, x >= 0.0); }        // leaky_relu
    case 15u: { return pow_scalar(x, p.s); }
    case 16u: { return select(0.0, 1.0, x == 0.0); }          // logical_not
    case 17u: { return round(x); }                             // half to even, as torch
    case 18u: { return x * (1.0 / (1.0 + exp(-x))); }         // silu
    case 19u: { return log_f(x); }
    default: { return x; }
  }
}

// The op, fixed per pipeline (Params.op is kept for the layout but not read): a switch on a
// uniform value ran every case per element on SwiftShader, 6x slower than a constant one.
override op_code: u32 = 0u;

fn element(i: u32) {
  let r = apply(op_code, load(a[i], (kind_flags & 1u) != 0u));
  if ((kind_flags & 4u) != 0u) {
    out[i] = bitcast<u32>(i32(r));
  } else {
    out[i] = bitcast<u32>(r);
  }
}
