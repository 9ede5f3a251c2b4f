// conv2d shaders that read the weights as the program stores them (f32, [O, C/g, KH, KW]
// or [C, O/g, KH, KW] transposed): conv2d_params.inc.wgsl (Params, bindings 0 and 2-4,
// epilogue) plus binding 1 as array<f32>.
//#include "conv2d_params.inc.wgsl"
@group(0) @binding(1) var<storage, read> w: array<f32>;
