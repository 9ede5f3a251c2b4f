#include "webgpu/ops/families.h"

namespace wick::webgpu {

void append_attention_ops(std::vector<OpEntry>& ops) {
  (void)ops;
}

}  // namespace wick::webgpu
