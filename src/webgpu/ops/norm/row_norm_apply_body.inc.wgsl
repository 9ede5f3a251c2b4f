// The body of row_norm_apply.wgsl and row_norm_apply_sg.wgsl (its workgroup sums through
// subgroup operations): `group_sum(v, li, sg, bank)` is workgroup_reduce.inc.wgsl's (shared
// memory) or subgroup_reduce.inc.wgsl's, whichever the includer pulls in.
// Second pass of a split row norm (row_norm_stats.wgsl wrote each chunk's mean and M2): every
// workgroup merges its row's chunk statistics (Chan et al.: mean = sum n_k m_k / n,
// M2 = sum M2_k + n_k (m_k - mean)^2; a few hundred words, cheaper than a third dispatch),
// then normalizes its own chunk with the affine of row_norm.wgsl. The row's first chunk
// writes the statistics outputs.
//#include "dispatch.inc.wgsl"
//#include "row_norm_bindings.inc.wgsl"
@group(0) @binding(7) var<storage, read> partials: array<f32>;

override WG: u32 = 256u;  // a power of two, at most 256

// Words in chunk k of a row.
fn chunk_len(k: u32) -> f32 {
  let lo = k * p.chunk;
  return f32(min(p.inner, lo + p.chunk) - min(p.inner, lo));
}

// sg: the subgroup size, for group_sum (0 in row_norm_apply.wgsl, which has none).
fn row_norm_apply(wid: vec3<u32>, nwg: vec3<u32>, li: u32, sg: u32) {
  let g = flat_workgroup(wid, nwg);
  let row = g / p.nchunks;
  if (row >= p.rows) { return; }
  let first = row * p.nchunks;
  let n = f32(p.inner);
  var mean = 0.0;
  if (p.mode != 2u) {
    var s = 0.0;
    for (var k = li; k < p.nchunks; k = k + WG) { s = s + chunk_len(k) * partials[2u * (first + k)]; }
    mean = group_sum(s, li, sg, 0u) / n;
  }
  var s2 = 0.0;
  for (var k = li; k < p.nchunks; k = k + WG) {
    let d = partials[2u * (first + k)] - mean;
    s2 = s2 + partials[2u * (first + k) + 1u] + chunk_len(k) * d * d;
  }
  let rstd = inverseSqrt(group_sum(s2, li, sg, 1u) / n + p.eps);

  let base = row * p.inner;
  let lo = (g % p.nchunks) * p.chunk;
  let hi = min(p.inner, lo + p.chunk);
  let g0 = (row % max(p.groups, 1u)) * p.cpg;
  for (var i = lo + li; i < hi; i = i + WG) {
    var widx = i;
    if (p.mode == 1u) { widx = g0 + i / p.hw; }
    var y = (x[base + i] - mean) * rstd;
    if ((p.flags & 1u) != 0u) { y = y * weight[widx]; }
    if ((p.flags & 2u) != 0u) { y = y + bias[widx]; }
    out[base + i] = y;
  }
  if (li == 0u && lo == 0u) {
    if ((p.flags & 4u) != 0u) { mean_out[row] = mean; }
    if ((p.flags & 8u) != 0u) { rstd_out[row] = rstd; }
  }
}
