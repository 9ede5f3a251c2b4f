// The bindings of the shaders that write a normalized row (row_norm.wgsl, row_norm_rows.wgsl,
// row_norm_apply.wgsl; register.cpp binds them in this order): input, affine, output, the
// optional mean / rstd outputs, and the uniform block.
//#include "row_norm_params.inc.wgsl"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<storage, read_write> mean_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> rstd_out: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;
