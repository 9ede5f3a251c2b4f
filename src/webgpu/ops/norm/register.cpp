#include "webgpu/ops/families.h"

namespace wick::webgpu {

void append_norm_ops(std::vector<OpEntry>& ops) {
  (void)ops;
}

}  // namespace wick::webgpu
