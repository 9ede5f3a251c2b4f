// et_vk.adamw_step: one AdamW step over fp32 param / m / v in place, as ExecuTorch's
// reference (custom_ops_lib.py adamw_step_impl) and torch.optim.AdamW do it: decoupled
// weight decay first, then the moments, then the bias-corrected update
//   p = p * (1 - lr * wd);  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   p = p - lr * (m / bc1) / (sqrt(v / bc2) + eps)
// bc1 / bc2 (= 1 - beta^t) come from the host, so the kernel keeps no step counter.
//#include "per_element.inc.wgsl"
//#include "training_params.inc.wgsl"
@group(0) @binding(0) var<storage, read_write> param: array<f32>;
@group(0) @binding(1) var<storage, read_write> m: array<f32>;
@group(0) @binding(2) var<storage, read_write> v: array<f32>;
@group(0) @binding(3) var<storage, read> grad: array<f32>;
@group(0) @binding(4) var<uniform> p: AdamwParams;

fn element_count() -> u32 { return p.numel; }

fn element(i: u32) {
  let g = grad[i];
  let decayed = param[i] * (1.0 - p.lr * p.weight_decay);
  let m1 = p.beta1 * m[i] + (1.0 - p.beta1) * g;
  let v1 = p.beta2 * v[i] + (1.0 - p.beta2) * g * g;
  m[i] = m1;
  v[i] = v1;
  param[i] = decayed - p.lr * (m1 / p.bias_correction1) / (sqrt(v1 / p.bias_correction2) + p.eps);
}
