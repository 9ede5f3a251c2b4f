// Row-major index arithmetic for the layout tests' CPU references (shape_ops_test,
// layout_copy_test): a contiguous tensor's strides and a flat index's coordinates.
#pragma once

#include <cstdint>
#include <vector>

namespace wick::test {

using Dims = std::vector<int64_t>;

inline Dims strides_of(const Dims& s) {
  Dims st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

inline Dims unravel(int64_t flat, const Dims& shape) {
  Dims c(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    c[d] = flat % shape[d];
    flat /= shape[d];
  }
  return c;
}

}  // namespace wick::test
