// The uniforms of the training kernels (their C++ twins are in training/register.cpp, which
// static_asserts each size against this module).

// adamw_step.wgsl: hyperparameters as the op's float arguments, numel of param/m/v/grad.
struct AdamwParams {
  numel: u32, _p0: u32, _p1: u32, _p2: u32,
  lr: f32, beta1: f32, beta2: f32, eps: f32,
  weight_decay: f32, bias_correction1: f32, bias_correction2: f32, _p3: f32,
}

// fused_ce_rows.wgsl / fused_ce_sum.wgsl: logits [rows, cols], labels [rows].
struct CeParams {
  rows: u32, cols: u32, _p0: u32, _p1: u32,
  n_valid: f32, _p2: f32, _p3: f32, _p4: f32,
}

// linear_dw.wgsl (d_W[n, k] = sum_m d_out[m, n] x[m, k]) and q4gsw_backward.wgsl
// (d_x[m, k] = sum_n d_out[m, n] w[n, k]); row_bytes / padded_n / group_size only for the
// latter (its packed weight and transposed scales, shared/spec/ops.md §5.1).
struct GradParams {
  m: u32, n: u32, k: u32, row_bytes: u32,
  padded_n: u32, group_size: u32, _p0: u32, _p1: u32,
}
