// conv2d shaders that read the weights repacked as vec4s of 4 output channels (conv2d_block:
// [ceil(out_c/4), in_c, KH, KW]; conv2d_igemm: wT [Kpad][Npad / 4], register.cpp packs
// both): conv2d_params.inc.wgsl (Params, bindings 0 and 2-4, epilogue) plus binding 1, and the
// kernel window as pipeline constants, so the tap loops have constant bounds and the
// compiler unrolls them.
//#include "conv2d_params.inc.wgsl"
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;

override KH: u32 = 3;
override KW: u32 = 3;
override SH: u32 = 1;
override SW: u32 = 1;
override DH: u32 = 1;
override DW: u32 = 1;
