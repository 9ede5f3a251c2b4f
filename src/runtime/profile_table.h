// The per-step profile table that `wick run --profile` prints for a delegate backend: one
// row per profiled step (index, label, time; FLOPs and TFLOP/s where the step is a
// convolution, matrix product or attention), then a total line. The CPU and WebGPU
// backends differ only in their columns' words.
//
// A profile of several calls of the same program (`wick run --profile-runs N`) prints each
// row's median over the calls after the first, with the first call's time beside it: the
// first call also pays one-time costs (pipelines compiled, staging buffers created).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace wick {

struct ProfileRow {
  std::string label;
  uint64_t ns = 0;
  // The op's FLOPs (webgpu/flop_count.h), on the last row of an op that has them (0 on
  // the others), and the time of all that op's rows (an op may be several dispatches:
  // split-K partial sums and their reduction), which its TFLOP/s is computed over.
  double flops = 0;
  uint64_t op_ns = 0;
};

struct ProfileWords {
  const char* label_header;  // "op", "op kernel"
  const char* time_header;   // "cpu us", "gpu us"
  const char* steps;         // "ops", "dispatches"
  const char* time;          // "CPU delegate time", "GPU time"
  const char* note = nullptr;  // a line above the table: how the times were taken
};

// Prints nothing for no rows.
void print_profile_table(std::FILE* out, const std::vector<ProfileRow>& rows, const ProfileWords& words);

// runs[0]: the first call's rows; runs[1..]: the later calls'. With one run this is
// print_profile_table. Later calls with another row count than the last one (a program
// whose dispatches vary) are left out of the medians, and the table says how many.
void print_profile_runs(std::FILE* out, const std::vector<std::vector<ProfileRow>>& runs, const ProfileWords& words);

// The per-row medians of runs[1..] (those with the last run's row count), or runs[0] when
// there is only one; `used` gets how many runs the medians cover.
std::vector<ProfileRow> median_rows(const std::vector<std::vector<ProfileRow>>& runs, size_t* used = nullptr);

// The rows with FLOPs, summed, and the `top` largest of them with their TFLOP/s: the
// issue-11 figure for large convolution and matmul layers. Nothing when no row has FLOPs.
void print_flop_summary(std::FILE* out, const std::vector<ProfileRow>& rows, size_t top = 10);

}  // namespace wick
