#include "format/named_data.h"

namespace wick {

Status MergedNamedData::add(const NamedDataMap* map) {
  for (const std::string& key : map->keys())
    for (const NamedDataMap* existing : maps_)
      if (existing->get(key).ok())
        return Status(ErrorCode::kInvalidArgument, "named data key '" + key + "' is present in two data sources");
  maps_.push_back(map);
  return {};
}

Result<std::span<const uint8_t>> MergedNamedData::get(std::string_view key) const {
  for (const NamedDataMap* map : maps_) {
    auto r = map->get(key);
    if (r.ok() || r.status().code() != ErrorCode::kNotFound) return r;
  }
  return Status(ErrorCode::kNotFound, "no named data with key '" + std::string(key) + "'");
}

std::vector<std::string> MergedNamedData::keys() const {
  std::vector<std::string> out;
  for (const NamedDataMap* map : maps_)
    for (auto& k : map->keys()) out.push_back(k);
  return out;
}

}  // namespace wick
