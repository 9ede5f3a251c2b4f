// Named data: blobs looked up by string key (Vulkan weights under their sha256, or
// external constants under their fully-qualified name). Sources are the .pte's own
// named_data table and any number of .ptd files.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace wick {

class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  virtual Result<std::span<const uint8_t>> get(std::string_view key) const = 0;
  virtual std::vector<std::string> keys() const = 0;
};

// Several maps searched in order; a key present in two maps is rejected at add().
class MergedNamedData : public NamedDataMap {
 public:
  Status add(const NamedDataMap* map);
  Result<std::span<const uint8_t>> get(std::string_view key) const override;
  std::vector<std::string> keys() const override;

 private:
  std::vector<const NamedDataMap*> maps_;
};

}  // namespace wick
