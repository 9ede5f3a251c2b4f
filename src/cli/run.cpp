// `wick run` and `wick bench`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/host_profile.h"
#include "core/json_text.h"
#include "runtime/program.h"
#include "runtime/tensor_io.h"

namespace wick::cli {

namespace {

struct RunOptions {
  std::string model;
  std::string method = "forward";
  std::string backend = "auto";
  std::string output_dir;
  bool profile = false;
  // --profile-runs N: calls of the step profiled (the first on its own, medians of the
  // rest); 0: not given (6 for one step, 1 with --step: repeating a step of a stateful
  // program would change what the next step sees).
  int profile_runs = 0;
  bool f16 = false;  // --f16: the WebGPU delegate stores linear weights as f16
  bool npy = false;  // --output-format npy: output_N.npy instead of raw output_N.bin
  // --output FILE, once per output in order: FILE.npy is written as .npy, any other name
  // as raw bytes (the fixtures' .bin), so the name says the format.
  std::vector<std::string> output_files;
  int runs = 20, warmup = 3;
  int max_seconds = 0;  // bench: stop timing once this many seconds have passed (0: never)
  std::vector<std::vector<std::string>> steps{{}};  // input specs per call
};

int fail(const std::string& message) {
  std::fprintf(stderr, "wick: %s\n", message.c_str());
  return 1;
}

// A whole-string decimal integer >= min; "abc", "3x", "0" (for --runs) and "-3" are errors
// rather than atoi's silent 0 clamped to a default.
bool parse_count(const std::string& flag, const std::string& text, int min, int& dst) {
  size_t used = 0;
  long v = 0;
  try {
    v = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < min || v > 1000000) {
    std::fprintf(stderr, "wick: %s takes an integer from %d to 1000000, got '%s'\n", flag.c_str(), min, text.c_str());
    return false;
  }
  dst = static_cast<int>(v);
  return true;
}

bool parse(const std::vector<std::string>& args, RunOptions& o, bool bench) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&](std::string& dst) {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "wick: %s needs a value\n", a.c_str());
        return false;
      }
      dst = args[++i];
      return true;
    };
    std::string tmp;
    if (a == "--method") { if (!next(o.method)) return false; }
    else if (a == "--backend") { if (!next(o.backend)) return false; }
    else if (a == "--output-dir" && !bench) { if (!next(o.output_dir)) return false; }
    else if (a == "--output" && !bench) { if (!next(tmp)) return false; o.output_files.push_back(tmp); }
    else if (a == "--input") { if (!next(tmp)) return false; o.steps.back().push_back(tmp); }
    else if (a == "--step") o.steps.emplace_back();
    else if (a == "--output-format" && !bench) {
      if (!next(tmp)) return false;
      if (tmp != "bin" && tmp != "npy") {
        std::fprintf(stderr, "wick: --output-format takes bin or npy, got '%s'\n", tmp.c_str());
        return false;
      }
      o.npy = tmp == "npy";
    }
    else if (a == "--profile") o.profile = true;
    else if (a == "--profile-runs" && !bench) {
      if (!next(tmp) || !parse_count(a, tmp, 1, o.profile_runs)) return false;
      o.profile = true;
    }
    else if (a == "--f16") o.f16 = true;
    else if (a == "--runs" && bench) { if (!next(tmp) || !parse_count(a, tmp, 1, o.runs)) return false; }
    else if (a == "--warmup" && bench) { if (!next(tmp) || !parse_count(a, tmp, 0, o.warmup)) return false; }
    else if (a == "--max-seconds" && bench) { if (!next(tmp) || !parse_count(a, tmp, 1, o.max_seconds)) return false; }
    else if (o.model.empty() && a.rfind("--", 0) != 0) o.model = a;
    else {
      std::fprintf(stderr, "wick: unexpected argument '%s'\n", a.c_str());
      return false;
    }
  }
  if (o.model.empty()) {
    std::fprintf(stderr, "wick: missing MODEL.pte\n");
    return false;
  }
  return true;
}

nlohmann::json describe(const Value& v, const std::string& file) {
  nlohmann::json j;
  j["type"] = value_tag_name(v.tag);
  if (v.is_tensor()) {
    j["dtype"] = dtype_name(v.tensor.dtype);
    j["shape"] = v.tensor.sizes;
    j["file"] = file;
  } else if (v.tag == ValueTag::kInt) j["value"] = v.i;
  else if (v.tag == ValueTag::kDouble) j["value"] = v.d;
  else if (v.tag == ValueTag::kBool) j["value"] = v.b;
  else if (v.tag == ValueTag::kString) j["value"] = v.s;
  return j;
}

Result<std::vector<Value>> read_inputs(const std::vector<std::string>& specs) {
  std::vector<Value> inputs;
  for (const auto& spec : specs) {
    WICK_ASSIGN_OR_RETURN(Value v, read_input_spec(spec));
    inputs.push_back(std::move(v));
  }
  return inputs;
}

Status write_outputs(const std::vector<Value>& outputs, const std::string& dir, bool npy) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status(ErrorCode::kInvalidArgument, dir + ": cannot create directory: " + ec.message());
  nlohmann::json doc = nlohmann::json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name = "output_" + std::to_string(i) + (npy ? ".npy" : ".bin");
    if (outputs[i].is_tensor())
      WICK_RETURN_IF_ERROR(npy ? write_npy(dir + "/" + name, outputs[i].tensor)
                               : write_raw_tensor(dir + "/" + name, outputs[i].tensor));
    doc.push_back(describe(outputs[i], outputs[i].is_tensor() ? name : ""));
  }
  FILE* f = std::fopen((dir + "/outputs.json").c_str(), "w");
  if (!f) return Status(ErrorCode::kInvalidArgument, dir + "/outputs.json: cannot open for writing");
  std::string text = json_text(doc, 2) + "\n";
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return {};
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// --output FILE...: one file per output; the extension picks the format.
Status write_output_files(const std::vector<Value>& outputs, const std::vector<std::string>& files) {
  if (files.size() != outputs.size())
    return Status(ErrorCode::kInvalidArgument, std::to_string(files.size()) + " --output file(s) for " +
                                                   std::to_string(outputs.size()) + " output(s): give one per output");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& file = files[i];
    if (std::filesystem::is_directory(file))
      return Status(ErrorCode::kInvalidArgument, file + ": is a directory, expected an output file");
    if (!outputs[i].is_tensor())
      return Status(ErrorCode::kInvalidArgument, "output " + std::to_string(i) + " is a " +
                                                     value_tag_name(outputs[i].tag) + ", not a tensor; use --output-dir");
    WICK_RETURN_IF_ERROR(ends_with(file, ".npy") ? write_npy(file, outputs[i].tensor)
                                                 : write_raw_tensor(file, outputs[i].tensor));
  }
  return {};
}

Result<std::unique_ptr<Method>> open_method(const RunOptions& o) {
  WICK_ASSIGN_OR_RETURN(auto program, Program::load_file(o.model));
  return program->load_method(o.method);
}

}  // namespace

namespace {

// The calls `wick run --profile` makes of each step: 1 warm-up call with the one-time costs
// plus 5 for the medians, unless --profile-runs says otherwise.
constexpr int kDefaultProfileRuns = 6;

// One profiled call of a step: its host rows and the delegates' per-dispatch (per-op) rows.
struct ProfiledCall {
  HostRun host;
  std::vector<ProfileRow> rows;
};

ProfiledCall take_profiled_call(const Method& method, double forward_ms) {
  ProfiledCall c;
  c.host.forward_ms = forward_ms;
  c.host.times = method.last_profile();
  c.host.calls = take_delegate_call_times();
  c.rows = take_profile_rows();
  return c;
}

// The host rows of the step's calls: one call as before; several: the first on its own,
// then the medians of the rest.
void print_host_rows(const std::vector<ProfiledCall>& calls, size_t step) {
  const std::string title = "step " + std::to_string(step);
  std::vector<HostRun> runs;
  for (const ProfiledCall& c : calls) runs.push_back(c.host);
  if (runs.size() == 1) {
    print_host_profile(stdout, runs[0], title, chosen_backend());
    return;
  }
  print_host_profile(stdout, runs[0], title + " first call", chosen_backend(),
                     " (with the one-time costs: pipelines compiled, staging buffers created, memory first touched)");
  size_t used = 0;
  const HostRun median = median_host_run(runs, &used);
  print_host_profile(stdout, median, title, chosen_backend(),
                     " (median of " + std::to_string(used) + " calls after the first)");
}

// The per-dispatch (per-op) table, medians beside the first call where there are several,
// then the FLOP summary of the convolutions and matrix products.
void print_dispatch_rows(const std::vector<ProfiledCall>& calls) {
  std::vector<std::vector<ProfileRow>> runs;
  for (const ProfiledCall& c : calls) runs.push_back(c.rows);
  print_profile_runs(stdout, runs, profile_words());
  print_flop_summary(stdout, median_rows(runs));
}

}  // namespace

int run(const std::vector<std::string>& args) {
  RunOptions o;
  if (!parse(args, o, false)) return 2;
  if (o.output_dir.empty() && o.output_files.empty()) return fail("missing --output-dir DIR or --output FILE");
  if (!o.output_files.empty() && o.steps.size() > 1) return fail("--output FILE takes one step; use --output-dir with --step");
  if (o.profile_runs > 1 && o.steps.size() > 1)
    return fail("--profile-runs repeats a step, which would change what a stateful program's next --step sees: "
                "profile one step at a time");
  const int profile_runs = !o.profile ? 1 : o.profile_runs > 0 ? o.profile_runs : o.steps.size() > 1 ? 1 : kDefaultProfileRuns;
  if (!select_backend(o.backend, o.profile, o.f16)) return 1;
  auto method = open_method(o);
  if (!method.ok()) return fail(method.status().to_string());
  if (o.profile) (*method)->set_profiling(true);
  for (size_t s = 0; s < o.steps.size(); ++s) {
    auto inputs = read_inputs(o.steps[s]);
    if (!inputs.ok()) return fail(inputs.status().to_string());
    const auto t0 = std::chrono::steady_clock::now();
    auto outputs = (*method)->forward(*inputs);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!outputs.ok()) return fail(outputs.status().to_string());
    // Which executor ran the delegated parts (once it has: a failure stays one line).
    if (s == 0) std::printf("%s\n", backend_line().c_str());
    // Host time per instruction (CPU ops, delegate calls by phase), then the delegate's
    // time per dispatch (per op on the cpu backend). The outputs written are the first
    // call's; the later calls only time the same inputs again.
    std::vector<ProfiledCall> calls;
    if (o.profile) {
      calls.push_back(take_profiled_call(**method, ms));
      for (int r = 1; r < profile_runs; ++r) {
        const auto r0 = std::chrono::steady_clock::now();
        auto again = (*method)->forward(*inputs);
        const double r_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0).count();
        if (!again.ok()) return fail("profiled call " + std::to_string(r + 1) + ": " + again.status().to_string());
        calls.push_back(take_profiled_call(**method, r_ms));
      }
      print_host_rows(calls, s);
    }
    if (!o.output_files.empty()) {
      Status w = write_output_files(*outputs, o.output_files);
      if (!w.ok()) return fail(w.to_string());
      for (const std::string& file : o.output_files)
        std::printf("wrote %s (%s)\n", file.c_str(), ends_with(file, ".npy") ? ".npy" : "raw bytes");
    }
    if (!o.output_dir.empty()) {
      std::string dir = o.steps.size() == 1 ? o.output_dir : o.output_dir + "/step_" + std::to_string(s);
      Status w = write_outputs(*outputs, dir, o.npy);
      if (!w.ok()) return fail(w.to_string());
      // Say where the results went: a silent success looked like nothing happened.
      std::printf("wrote %zu output%s (%s) and outputs.json to %s\n", outputs->size(),
                  outputs->size() == 1 ? "" : "s", o.npy ? ".npy" : "raw .bin", dir.c_str());
    }
    if (o.profile) print_dispatch_rows(calls);
  }
  return 0;
}

int bench(const std::vector<std::string>& args) {
  RunOptions o;
  if (!parse(args, o, true)) return 2;
  if (!select_backend(o.backend, false, o.f16)) return 1;
  auto method = open_method(o);
  if (!method.ok()) return fail(method.status().to_string());
  std::vector<Value> inputs;
  if (o.steps[0].empty()) {
    for (const auto& m : (*method)->meta().inputs) {
      if (m.tag != ValueTag::kTensor) return fail("bench: non-tensor inputs need --input");
      auto t = Tensor::allocate(m.tensor.dtype, m.tensor.sizes);
      if (!t.ok()) return fail("bench: input: " + t.status().to_string());
      inputs.push_back(Value::make_tensor(std::move(t).value()));
    }
  } else {
    auto r = read_inputs(o.steps[0]);
    if (!r.ok()) return fail(r.status().to_string());
    inputs = std::move(r).value();
  }
  std::vector<double> ms;
  std::chrono::steady_clock::time_point timed_start;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (i == o.warmup) {
      timed_start = t0;
      reset_backend_call_totals();
    }
    auto out = (*method)->forward(inputs);
    auto t1 = std::chrono::steady_clock::now();
    if (!out.ok()) return fail(out.status().to_string());
    if (i >= o.warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    // --max-seconds: slow programs get fewer runs instead of a harness's timeout.
    if (o.max_seconds > 0 && !ms.empty() && t1 - timed_start >= std::chrono::seconds(o.max_seconds)) break;
  }
  double mean = 0;
  for (double v : ms) mean += v / static_cast<double>(ms.size());
  std::sort(ms.begin(), ms.end());
  std::printf("%s (%s, backend %s): median %.3f ms, min %.3f ms, max %.3f ms over %zu runs (%d warm-up); mean %.3f ms\n",
              o.model.c_str(), o.method.c_str(), chosen_backend().c_str(), ms[ms.size() / 2], ms.front(), ms.back(),
              ms.size(), o.warmup, mean);
  print_backend_summary();
  return 0;
}

}  // namespace wick::cli
