#pragma once

#include <string>
#include <vector>

#include "runtime/profile_table.h"
#include "webgpu/backend.h"

namespace wick::cli {

// Each returns the process exit code; failures print one line to stderr.
int inspect(const std::vector<std::string>& args);
int run(const std::vector<std::string>& args);
int bench(const std::vector<std::string>& args);
int tokenize(const std::vector<std::string>& args);    // src/cli/tokenize.cpp
int detokenize(const std::vector<std::string>& args);
int generate(const std::vector<std::string>& args);    // src/cli/generate.cpp

// Registers the executor of Vulkan-delegated parts for `--backend` auto|webgpu|cpu
// (backends/choice.h). Returns false and prints an error if the name is unknown or
// WebGPU was asked for and is unavailable. f16_weights: BackendOptions::f16_weights of the
// WebGPU delegate (`--f16`; the CPU executor stays f32 and says so).
bool select_backend(const std::string& name, bool profile, bool f16_weights = false);
// "webgpu" or "cpu" after select_backend, and the line that says so (with auto's reason
// for falling back to the CPU).
const std::string& chosen_backend();
std::string backend_line();
// Prints the per-dispatch (WebGPU) or per-op (CPU) profile of the delegates' last executions.
void print_profile();
// The same rows, taken for the caller (one list per call for --profile-runs' medians),
// and the chosen executor's words for them (runtime/profile_table.h).
std::vector<ProfileRow> take_profile_rows();
const ProfileWords& profile_words();
// The WebGPU delegate calls since the last take, by phase (empty on the cpu backend).
std::vector<webgpu::DelegateCallTimes> take_delegate_call_times();
// Dispatch count, memory plan and host encode time of the delegates loaded so far.
void print_backend_summary();
// Forgets the WebGPU delegates' summed host times (after `wick bench`'s warm-up).
void reset_backend_call_totals();

}  // namespace wick::cli
