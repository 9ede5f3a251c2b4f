// The per-step profile table that `wick run --profile` prints for a delegate backend: one
// row per profiled step (index, label, time), then a total line. The CPU and WebGPU
// backends differ only in their columns' words.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace wick {

struct ProfileRow {
  std::string_view label;
  uint64_t ns = 0;
};

struct ProfileWords {
  const char* label_header;  // "op", "op kernel"
  const char* time_header;   // "cpu us", "gpu us"
  const char* steps;         // "ops", "dispatches"
  const char* time;          // "CPU delegate time", "GPU time"
};

// Prints nothing for no rows.
void print_profile_table(std::FILE* out, const std::vector<ProfileRow>& rows, const ProfileWords& words);

// The same for a backend's own profile entries, given which members hold the label and
// the time in ns.
template <class Entry>
void print_profile_table(std::FILE* out, const std::vector<Entry>& entries, std::string Entry::*label,
                         uint64_t Entry::*ns, const ProfileWords& words) {
  std::vector<ProfileRow> rows;
  for (const Entry& e : entries) rows.push_back({e.*label, e.*ns});
  print_profile_table(out, rows, words);
}

}  // namespace wick
