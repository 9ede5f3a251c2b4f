// The live shape of a view (view_copy / reshape) whose size list was serialized for the
// program's upper bounds: both delegates (vkcpu, webgpu) resolve it the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace wick {

// -1 takes the remaining elements (one -1 at most); a literal size list that no longer
// matches the live element count (shapes below their serialized bound) lets its leftmost
// dim that can absorb the difference do so. Errors (kInvalidArgument) start with `op`.
Result<std::vector<int64_t>> resolve_view_shape(const std::string& op, std::vector<int64_t> sizes, int64_t numel);

}  // namespace wick
