#include "vkcpu/backend.h"

#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cpu/thread_pool.h"
#include "runtime/backend.h"
#include "runtime/profile_table.h"
#include "runtime/run_log.h"
#include "vkcpu/cpu_graph.h"

namespace wick::vkcpu {

namespace {

// What the graphs of one backend built and ran, for the CLI's profile and summary: owned
// by the backend and shared with its delegates, nothing kept per process.
struct RunLog {
  std::mutex mutex;
  std::vector<StepProfile> profile;
  size_t graphs = 0, steps = 0;
};

class CpuDelegate : public DelegateInstance {
 public:
  CpuDelegate(std::unique_ptr<CpuGraph> graph, bool profile, std::shared_ptr<RunLog> log)
      : graph_(std::move(graph)), profile_(profile), log_(std::move(log)) {
    graph_->set_profile(profile);
  }
  Status execute(ValueTable& values, std::span<const int32_t> args) override {
    Status s = graph_->execute(values, args);
    if (profile_) {
      std::lock_guard<std::mutex> lock(log_->mutex);
      log_->profile.insert(log_->profile.end(), graph_->last_profile().begin(), graph_->last_profile().end());
    }
    return s;
  }

 private:
  std::unique_ptr<CpuGraph> graph_;
  bool profile_;
  std::shared_ptr<RunLog> log_;
};

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(BackendOptions options) : options_(options) {}
  std::string_view id() const override { return "VulkanBackend"; }
  Result<std::unique_ptr<DelegateInstance>> init(const DelegateInitContext& ctx) override {
    WICK_ASSIGN_OR_RETURN(vkgraph::Plan plan, vkgraph::read_plan(ctx.processed, ctx.named_data));
    WICK_ASSIGN_OR_RETURN(std::unique_ptr<CpuGraph> graph, CpuGraph::build(plan, ctx.max_graph_bytes));
    {
      std::lock_guard<std::mutex> lock(log_->mutex);
      log_->graphs += 1;
      log_->steps += graph->step_count();
    }
    return std::unique_ptr<DelegateInstance>(new CpuDelegate(std::move(graph), options_.profile, log_));
  }

  BackendOptions options_;
  std::shared_ptr<RunLog> log_ = std::make_shared<RunLog>();
};

// The backend registered last, whose log the print functions read.
std::weak_ptr<CpuBackend>& registered() {
  static auto* b = new std::weak_ptr<CpuBackend>();
  return *b;
}

}  // namespace

Status register_cpu_backend(const BackendOptions& options) {
  auto backend = std::make_shared<CpuBackend>(options);
  registered() = backend;
  register_backend(backend);
  return {};
}

std::vector<ProfileRow> take_last_profile_rows() {
  std::vector<ProfileRow> rows;
  with_locked_log(registered(), [&](RunLog& lr) {
    for (const StepProfile& p : lr.profile) rows.push_back(ProfileRow{p.op, p.ns});
    lr.profile.clear();
  });
  return rows;
}

const ProfileWords& profile_words() {
  static const ProfileWords words{"op", "cpu us", "ops", "CPU delegate time"};
  return words;
}

void print_last_profile(std::FILE* out) { print_profile_table(out, take_last_profile_rows(), profile_words()); }

void print_last_graph_summary(std::FILE* out) {
  with_locked_log(registered(), [&](RunLog& lr) {
    std::fprintf(out, "cpu: %zu graph(s), %zu steps; %d thread(s)\n", lr.graphs, lr.steps, cpu::num_threads());
  });
}

}  // namespace wick::vkcpu
