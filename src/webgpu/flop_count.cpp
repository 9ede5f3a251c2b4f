#include "webgpu/flop_count.h"

namespace wick::webgpu {

namespace {

double numel(const std::vector<int64_t>& dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(d);
  return n;
}

bool is_conv(std::string_view op) { return op == "aten.convolution.default" || op == "et_vk.conv_with_clamp.default"; }
bool is_product(std::string_view op) {
  return op == "aten.linear.default" || op == "aten.mm.default" || op == "aten.bmm.default" ||
         op == "aten.addmm.default" || op == "et_vk.linear_q4gsw.default";
}

}  // namespace

bool counts_flops(std::string_view op) { return is_conv(op) || is_product(op) || op == "et_vk.sdpa.default"; }

double op_flops(std::string_view op, const OpShapes& s) {
  auto arg = [&](size_t i) -> const std::vector<int64_t>* { return i < s.args.size() && !s.args[i].empty() ? &s.args[i] : nullptr; };
  if (is_conv(op)) {
    const std::vector<int64_t>*x = arg(0), *w = arg(1);
    if (!x || !w || w->size() < 3) return 0;
    double per_out = 1;  // the weight's dims after the first: channels per group times the kernel
    for (size_t d = 1; d < w->size(); ++d) per_out *= static_cast<double>((*w)[d]);
    return 2 * (s.transposed ? numel(*x) : numel(s.out)) * per_out;
  }
  if (is_product(op)) {
    // addmm(bias, a, b): the left operand is the second argument.
    const std::vector<int64_t>* a = arg(op == "aten.addmm.default" ? 1 : 0);
    if (!a || s.out.empty()) return 0;
    return 2 * numel(s.out) * static_cast<double>(a->back());
  }
  if (op == "et_vk.sdpa.default") {
    const std::vector<int64_t>*q = arg(0), *k = arg(1);
    if (!q || !k || q->size() != 4 || k->size() != 4) return 0;
    return 4 * numel(*q) * static_cast<double>((*k)[2]);
  }
  return 0;
}

}  // namespace wick::webgpu
