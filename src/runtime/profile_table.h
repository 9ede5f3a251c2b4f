// The per-step profile table that `wick run --profile` prints for a delegate backend: one
// row per profiled step (index, label, time), then a total line. The CPU and WebGPU
// backends differ only in their columns' words.
#pragma once

#include <cstdint>
#include <cstdio>
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

}  // namespace wick
