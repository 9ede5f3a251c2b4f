// Strided views for the attention fusion (attention_fusion.cpp): a tensor's elements as
// an offset plus, per logical dim, a product of (size, stride) atoms, outer to inner. Keeping
// atoms instead of one stride per dim lets a reshape of a permuted tensor stay exact (the
// [B*H, S, D] view of a permuted [B, S, H, D] tensor is ((B, S*H*D), (H, D)), (S, H*D), (D, 1)).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace wick::webgpu::strided {

struct Atom {
  int64_t n, s;  // size, stride in elements
};
using Dim = std::vector<Atom>;  // outer to inner; empty: size 1
struct View {
  int64_t off = 0;
  std::vector<Dim> dims;
};

int64_t dim_size(const Dim& d);
// Size-1 atoms dropped, neighbours that are one run of memory merged.
Dim simplify(const Dim& d);
// The row-major layout of `shape`.
View contiguous(const std::vector<int64_t>& shape);
// view_copy's view: nullopt where the new dims would cut an atom unevenly.
std::optional<View> reshape(const View& v, const std::vector<int64_t>& shape);
// permute_copy's view (dims may be negative), and its inverse (the input's view from the output's).
std::optional<View> permute(const View& v, const std::vector<int64_t>& perm);
std::optional<View> inverse_permute(const View& v, const std::vector<int64_t>& perm);
// expand_copy's view: size-1 dims broadcast with stride 0, new leading dims too; -1 keeps a dim.
std::optional<View> expand(const View& v, const std::vector<int64_t>& sizes);
// The one stride of a dim (0 for size 1), or nullopt if it is not a single run.
std::optional<int64_t> single_stride(const Dim& d);

}  // namespace wick::webgpu::strided
