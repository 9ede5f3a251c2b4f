#include "core/view_shape.h"

#include "core/tensor.h"

namespace wick {

Result<std::vector<int64_t>> resolve_view_shape(const std::string& op, std::vector<int64_t> sizes, int64_t numel) {
  auto bad = [&](const std::string& what) { return Status(ErrorCode::kInvalidArgument, op + ": " + what); };
  int infer = -1;
  int64_t prod = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (infer >= 0) return bad("more than one -1 in size " + shape_to_string(sizes));
      infer = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return bad("invalid size " + shape_to_string(sizes));
    } else if (__builtin_mul_overflow(prod, sizes[i], &prod)) {
      // A hostile size list (a fuzzed file) whose product leaves int64: no tensor has it.
      return bad("size " + shape_to_string(sizes) + " has more elements than int64 holds");
    }
  }
  const std::string does_not_fit = "size " + shape_to_string(sizes) + " does not fit " + std::to_string(numel) + " elements";
  if (infer >= 0) {
    if (prod == 0 || numel % prod != 0) return bad(does_not_fit);
    sizes[static_cast<size_t>(infer)] = numel / prod;
    return sizes;
  }
  if (prod == numel) return sizes;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) continue;
    const int64_t others = prod / sizes[i];
    if (others > 0 && numel % others == 0) {
      sizes[i] = numel / others;
      return sizes;
    }
  }
  return bad(does_not_fit);
}

}  // namespace wick
