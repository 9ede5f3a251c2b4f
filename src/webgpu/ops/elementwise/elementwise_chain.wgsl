// A fused chain of elementwise ops (chain_fusion.h): v = operand 0 (of up to 6), then up to 8 steps
// v = step(v), each a unary activation or a binary op with a constant or another operand
// (PyTorch broadcasting into the chain's shape), and only the last value is stored. The
// intermediates of the unfused ops are never written or read: one pass over the words.
// The steps are pipeline constants (s0..s7, one pipeline per chain signature), so the
// per-element switches fold away as in unary.wgsl / binary.wgsl. f32 operands only.
struct Params {
  n: u32, rank: u32, _p0: u32, _p1: u32,
  out_dims: array<vec4<u32>, 2>,
  strides: array<vec4<u32>, 12>,  // operand j's strides (elements, 0 where broadcast) at [2j], [2j + 1]
  consts: array<vec4<f32>, 4>,    // step k: (constant, alpha) at consts[k / 2][2 (k % 2)], [.. + 1]
}

@group(0) @binding(0) var<storage, read> t0: array<f32>;
@group(0) @binding(1) var<storage, read> t1: array<f32>;
@group(0) @binding(2) var<storage, read> t2: array<f32>;
@group(0) @binding(3) var<storage, read> t3: array<f32>;
@group(0) @binding(4) var<storage, read> t4: array<f32>;
@group(0) @binding(5) var<storage, read> t5: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;
@group(0) @binding(7) var<uniform> p: Params;

//#include "per_element.inc.wgsl"
//#include "unary_math.inc.wgsl"

fn element_count() -> u32 { return p.n; }

// Step words: bits 0-7 the code (below 32: binary.wgsl's op codes; 32 + unary.wgsl's op
// code), bits 8-11 the other operand (0: the step's constant, 1 + j: operand j), bit 12
// swapped (other op v instead of v op other).
override nsteps: u32 = 1u;
override nops: u32 = 1u;  // operands bound (1..6); the rest repeat t0 and are never read
override s0: u32 = 0u;
override s1: u32 = 0u;
override s2: u32 = 0u;
override s3: u32 = 0u;
override s4: u32 = 0u;
override s5: u32 = 0u;
override s6: u32 = 0u;
override s7: u32 = 0u;

// Element i's offset in each operand: j = 0..3 in a, 4..5 in b (vectors, not an array
// indexed by a loop over operands: bench/kernels/robustness). Entries past nops are never
// read (their strides are whatever the uniform holds).
struct Offsets { a: vec4<u32>, b: vec2<u32> }

fn offsets(i: u32) -> Offsets {
  var rem = i;
  var o = Offsets(vec4<u32>(0u), vec2<u32>(0u));
  for (var d = i32(p.rank) - 1; d >= 0; d = d - 1) {
    let du = u32(d);
    let q = du / 4u;
    let r = du % 4u;
    let size = p.out_dims[q][r];
    let coord = rem % size;
    rem = rem / size;
    o.a += coord * vec4<u32>(p.strides[q][r], p.strides[2u + q][r], p.strides[4u + q][r], p.strides[6u + q][r]);
    if (nops > 4u) { o.b += coord * vec2<u32>(p.strides[8u + q][r], p.strides[10u + q][r]); }
  }
  return o;
}

fn operand(j: u32, off: Offsets) -> f32 {
  switch j {
    case 1u: { return t0[off.a.x]; }
    case 2u: { return t1[off.a.y]; }
    case 3u: { return t2[off.a.z]; }
    case 4u: { return t3[off.a.w]; }
    case 5u: { return t4[off.b.x]; }
    default: { return t5[off.b.y]; }
  }
}

fn binary(code: u32, x: f32, y: f32, alpha: f32) -> f32 {
  switch code {
    case 0u: { return x + alpha * y; }
    case 1u: { return x - alpha * y; }
    case 2u: { return x * y; }
    case 3u: { return x / y; }
    case 5u: { return min(x, y); }
    default: { return max(x, y); }
  }
}

fn unary(code: u32, x: f32, c: f32) -> f32 {
  switch code {
    case 0u: { return max(x, 0.0); }
    case 1u: { return 1.0 / (1.0 + exp(-x)); }
    case 2u: { return tanh_safe(x); }
    case 3u: { return exp(x); }
    case 4u: { return sqrt(x); }
    case 5u: { return inverseSqrt(x); }
    case 6u: { return -x; }
    case 7u: { return abs(x); }
    case 10u: { return 0.5 * x * (1.0 + erf_f(x * 0.7071067811865476)); }
    case 11u: { return 0.5 * x * (1.0 + tanh_safe(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
    case 12u: { return x * clamp(x + 3.0, 0.0, 6.0) / 6.0; }
    case 14u: { return select(x * c, x, x >= 0.0); }
    case 18u: { return x * (1.0 / (1.0 + exp(-x))); }
    default: { return x; }
  }
}

fn run_step(s: u32, k: u32, v: f32, off: Offsets) -> f32 {
  let code = s & 0xffu;
  let c = p.consts[k / 2u][2u * (k % 2u)];
  if (code >= 32u) { return unary(code - 32u, v, c); }
  let j = (s >> 8u) & 15u;
  var o = c;
  if (j != 0u) { o = operand(j, off); }
  let alpha = p.consts[k / 2u][2u * (k % 2u) + 1u];
  if ((s & 0x1000u) != 0u) { return binary(code, o, v, alpha); }
  return binary(code, v, o, alpha);
}

fn element(i: u32) {
  let off = offsets(i);
  var v = t0[off.a.x];
  v = run_step(s0, 0u, v, off);
  if (nsteps > 1u) { v = run_step(s1, 1u, v, off); }
  if (nsteps > 2u) { v = run_step(s2, 2u, v, off); }
  if (nsteps > 3u) { v = run_step(s3, 3u, v, off); }
  if (nsteps > 4u) { v = run_step(s4, 4u, v, off); }
  if (nsteps > 5u) { v = run_step(s5, 5u, v, off); }
  if (nsteps > 6u) { v = run_step(s6, 6u, v, off); }
  if (nsteps > 7u) { v = run_step(s7, 7u, v, off); }
  out[i] = v;
}
