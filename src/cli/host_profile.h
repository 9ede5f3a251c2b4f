// `wick run --profile`'s host rows: every instruction of the step (CPU op or delegate
// call) with its host wall time, delegate calls split into their phases.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "runtime/program.h"
#include "webgpu/backend.h"

namespace wick::cli {

// calls: the WebGPU delegate calls of the step in order (empty on the cpu backend); the
// i-th delegate instruction of the profile is the i-th call.
void print_host_profile(std::FILE* out, const Method& method, size_t step, double forward_ms,
                        const std::string& backend, const std::vector<webgpu::DelegateCallTimes>& calls);

}  // namespace wick::cli
