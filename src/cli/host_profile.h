// `wick run --profile`'s host rows: every instruction of the step (CPU op or delegate
// call) with its host wall time, delegate calls split into their phases. With several
// calls of the step (--profile-runs), the first call is printed on its own (it pays the
// one-time costs: pipelines compiled, staging buffers created) and then each figure's
// median over the later calls.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "runtime/program.h"
#include "webgpu/backend.h"

namespace wick::cli {

// What one forward() of a profiled step left: its wall time, the method's instruction
// times and the WebGPU delegate calls in order (empty on the cpu backend; the i-th
// delegate instruction is the i-th call).
struct HostRun {
  double forward_ms = 0;
  std::vector<InstructionTime> times;
  std::vector<webgpu::DelegateCallTimes> calls;
};

// `title`: "step 0" or "step 0 first call"; `note` follows the header line's call count.
void print_host_profile(std::FILE* out, const HostRun& run, const std::string& title, const std::string& backend,
                        const std::string& note = "");

// Each figure's median over runs[1..] (those with the last run's instruction and call
// counts): every instruction's ms and every phase of every delegate call on its own, so
// the medians of a call's phases need not add up to the call's median. `used` gets how
// many runs were taken. runs[0] when there is only one.
HostRun median_host_run(const std::vector<HostRun>& runs, size_t* used = nullptr);

}  // namespace wick::cli
