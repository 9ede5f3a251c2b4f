#include "runtime/profile_table.h"

namespace wick {

void print_profile_table(std::FILE* out, const std::vector<ProfileRow>& rows, const ProfileWords& words) {
  if (rows.empty()) return;
  uint64_t total = 0;
  std::fprintf(out, "%-6s %-64s %12s\n", "#", words.label_header, words.time_header);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::fprintf(out, "%-6zu %-64.*s %12.2f\n", i, static_cast<int>(rows[i].label.size()), rows[i].label.data(),
                 rows[i].ns / 1000.0);
    total += rows[i].ns;
  }
  std::fprintf(out, "total: %zu %s, %.2f us %s\n", rows.size(), words.steps, total / 1000.0, words.time);
}

}  // namespace wick
