// Shared helpers for the kernel benches in bench/kernels/<family>/ (llm.c style: a CPU
// reference, numbered WGSL variants read from disk, a correctness check and a timing).
// Each bench is one binary: `build/wick_kernel_bench_<family> [variant...]`.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/command.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"

namespace wick::bench {

using Clock = std::chrono::steady_clock;

inline void die(const Status& s, const char* what) {
  std::fprintf(stderr, "error (%s): %s\n", what, s.to_string().c_str());
  std::exit(1);
}

template <typename T>
T take(Result<T> r, const char* what) {
  if (!r.ok()) die(r.status(), what);
  return std::move(r).value();
}

inline void check(const Status& s, const char* what) {
  if (!s.ok()) die(s, what);
}

// The text of a WGSL file with its `//#include "name.inc.wgsl"` lines expanded as the build
// expands the shipped shaders' (cmake/webgpu.cmake): the module looked up beside the file
// (beside a link's target: a variant linked to src/webgpu/ops/<family>/x.wgsl finds its
// family's modules), then in src/webgpu/wgsl; each module once per shader. A missing file or
// module ends the bench with its name.
inline std::string expand_wgsl(const std::filesystem::path& path, const std::filesystem::path& shared_dir,
                               std::set<std::filesystem::path>& seen) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  const std::string directive = "//#include \"";
  const std::filesystem::path dir = std::filesystem::canonical(path).parent_path();
  std::string out, line;
  while (std::getline(in, line)) {
    const size_t at = line.find(directive);
    const bool include = at != std::string::npos && line.find_first_not_of(" \t") == at;
    if (!include) {
      out += line + "\n";
      continue;
    }
    const size_t begin = at + directive.size(), end = line.find('"', begin);
    const std::string name = line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    std::filesystem::path module = dir / name;
    if (!std::filesystem::exists(module)) module = shared_dir / name;
    // Then every op family's modules (src/webgpu/ops/*/), as bench/vision/prepare.sh stages
    // them all beside the variants on a device: a variant that is a file of its own (not a
    // link) names shipped modules by their plain names, here and there alike.
    const std::filesystem::path ops = shared_dir.parent_path() / "ops";
    if (!std::filesystem::exists(module) && std::filesystem::is_directory(ops)) {
      for (const auto& family : std::filesystem::directory_iterator(ops)) {
        if (std::filesystem::exists(family.path() / name)) {
          module = family.path() / name;
          break;
        }
      }
    }
    if (!std::filesystem::exists(module)) {
      std::fprintf(stderr, "error: %s: include '%s' not found beside it or in %s\n", path.c_str(), name.c_str(),
                   shared_dir.c_str());
      std::exit(1);
    }
    module = std::filesystem::canonical(module);
    if (seen.insert(module).second) out += expand_wgsl(module, shared_dir, seen);
    else out += "// (" + name + ": already included)\n";
  }
  return out;
}

// The variant's WGSL, read from the source tree at run time (edit a variant, run again: no
// rebuild), includes expanded (WICK_KERNEL_BENCH_DIR is set by CMake; the environment
// variable of the same name overrides it, for a binary run on another machine with the tree).
// A variant that is a link to the shipped shader keeps the bench timing what ships.
inline std::string read_variant(const std::string& family, const std::string& file) {
  const char* env_dir = std::getenv("WICK_KERNEL_BENCH_DIR");
  const std::filesystem::path dir = env_dir && *env_dir ? env_dir : WICK_KERNEL_BENCH_DIR;
  std::set<std::filesystem::path> seen;
  return expand_wgsl(dir / family / file, (dir / ".." / ".." / "src" / "webgpu" / "wgsl").lexically_normal(), seen);
}

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

inline gpu::Buffer storage(const std::shared_ptr<gpu::Device>& dev, const std::vector<float>& data, const char* label) {
  auto b = take(gpu::Buffer::create_storage(dev, std::max<uint64_t>(16, data.size() * 4), label), label);
  if (!data.empty()) check(b.write(data.data(), data.size() * 4), label);
  return b;
}

inline std::vector<float> read_back(const gpu::Buffer& b, size_t n) {
  std::vector<float> v(n);
  check(b.read(v.data(), n * 4), "read back");
  return v;
}

inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(double(a[i]) - double(b[i]));
    if (std::isnan(d)) return INFINITY;
    m = std::max(m, d);
  }
  return m;
}

// Submits the list over and over for `ms` milliseconds: one submit is not enough for a GPU
// whose clock dropped while the CPU worked (a reference, the last case's checks). The H100
// timed a bench's first variants up to 5x slow after one (bench/kernels/attention and conv).
inline void warm_up(gpu::CommandList& list, int ms = 100) {
  for (auto start = Clock::now(); Clock::now() - start < std::chrono::milliseconds(ms);)
    check(list.submit().status(), "warm-up");
}

// Median wall time (ms) of `reps` submit+wait of the list, after one warm-up run.
inline double time_list(gpu::CommandList& list, int reps) {
  check(list.submit().status(), "warm-up");
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    check(list.submit().status(), "submit");
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Appends the sums of each `group` consecutive per-dispatch GPU times (ns), divided by
// `ns_per_unit` (1e3: microseconds, 1e6: milliseconds), to `out`: a multi-dispatch kernel
// (a split and its reduce) timed as one sample.
inline void append_group_sums(const std::vector<uint64_t>& gpu_ns, size_t group, double ns_per_unit,
                              std::vector<double>& out) {
  for (size_t g = 0; g + group <= gpu_ns.size(); g += group) {
    uint64_t ns = 0;
    for (size_t j = 0; j < group; ++j) ns += gpu_ns[g + j];
    out.push_back(ns / ns_per_unit);
  }
}

// Median GPU time (ms) of `group` consecutive dispatches summed (the whole list when 0),
// from timestamp queries, over `reps` submits after one warm-up (every group of every
// submit is one sample); 0 when the device has no timestamps.
inline double time_list_gpu(gpu::CommandList& list, int reps, size_t group = 0) {
  gpu::SubmitOptions opts;
  opts.timestamps = true;
  auto warm = list.submit(opts);
  check(warm.status(), "warm-up");
  if (!warm->has_gpu_times) return 0;
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto stats = list.submit(opts);
    check(stats.status(), "submit");
    if (group == 0) {
      t.push_back(stats->gpu_total_ns() / 1e6);
      continue;
    }
    append_group_sums(stats->gpu_ns, group, 1e6, t);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace wick::bench
