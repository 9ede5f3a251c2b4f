// torchao.choose_qparams_affine over contiguous blocks of `len` elements: one workgroup per
// block reduces min and max, then (as torchao's _choose_qparams_affine, in f32):
//   min_neg = min(min, 0), max_pos = max(max, 0)
//   ASYMMETRIC (0):  scale = max(eps, (max_pos - min_neg) / (qmax - qmin))
//                    zp = clamp(qmin - round(min_neg / scale), qmin, qmax)
//   SYMMETRIC (1):   scale = max(eps, max(-min_neg, max_pos) / ((qmax - qmin) / 2)), zp = mid
//   SYMMETRIC_NO_CLIPPING_ERR (2): scale = max(eps, max(min_neg / qmin, max_pos / qmax)), zp = mid
struct Params {
  len: u32, blocks: u32, mapping: u32, _p0: u32,
  qmin: f32, qmax: f32, eps: f32, mid: f32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> scale: array<f32>;
@group(0) @binding(2) var<storage, read_write> zp: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

const WG: u32 = 64u;
var<workgroup> lo: array<f32, WG>;
var<workgroup> hi: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
  let b = wid.x + wid.y * nwg.x;
  if (b >= p.blocks) { return; }  // uniform per workgroup: no barrier is skipped by part of it
  let base = b * p.len;
  // Starting from 0 gives min_neg and max_pos directly.
  var mn = 0.0;
  var mx = 0.0;
  for (var i = t; i < p.len; i += WG) {
    let v = x[base + i];
    mn = min(mn, v);
    mx = max(mx, v);
  }
  lo[t] = mn;
  hi[t] = mx;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (t < s) {
      lo[t] = min(lo[t], lo[t + s]);
      hi[t] = max(hi[t], hi[t + s]);
    }
    workgroupBarrier();
  }
  if (t != 0u) { return; }
  let min_neg = lo[0];
  let max_pos = hi[0];
  var s = 0.0;
  var z = p.mid;
  if (p.mapping == 0u) {
    s = max(p.eps, (max_pos - min_neg) / (p.qmax - p.qmin));
    z = clamp(p.qmin - round(min_neg / s), p.qmin, p.qmax);
  } else if (p.mapping == 1u) {
    s = max(p.eps, max(-min_neg, max_pos) / ((p.qmax - p.qmin) / 2.0));
  } else {
    let smin = min_neg / p.qmin;
    let smax = max_pos / p.qmax;
    s = max(p.eps, select(smax, smin, smin > smax));
  }
  scale[b] = s;
  zp[b] = bitcast<u32>(i32(z));
}
