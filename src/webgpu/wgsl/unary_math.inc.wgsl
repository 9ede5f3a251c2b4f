// Activation helpers of unary.wgsl shared with elementwise_chain.wgsl.
fn tanh_safe(x: f32) -> f32 { return tanh(clamp(x, -15.0, 15.0)); }

// erf with |error| < 2e-7: Maclaurin series near 0, Abramowitz-Stegun 7.1.26 beyond.
fn erf_f(x: f32) -> f32 {
  let ax = abs(x);
  if (ax < 0.5) {
    let x2 = x * x;
    // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
    let poly = 1.0 + x2 * (-1.0 / 3.0 + x2 * (0.1 + x2 * (-1.0 / 42.0 + x2 * (1.0 / 216.0 - x2 / 1320.0))));
    return 1.1283791670955126 * x * poly;
  }
  let t = 1.0 / (1.0 + 0.3275911 * ax);
  let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t *
          exp(-ax * ax);
  return select(-y, y, x >= 0.0);
}
