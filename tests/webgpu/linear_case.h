// The shapes of one linear for the randomized matmul tests, and the tolerance they compare
// a float32 product with.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace wick::test {

// input [lead..., k] times weight [n, k] transposed, with or without a bias [n].
struct LinearCase {
  std::vector<int64_t> lead;  // leading dims of the input
  int64_t k, n;
  bool bias;
};

// A float32 dot product of length k drifts from the float64 one by about sqrt(k) ulps of
// its terms' size; the second term covers large results.
inline float matmul_tol(int64_t k, double want) {
  return static_cast<float>(1e-4 * (1 + std::sqrt(double(k))) + 1e-4 * std::fabs(want));
}

}  // namespace wick::test
