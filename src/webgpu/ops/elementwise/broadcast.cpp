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

}  // namespace wick::webgpu
