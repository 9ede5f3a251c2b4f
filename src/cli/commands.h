#pragma once

#include <string>
#include <vector>

namespace wick::cli {

// Each returns the process exit code; failures print one line to stderr.
int inspect(const std::vector<std::string>& args);
int run(const std::vector<std::string>& args);
int bench(const std::vector<std::string>& args);
int tokenize(const std::vector<std::string>& args);    // src/cli/tokenize.cpp
int detokenize(const std::vector<std::string>& args);
int generate(const std::vector<std::string>& args);    // src/cli/generate.cpp

// Registers the backends this build has for `--backend` (cpu: none; webgpu: VulkanBackend).
// Returns false and prints an error if the backend is unknown or unavailable.
bool select_backend(const std::string& name, bool profile);
// Prints the per-dispatch profile of the last execution, if the backend kept one.
void print_profile();
// Dispatch count, memory plan and host encode time of the delegates loaded so far.
void print_backend_summary();

}  // namespace wick::cli
