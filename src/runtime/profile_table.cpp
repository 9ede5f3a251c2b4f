#include "runtime/profile_table.h"

#include <algorithm>
#include <numeric>

namespace wick {

namespace {

// The median as `wick bench` takes it: the upper middle of the sorted values.
uint64_t median_of(std::vector<uint64_t>& v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double tflops(double flops, uint64_t ns) { return ns > 0 ? flops / static_cast<double>(ns) / 1e3 : 0.0; }

bool any_flops(const std::vector<ProfileRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const ProfileRow& r) { return r.flops > 0; });
}

// The table: `first` (when not null) adds the first call's time per row.
void print_rows(std::FILE* out, const std::vector<ProfileRow>& rows, const std::vector<ProfileRow>* first,
                const ProfileWords& words, const std::string& total_note) {
  const bool flops = any_flops(rows);
  if (words.note) std::fprintf(out, "%s\n", words.note);
  std::fprintf(out, "%-6s %-64s %12s", "#", words.label_header, words.time_header);
  if (first) std::fprintf(out, " %12s", "first us");
  if (flops) std::fprintf(out, " %9s %8s", "GFLOP", "TFLOP/s");
  std::fprintf(out, "\n");
  uint64_t total = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ProfileRow& r = rows[i];
    std::fprintf(out, "%-6zu %-64.*s %12.2f", i, static_cast<int>(r.label.size()), r.label.data(), r.ns / 1000.0);
    if (first) std::fprintf(out, " %12.2f", (*first)[i].ns / 1000.0);
    if (flops && r.flops > 0) std::fprintf(out, " %9.4f %8.2f", r.flops / 1e9, tflops(r.flops, r.op_ns));
    std::fprintf(out, "\n");
    total += r.ns;
  }
  std::fprintf(out, "total: %zu %s, %.2f us %s%s\n", rows.size(), words.steps, total / 1000.0, words.time,
               total_note.c_str());
}

}  // namespace

void print_profile_table(std::FILE* out, const std::vector<ProfileRow>& rows, const ProfileWords& words) {
  if (rows.empty()) return;
  print_rows(out, rows, nullptr, words, "");
}

std::vector<ProfileRow> median_rows(const std::vector<std::vector<ProfileRow>>& runs, size_t* used) {
  if (used) *used = runs.empty() ? 0 : 1;
  if (runs.size() < 2) return runs.empty() ? std::vector<ProfileRow>{} : runs[0];
  const size_t n = runs.back().size();
  std::vector<const std::vector<ProfileRow>*> later;
  for (size_t r = 1; r < runs.size(); ++r)
    if (runs[r].size() == n) later.push_back(&runs[r]);
  if (used) *used = later.size();
  std::vector<ProfileRow> rows = runs.back();
  std::vector<uint64_t> ns(later.size()), op_ns(later.size());
  for (size_t i = 0; i < n; ++i) {
    for (size_t r = 0; r < later.size(); ++r) {
      ns[r] = (*later[r])[i].ns;
      op_ns[r] = (*later[r])[i].op_ns;
    }
    rows[i].ns = median_of(ns);
    rows[i].op_ns = median_of(op_ns);
  }
  return rows;
}

void print_profile_runs(std::FILE* out, const std::vector<std::vector<ProfileRow>>& runs, const ProfileWords& words) {
  if (runs.empty() || runs.back().empty()) return;
  if (runs.size() == 1) {
    print_rows(out, runs[0], nullptr, words, "");
    return;
  }
  size_t used = 0;
  const std::vector<ProfileRow> rows = median_rows(runs, &used);
  const bool first_fits = runs[0].size() == rows.size();
  const uint64_t first_total = std::accumulate(runs[0].begin(), runs[0].end(), uint64_t{0},
                                               [](uint64_t s, const ProfileRow& r) { return s + r.ns; });
  char note[160];
  std::snprintf(note, sizeof note, " (median of %zu calls after the first; the first call %.2f us)", used,
                first_total / 1000.0);
  print_rows(out, rows, first_fits ? &runs[0] : nullptr, words, note);
}

void print_flop_summary(std::FILE* out, const std::vector<ProfileRow>& rows, size_t top) {
  std::vector<size_t> with;
  double flops = 0;
  uint64_t ns = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].flops <= 0) continue;
    with.push_back(i);
    flops += rows[i].flops;
    ns += rows[i].op_ns;
  }
  if (with.empty()) return;
  std::fprintf(out, "conv/matmul/attention: %zu ops, %.3f GFLOP in %.2f us (%.2f TFLOP/s)\n", with.size(), flops / 1e9,
               ns / 1000.0, tflops(flops, ns));
  std::stable_sort(with.begin(), with.end(), [&](size_t a, size_t b) { return rows[a].flops > rows[b].flops; });
  if (with.size() > top) with.resize(top);
  double top_flops = 0;
  uint64_t top_ns = 0;
  for (size_t i : with) {
    top_flops += rows[i].flops;
    top_ns += rows[i].op_ns;
  }
  std::fprintf(out, "largest %zu by FLOPs: %.3f GFLOP in %.2f us (%.2f TFLOP/s)\n", with.size(), top_flops / 1e9,
               top_ns / 1000.0, tflops(top_flops, top_ns));
  for (size_t i : with)
    std::fprintf(out, "  #%-5zu %-64.*s %9.3f GFLOP %10.2f us %8.2f TFLOP/s\n", i, static_cast<int>(rows[i].label.size()),
                 rows[i].label.data(), rows[i].flops / 1e9, rows[i].op_ns / 1000.0, tflops(rows[i].flops, rows[i].op_ns));
}

}  // namespace wick
