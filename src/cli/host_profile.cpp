#include "cli/host_profile.h"

namespace wick::cli {

namespace {

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

}  // namespace

void print_host_profile(std::FILE* out, const Method& method, size_t step, double forward_ms,
                        const std::string& backend, const std::vector<webgpu::DelegateCallTimes>& calls) {
  const auto& times = method.last_profile();
  std::fprintf(out, "step %zu: forward %.3f ms wall on the %s backend, %zu calls\n", step, forward_ms,
               backend.c_str(), times.size());
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

}  // namespace wick::cli
