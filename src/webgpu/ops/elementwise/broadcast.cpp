#include "webgpu/ops/elementwise/broadcast.h"

#include "core/tensor.h"

namespace wick::webgpu {

Result<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return Status(ErrorCode::kInvalidArgument, "shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                                                     " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::array<uint32_t, kMaxElementwiseRank> broadcast_strides(const std::vector<int64_t>& in,
                                                            const std::vector<int64_t>& out) {
  std::array<uint32_t, kMaxElementwiseRank> s{};
  int64_t stride = 1;
  const size_t offset = out.size() - in.size();
  for (int i = static_cast<int>(in.size()) - 1; i >= 0; --i) {
    s[static_cast<size_t>(i) + offset] = in[static_cast<size_t>(i)] == 1 ? 0 : static_cast<uint32_t>(stride);
    stride *= in[static_cast<size_t>(i)];
  }
  return s;
}

std::array<uint32_t, kMaxElementwiseRank> dims_array(const std::vector<int64_t>& dims) {
  std::array<uint32_t, kMaxElementwiseRank> d{};
  for (size_t i = 0; i < dims.size() && i < d.size(); ++i) d[i] = static_cast<uint32_t>(dims[i]);
  return d;
}

uint32_t coalesce_dims(uint32_t rank, std::array<uint32_t, kMaxElementwiseRank>& dims,
                       std::initializer_list<std::array<uint32_t, kMaxElementwiseRank>*> strides) {
  std::array<uint32_t, kMaxElementwiseRank> out_dims{};
  std::vector<std::array<uint32_t, kMaxElementwiseRank>> out_strides(strides.size());
  uint32_t n = 0;
  for (uint32_t d = 0; d < rank && d < kMaxElementwiseRank; ++d) {
    if (dims[d] == 1) continue;
    bool merge = n > 0;
    size_t k = 0;
    for (auto* s : strides) {
      // Merging d into the dim outside it (n - 1) needs outer stride == size(d) * stride(d).
      if (merge && uint64_t{out_strides[k][n - 1]} != uint64_t{dims[d]} * (*s)[d]) merge = false;
      ++k;
    }
    k = 0;
    if (merge) {
      out_dims[n - 1] *= dims[d];
      for (auto* s : strides) out_strides[k++][n - 1] = (*s)[d];
    } else {
      out_dims[n] = dims[d];
      for (auto* s : strides) out_strides[k++][n] = (*s)[d];
      ++n;
    }
  }
  if (n == 0) {  // a single element
    out_dims[0] = 1;
    for (auto& s : out_strides) s[0] = 0;
    n = 1;
  }
  dims = out_dims;
  size_t k = 0;
  for (auto* s : strides) {
    *s = out_strides[k++];
    for (uint32_t d = n; d < kMaxElementwiseRank; ++d) (*s)[d] = 0;
  }
  return n;
}

}  // namespace wick::webgpu
