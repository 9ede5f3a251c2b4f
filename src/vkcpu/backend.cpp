#include "vkcpu/backend.h"

#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cpu/thread_pool.h"
#include "runtime/backend.h"
#include "vkcpu/cpu_graph.h"

namespace wick::vkcpu {

namespace {

struct LastRun {
  std::mutex mutex;
  std::vector<StepProfile> profile;
  size_t graphs = 0, steps = 0;
};
LastRun& last_run() {
  static LastRun* r = new LastRun();
  return *r;
}

class CpuDelegate : public DelegateInstance {
 public:
  CpuDelegate(std::unique_ptr<CpuGraph> graph, bool profile) : graph_(std::move(graph)), profile_(profile) {
    graph_->set_profile(profile);
  }
  Status execute(ValueTable& values, std::span<const int32_t> args) override {
    Status s = graph_->execute(values, args);
    if (profile_) {
      LastRun& lr = last_run();
      std::lock_guard<std::mutex> lock(lr.mutex);
      lr.profile.insert(lr.profile.end(), graph_->last_profile().begin(), graph_->last_profile().end());
    }
    return s;
  }

 private:
  std::unique_ptr<CpuGraph> graph_;
  bool profile_;
};

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(BackendOptions options) : options_(options) {}
  std::string_view id() const override { return "VulkanBackend"; }
  Result<std::unique_ptr<DelegateInstance>> init(const DelegateInitContext& ctx) override {
    WICK_ASSIGN_OR_RETURN(vkgraph::Plan plan, vkgraph::read_plan(ctx.processed, ctx.named_data));
    WICK_ASSIGN_OR_RETURN(std::unique_ptr<CpuGraph> graph, CpuGraph::build(plan, ctx.max_graph_bytes));
    {
      LastRun& lr = last_run();
      std::lock_guard<std::mutex> lock(lr.mutex);
      lr.graphs += 1;
      lr.steps += graph->step_count();
    }
    return std::unique_ptr<DelegateInstance>(new CpuDelegate(std::move(graph), options_.profile));
  }

 private:
  BackendOptions options_;
};

}  // namespace

Status register_cpu_backend(const BackendOptions& options) {
  register_backend(std::make_shared<CpuBackend>(options));
  return {};
}

void print_last_profile(std::FILE* out) {
  LastRun& lr = last_run();
  std::lock_guard<std::mutex> lock(lr.mutex);
  if (lr.profile.empty()) return;
  uint64_t total = 0;
  std::fprintf(out, "%-6s %-64s %12s\n", "#", "op", "cpu us");
  for (size_t i = 0; i < lr.profile.size(); ++i) {
    std::fprintf(out, "%-6zu %-64s %12.2f\n", i, lr.profile[i].op.c_str(), lr.profile[i].ns / 1000.0);
    total += lr.profile[i].ns;
  }
  std::fprintf(out, "total: %zu ops, %.2f us CPU delegate time\n", lr.profile.size(), total / 1000.0);
  lr.profile.clear();
}

void print_last_graph_summary(std::FILE* out) {
  LastRun& lr = last_run();
  std::lock_guard<std::mutex> lock(lr.mutex);
  std::fprintf(out, "cpu: %zu graph(s), %zu steps; %d thread(s)\n", lr.graphs, lr.steps, cpu::num_threads());
}

}  // namespace wick::vkcpu
