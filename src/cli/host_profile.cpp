#include "cli/host_profile.h"

#include <algorithm>

namespace wick::cli {

namespace {

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// The median as `wick bench` takes it: the upper middle of the sorted values.
template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

void print_host_profile(std::FILE* out, const HostRun& run, const std::string& title, const std::string& backend,
                        const std::string& note) {
  const std::vector<InstructionTime>& times = run.times;
  const std::vector<webgpu::DelegateCallTimes>& calls = run.calls;
  const double forward_ms = run.forward_ms;
  std::fprintf(out, "%s: forward %.3f ms wall on the %s backend, %zu calls%s\n", title.c_str(), forward_ms,
               backend.c_str(), times.size(), note.c_str());
  std::fprintf(out, "  %5s  %10s  %s\n", "instr", "ms", "op");
  double sum = 0, delegate_ms = 0, op_ms = 0, wait_ms = 0, gpu_ms = 0, transfer_ms = 0, record_ms = 0;
  size_t delegates = 0, ops = 0;
  for (const InstructionTime& t : times) {
    sum += t.ms;
    const bool is_delegate = t.name.rfind("delegate ", 0) == 0;
    if (!is_delegate) {
      std::fprintf(out, "  %5zu  %10.3f  %s\n", t.pc, t.ms, t.name.c_str());
      op_ms += t.ms;
      ++ops;
      continue;
    }
    delegate_ms += t.ms;
    if (delegates >= calls.size()) {  // the cpu backend: no phases
      std::fprintf(out, "  %5zu  %10.3f  %s\n", t.pc, t.ms, t.name.c_str());
      ++delegates;
      continue;
    }
    const webgpu::DelegateCallTimes& c = calls[delegates++];
    std::fprintf(out,
                 "  %5zu  %10.3f  %s  [upload %.3f ms %.2f MiB | prepare %.3f | encode %.3f | submit %.3f x%zu | "
                 "wait %.3f, GPU %.3f | readback %.3f ms %.2f MiB | %zu dispatches]\n",
                 t.pc, t.ms, t.name.c_str(), c.upload_ms, mib(c.upload_bytes), c.prepare_ms, c.encode_ms, c.submit_ms,
                 c.submits, c.wait_ms, c.gpu_ms, c.download_ms, mib(c.download_bytes), c.dispatches);
    wait_ms += c.wait_ms;
    gpu_ms += c.gpu_ms;
    transfer_ms += c.upload_ms + c.download_ms;
    record_ms += c.prepare_ms + c.encode_ms + c.submit_ms;
  }
  std::fprintf(out, "  %5s  %10.3f  (sum of calls; the rest of the step is input and output copies)\n", "total", sum);
  if (calls.empty()) return;
  // Where the host's time went: the GPU wait is the only part the GPU decides.
  std::fprintf(out,
               "  host: %zu delegate calls %.3f ms (waiting for the GPU %.3f, GPU busy %.3f; upload + readback "
               "%.3f; prepare + encode + submit %.3f), %zu CPU ops %.3f ms, outside the calls %.3f ms; "
               "host time not waiting for the GPU %.3f ms of %.3f\n",
               delegates, delegate_ms, wait_ms, gpu_ms, transfer_ms, record_ms, ops, op_ms, forward_ms - sum,
               forward_ms - wait_ms, forward_ms);
}

HostRun median_host_run(const std::vector<HostRun>& runs, size_t* used) {
  if (used) *used = runs.empty() ? 0 : 1;
  if (runs.size() < 2) return runs.empty() ? HostRun{} : runs[0];
  const HostRun& last = runs.back();
  std::vector<const HostRun*> later;
  for (size_t r = 1; r < runs.size(); ++r)
    if (runs[r].times.size() == last.times.size() && runs[r].calls.size() == last.calls.size()) later.push_back(&runs[r]);
  if (used) *used = later.size();
  auto med = [&](auto get) {
    std::vector<decltype(get(*later[0]))> v;
    for (const HostRun* r : later) v.push_back(get(*r));
    return median(v);
  };
  HostRun m = last;
  m.forward_ms = med([](const HostRun& r) { return r.forward_ms; });
  for (size_t i = 0; i < m.times.size(); ++i) m.times[i].ms = med([i](const HostRun& r) { return r.times[i].ms; });
  for (size_t i = 0; i < m.calls.size(); ++i) {
    webgpu::DelegateCallTimes& c = m.calls[i];
    using C = webgpu::DelegateCallTimes;
    for (double C::*f : {&C::upload_ms, &C::prepare_ms, &C::encode_ms, &C::submit_ms, &C::wait_ms, &C::download_ms,
                         &C::gpu_ms})
      c.*f = med([i, f](const HostRun& r) { return r.calls[i].*f; });
  }
  return m;
}

}  // namespace wick::cli
