// Shared helpers for tests that read ../shared/fixtures in place.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/value.h"

namespace wick::test {

// A shell command's exit code (-1 if it did not exit normally) and its stdout + stderr.
struct CommandResult {
  int code = 0;
  std::string out;
};
CommandResult run_command(const std::string& command);

std::string fixtures_dir();
std::string source_dir();

struct FixtureCase {
  std::vector<Value> inputs;
  std::vector<Value> outputs;
};

struct Fixture {
  std::string rel;  // "cpu/mlp_cpu"
  std::string dir;  // absolute
  nlohmann::json manifest;
  std::string method = "forward";
  double atol = 1e-3, rtol = 1e-3;
  bool stateful = false;
  std::vector<FixtureCase> cases;
  std::string pte() const { return dir + "/model.pte"; }
};

// Loads manifest.json and every case's tensors. ADD_FAILUREs and returns false on error.
bool load_fixture(const std::string& rel, Fixture* out);
// The same for a fixture folder anywhere (e.g. tests/fixtures/ops/<name> in the repository).
bool load_fixture_at(const std::string& dir, const std::string& rel, Fixture* out);
// Fixture paths ("group/name") from index.json whose group is in `groups`.
std::vector<std::string> fixtures_in_groups(const std::vector<std::string>& groups);
nlohmann::json fixture_index();

// abs(got - ref) <= atol + rtol * abs(ref) elementwise for float tensors, exact otherwise.
::testing::AssertionResult values_close(const Value& got, const Value& ref, double atol, double rtol);

// Loads f's program and method, runs its cases in order on that one method (stateful
// fixtures carry their state from case to case) and checks every output against the
// reference within the manifest's tolerance. Fails the calling test where it does not.
void expect_fixture_matches(const Fixture& f);

// gtest parameter names must be alphanumeric.
std::string param_name(const std::string& rel);

}  // namespace wick::test
