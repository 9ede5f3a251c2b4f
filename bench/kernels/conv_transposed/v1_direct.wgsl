// The shipped kernel before this research (src/webgpu/ops/conv/conv2d_transposed.wgsl):
// one invocation per output element, looping over every input channel of its group and
// every kernel tap with a divisibility test per tap. Weight [in_c, out_c/groups, kh, kw].
@group(0) @binding(1) var<storage, read> w: array<f32>;
override wg_size: u32 = 64u;

@compute @workgroup_size(wg_size)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * wg_size;
  if (i >= p.total) { return; }
  let ox = i % p.out_w;
  let t = i / p.out_w;
  let oy = t % p.out_h;
  let oc = (t / p.out_h) % p.out_c;
  let n = t / (p.out_h * p.out_c);
  let cin_per_group = p.in_c / p.groups;
  let cout_per_group = p.out_c / p.groups;
  let g = oc / cout_per_group;
  let ocg = oc % cout_per_group;
  var acc = bias_or_zero(oc);
  for (var c = 0u; c < cin_per_group; c = c + 1u) {
    let ic = g * cin_per_group + c;
    for (var ky = 0u; ky < p.k_h; ky = ky + 1u) {
      let ty = i32(oy) + i32(p.pad_h) - i32(ky * p.dil_h);
      if (ty < 0 || ty % i32(p.stride_h) != 0) { continue; }
      let iy = ty / i32(p.stride_h);
      if (iy >= i32(p.in_h)) { continue; }
      for (var kx = 0u; kx < p.k_w; kx = kx + 1u) {
        let tx = i32(ox) + i32(p.pad_w) - i32(kx * p.dil_w);
        if (tx < 0 || tx % i32(p.stride_w) != 0) { continue; }
        let ix = tx / i32(p.stride_w);
        if (ix >= i32(p.in_w)) { continue; }
        let xv = x[((n * p.in_c + ic) * p.in_h + u32(iy)) * p.in_w + u32(ix)];
        let wv = w[((ic * cout_per_group + ocg) * p.k_h + ky) * p.k_w + kx];
        acc = acc + xv * wv;
      }
    }
  }
  y[i] = finish(acc);
}
