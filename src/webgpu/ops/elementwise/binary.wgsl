// out = op(a, b) with PyTorch broadcasting. Every buffer word holds one element, f32 or
// i32 as the flags say; arithmetic runs in f32 (exact for integers below 2^24).
struct Params {
  n: u32, rank: u32, op: u32, flags: u32,  // flags: 1 a_int, 2 b_int, 4 out_int, 8 b_scalar
  alpha: f32, scalar_b: f32, _p0: u32, _p1: u32,
  out_dims: array<vec4<u32>, 2>,
  a_strides: array<vec4<u32>, 2>,
  b_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

//#include "elementwise_common.inc.wgsl"
//#include "broadcast.inc.wgsl"
fn apply(op: u32, x: f32, y: f32) -> f32 {
  switch op {
    case 0u: { return x + p.alpha * y; }
    case 1u: { return x - p.alpha * y; }
    case 2u: { return x * y; }
    case 3u: { return x / y; }
    case 4u: { return pow(x, y); }
    case 5u: { return min(x, y); }
    case 6u: { return max(x, y); }
    case 7u: { return select(0.0, 1.0, x == y); }
    case 8u: { return select(0.0, 1.0, x != y); }
    case 9u: { return select(0.0, 1.0, x < y); }
    case 10u: { return select(0.0, 1.0, x <= y); }
    case 11u: { return select(0.0, 1.0, x > y); }
    case 12u: { return select(0.0, 1.0, x >= y); }
    case 13u: { return select(0.0, 1.0, x != 0.0 && y != 0.0); }
    case 14u: { return select(0.0, 1.0, x != 0.0 || y != 0.0); }
    case 15u: { return f32(i32(x) & i32(y)); }
    case 16u: { return floor(x / y); }
    case 17u: { return x - y * floor(x / y); }
    case 18u: { return f32(i32(x) | i32(y)); }
    case 19u: { return trunc(x / y); }
    default: { return x; }
  }
}

// The op, fixed per pipeline (Params.op is kept for the layout but not read): a switch on a
// uniform value ran every case per element on SwiftShader, 6x slower than a constant one.
override op_code: u32 = 0u;

fn operand_strides(d: u32) -> vec3<u32> {
  return vec3<u32>(p.a_strides[d / 4u][d % 4u], p.b_strides[d / 4u][d % 4u], 0u);
}

fn element(i: u32) {
  let off = broadcast_offsets(i);
  // Rounded division of two integer tensors in i32: through f32 an exact quotient can
  // come out just below the integer (division is not correctly rounded on every GPU).
  if ((op_code == 16u || op_code == 19u) && (kind_flags & 11u) == 3u) {
    out_int_div(i, bitcast<i32>(a[off.x]), bitcast<i32>(b[off.y]));
    return;
  }
  let x = load(a[off.x], (kind_flags & 1u) != 0u);
  var y = p.scalar_b;
  if ((kind_flags & 8u) == 0u) { y = load(b[off.y], (kind_flags & 2u) != 0u); }
  let r = apply(op_code, x, y);
  if ((kind_flags & 4u) != 0u) {
    out[i] = bitcast<u32>(i32(r));
  } else {
    out[i] = bitcast<u32>(r);
  }
}

// Integer trunc (19) or floor (16) division; x / 0 gives 0 (PyTorch raises, a shader cannot).
fn out_int_div(i: u32, x: i32, y: i32) {
  var q = 0;
  if (y != 0) {
    q = x / y;
    if (op_code == 16u && (x % y) != 0 && ((x < 0) != (y < 0))) { q = q - 1; }
  }
  if ((kind_flags & 4u) != 0u) {
    out[i] = bitcast<u32>(q);
  } else {
    out[i] = bitcast<u32>(f32(q));
  }
}
