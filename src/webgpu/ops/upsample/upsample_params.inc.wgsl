// The uniform of both upsample shaders (UpsampleParams in register.cpp), their bindings
// and their size: one thread per output element (per_element.inc.wgsl).
struct Params {
  n: u32, in_h: u32, in_w: u32, out_h: u32,
  out_w: u32, align_corners: u32, _p0: u32, _p1: u32,
  scale_h: f32, scale_w: f32, _p2: u32, _p3: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn element_count() -> u32 { return p.n; }
