// The uniform (CopyParams in copy.cpp) and bindings of the three layout-copy shaders
// (shape_copy, shape_copy_vec4, shape_copy_tiled). The includer declares `alias Word = u32;`
// (shape_copy_vec4: vec4<u32>, four words at a time). tiles_a / tiles_b: shape_copy_tiled's
// workgroup grid (tiles along its dims a and b); unused by the other two.
struct Params {
  n: u32, rank: u32, in_base: u32, out_base: u32,
  mode: u32, fill: u32, tiles_a: u32, tiles_b: u32,
  dims: array<vec4<u32>, 2>,
  in_strides: array<vec4<u32>, 2>,
  out_strides: array<vec4<u32>, 2>,
  mods: array<vec4<u32>, 2>,
  offs: array<vec4<u32>, 2>,
  lims: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> src: array<Word>;
@group(0) @binding(1) var<storage, read_write> dst: array<Word>;
@group(0) @binding(2) var<uniform> p: Params;
