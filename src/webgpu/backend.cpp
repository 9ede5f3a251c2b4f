#include "webgpu/backend.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>

#include "gpu/device.h"
#include "gpu/pipeline.h"
#include "runtime/backend.h"
#include "runtime/profile_table.h"
#include "runtime/run_log.h"
#include "webgpu/graph.h"
#include "vkgraph/merge_plans.h"
#include "webgpu/wgsl_shaders.h"
#include "vkgraph/vk_blob.h"
#include "webgpu/op_registry.h"

namespace wick::webgpu {

namespace {

// The graph options every delegate of this backend gets; the environment can override the
// submit chunking for side-by-side timings (WICK_SUBMIT_CHUNK=0: one command buffer), the
// other choices GraphOptions lists (WICK_CAT_IN_PLACE, WICK_READBACK_STAGING, WICK_READBACK_MAP_WAIT,
// WICK_CONV_SPLITK, WICK_CONV_SPLITK_FILL, WICK_CONV_NARROW_TAIL, WICK_CONV_PW_GEMM, WICK_CONV_PW_VEC4, WICK_CONV_PW_SPLITK, WICK_CONV_RM8, WICK_MATMUL_TILE_K8,
// WICK_FLASH_ATTENTION, WICK_FLASH_SPLITKV, WICK_FLASH_PREFETCH, WICK_FLASH_SCORE_CHAIN,
// WICK_FLASH_TILE, WICK_FLASH_RS, WICK_GPU_MULTIPROCESSORS, WICK_FUSE_CHAINS,
// WICK_FUSE_MATMUL_EPILOGUE, WICK_NORM_ROWS, WICK_NORM_SPLIT, WICK_NORM_SPLITK_FUSE, WICK_KERNEL_CHOICE, WICK_SUBGROUPS, WICK_F16_ARITH), and
// turn on f16 weights (WICK_F16=1).
GraphOptions graph_options(const BackendOptions& options) {
  GraphOptions go;
  go.profile = options.profile;
  go.alias_views = options.alias_views;
  go.f16_weights = f16_weights_requested(options);
  // A whole number up to 2^20 for a count; anything else leaves the default.
  auto count_option = [](const char* v, uint32_t& count) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(v, &end, 10);
    if (end != v && *end == '\0' && n <= 1u << 20) count = static_cast<uint32_t>(n);
  };
  if (const char* v = std::getenv("WICK_SUBMIT_CHUNK")) count_option(v, go.submit_first_chunk);
  if (const char* v = std::getenv("WICK_CAT_IN_PLACE")) go.cat_in_place = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_JOINT_PLAN")) go.joint_memory_plan = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_RANGE_VIEWS")) go.range_views = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_READBACK_STAGING")) go.readback_staging = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_READBACK_MAP_WAIT")) go.readback_map_wait = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_CONV_SPLITK")) go.conv_splitk = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_CONV_SPLITK_FILL")) count_option(v, go.conv_splitk_fill);
  if (const char* v = std::getenv("WICK_CONV_CIN_INNER")) go.conv_cin_inner = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_CONV_NARROW_TAIL")) go.conv_narrow_tail = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_CONV_PW_VEC4")) go.conv_pw_vec4 = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_PROFILE_PER_PASS")) go.profile_per_pass = std::string_view(v) == "1";
  if (const char* v = std::getenv("WICK_CONV_PW_SPLITK")) go.conv_pw_splitk = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_CONV_PW_SPLIT_WAVES")) go.conv_pw_split_waves = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_CONV_PW_TAIL")) go.conv_pw_tail = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_MATMUL_TILE_K8")) go.matmul_tile_k8 = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_CONV_RM8")) {
    const std::string_view s(v);
    go.conv_rm8 = s == "0" ? 0 : s == "1" ? 1 : -1;
  }
  // auto | 0 | n (2..16) for the split counts; anything else leaves the default.
  auto split_option = [](const char* v, int& option) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (std::string_view(v) == "auto") option = -1;
    else if (end != v && *end == '\0' && n >= 0 && n <= 16) option = static_cast<int>(n);
  };
  if (const char* v = std::getenv("WICK_MATMUL_SPLITK")) split_option(v, go.matmul_splitk);
  if (const char* v = std::getenv("WICK_FLASH_SPLITKV")) split_option(v, go.flash_splitkv);
  if (const char* v = std::getenv("WICK_FLASH_PREFETCH")) go.flash_prefetch = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_FLASH_SCORE_CHAIN")) go.flash_score_chain = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_JOIN_QKV")) go.join_qkv = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_FLASH_SUBGROUPS")) go.flash_subgroups = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_FLASH_RS")) go.flash_score_rows = std::string_view(v) == "2" ? 2 : 4;
  if (const char* v = std::getenv("WICK_FLASH_TILE")) {
    unsigned bq = 0, bkv = 0;
    char tail = 0;
    if (std::sscanf(v, "%ux%u%c", &bq, &bkv, &tail) == 2 && bq <= 256 && bkv <= 256)
      go.flash_tile_bq = bq, go.flash_tile_bkv = bkv;
  }
  if (const char* v = std::getenv("WICK_GPU_MULTIPROCESSORS")) {
    const long n = std::strtol(v, nullptr, 10);
    if (n >= 0 && n <= 4096) go.gpu_multiprocessors = static_cast<uint32_t>(n);
  }
  if (const char* v = std::getenv("WICK_CONV_PW_GEMM")) go.conv_pw_gemm = std::string_view(v) == "1" ? 1 : std::string_view(v) == "0" ? 0 : -1;
  if (const char* v = std::getenv("WICK_FLASH_ATTENTION")) {
    go.flash_attention = std::string_view(v) != "0";
    if (std::string_view(v) == "all") go.flash_attention_max_head_dim = INT64_MAX;
  }
  if (const char* v = std::getenv("WICK_FUSE_CHAINS")) go.fuse_chains = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_FUSE_MATMUL_EPILOGUE")) go.fuse_matmul_epilogue = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_SPECIALIZE_EPILOGUE")) go.specialize_matmul_epilogue = std::string_view(v) == "1";
  if (const char* v = std::getenv("WICK_NORM_ROWS")) go.norm_rows = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_NORM_SPLIT")) go.norm_split = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_NORM_SPLITK_FUSE")) go.norm_into_splitk = std::string_view(v) != "0";
  if (const char* v = std::getenv("WICK_KERNEL_CHOICE")) {
    const std::string_view c(v);
    go.kernel_choice = c == "gpu" ? GraphOptions::KernelChoice::kGpu
                       : c == "cpu" ? GraphOptions::KernelChoice::kCpu
                                    : GraphOptions::KernelChoice::kByAdapter;
  }
  if (const char* v = std::getenv("WICK_SUBGROUPS")) go.subgroups = std::string_view(v) == "1";
  if (const char* v = std::getenv("WICK_F16_ARITH")) go.f16_arith = std::string_view(v) != "0";
  return go;
}

// What the graphs of one backend built and ran, for the CLI's profile and summary: owned
// by the backend and shared with its delegates, so two backends (or a re-registration)
// never mix their numbers and nothing is kept per process.
struct RunLog {
  std::mutex mutex;
  std::vector<ProfileEntry> profile;  // dispatches of profiled executions since the last print
  size_t dispatches = 0;
  uint64_t naive = 0, planned = 0, constants = 0;
  size_t f16_weights = 0;  // constants stored as f16 (GraphOptions::f16_weights)
  uint64_t f16_saved = 0;  // bytes that saved
  size_t graphs = 0;
  // Every delegate call's host phases and dispatches, profiled or not, summed (`wick bench`
  // prints the encode time per dispatch and each phase's mean per call: where a call's time
  // goes when no timestamps are taken).
  DelegateCallTimes call_totals;
  uint64_t calls_run = 0;
  size_t cat_placed = 0, cat_not_copied = 0;  // concatenations built in place (cat_plan.h)
  std::vector<DelegateCallTimes> calls;  // host times per delegate call when profiling, until taken
  // How the last profiled call's GPU times were taken: 0 not yet, 1 a pass per dispatch,
  // 2 inside the passes (gpu::SubmitStats::gpu_times_inside_pass).
  int timing = 0;
  // The device's robust buffer access (gpu::DeviceOptions::robust_buffer_access), so that a
  // summary says when it ran without.
  bool robust = true;
};

// sum += c, figure by figure.
void add_call_times(DelegateCallTimes& sum, const DelegateCallTimes& c) {
  sum.dispatches += c.dispatches;
  sum.upload_ms += c.upload_ms;
  sum.prepare_ms += c.prepare_ms;
  sum.encode_ms += c.encode_ms;
  sum.submit_ms += c.submit_ms;
  sum.submits += c.submits;
  sum.wait_ms += c.wait_ms;
  sum.download_ms += c.download_ms;
  sum.gpu_ms += c.gpu_ms;
  sum.upload_bytes += c.upload_bytes;
  sum.download_bytes += c.download_bytes;
}

// Builds the delegate's graph again with other options (from the blob or merged plan, which
// live as long as the method).
using GraphBuilder = std::function<Result<std::unique_ptr<Graph>>(const GraphOptions&)>;

class WebGpuDelegate : public DelegateInstance {
 public:
  WebGpuDelegate(std::shared_ptr<gpu::Device> device, std::shared_ptr<gpu::PipelineCache> cache,
                 std::unique_ptr<Graph> graph, std::shared_ptr<RunLog> log, bool profile, GraphBuilder rebuild)
      : device_(std::move(device)), cache_(std::move(cache)), graph_(std::move(graph)), log_(std::move(log)),
        profile_(profile), rebuild_(std::move(rebuild)) {}
  Status execute(ValueTable& values, std::span<const int32_t> args) override {
    if (!graph_->inputs_fit_placement(values, args)) {
      // An input below its upper bound: concatenations built in place (fixed offsets) and
      // kernels built for the upper bounds' shapes no longer fit, so from now on this
      // delegate runs a graph without either.
      GraphOptions go = graph_->options();
      go.cat_in_place = false;
      go.fixed_shapes = false;
      auto rebuilt = rebuild_ ? rebuild_(go) : Result<std::unique_ptr<Graph>>(Status(ErrorCode::kInternal, "no builder"));
      if (!rebuilt.ok()) return rebuilt.status().with_context("WebGPU delegate: rebuilding the graph for smaller inputs");
      graph_ = std::move(*rebuilt);
    }
    Status s = graph_->execute(values, args);
    std::lock_guard<std::mutex> lock(log_->mutex);
    const DelegateCallTimes c = call_times();
    add_call_times(log_->call_totals, c);
    log_->calls_run += 1;
    log_->profile.insert(log_->profile.end(), graph_->last_profile().begin(), graph_->last_profile().end());
    if (profile_) log_->calls.push_back(c);
    if (profile_ && graph_->last_submit().has_gpu_times) log_->timing = graph_->last_submit().gpu_times_inside_pass ? 2 : 1;
    return s;
  }

  // The graph's inputs are uploaded from the host tensors and never written back (only its
  // outputs are read back): args before the last num_outputs().
  size_t read_only_inputs(std::span<const int32_t> args) const override {
    const size_t n = graph_->num_outputs();
    return args.size() >= n ? args.size() - n : 0;
  }

  Status request_output_topk(std::span<const int32_t> args, int32_t value, int k) override {
    WICK_ASSIGN_OR_RETURN(size_t j, output_slot(args, value));
    return graph_->request_output_topk(j, k);
  }
  const TopK* output_topk(std::span<const int32_t> args, int32_t value) const override {
    auto j = output_slot(args, value);
    return j.ok() ? graph_->output_topk(*j) : nullptr;
  }

 private:
  // Which graph output `value` is: outputs are the last num_outputs() of `args`.
  Result<size_t> output_slot(std::span<const int32_t> args, int32_t value) const {
    const size_t n = graph_->num_outputs();
    for (size_t j = 0; j < n && j < args.size(); ++j)
      if (args[args.size() - n + j] == value) return j;
    return Status(ErrorCode::kNotFound, "value " + std::to_string(value) + " is not an output of this WebGPU delegate");
  }

  DelegateCallTimes call_times() const {
    const gpu::SubmitStats& st = graph_->last_submit();
    const HostTimes& h = graph_->last_host_times();
    auto ms = [](uint64_t ns) { return static_cast<double>(ns) / 1e6; };
    DelegateCallTimes c;
    c.dispatches = st.dispatches;
    c.upload_ms = ms(h.upload_ns);
    c.prepare_ms = ms(h.prepare_ns);
    c.encode_ms = ms(st.encode_ns);
    c.submit_ms = ms(st.submit_ns);
    c.submits = st.submits;
    c.wait_ms = ms(st.wait_ns);
    c.download_ms = ms(h.download_ns);
    c.gpu_ms = st.has_gpu_times ? ms(st.gpu_total_ns()) : 0;
    c.upload_bytes = h.upload_bytes;
    c.download_bytes = h.download_bytes;
    return c;
  }

  std::shared_ptr<gpu::Device> device_;
  std::shared_ptr<gpu::PipelineCache> cache_;
  std::unique_ptr<Graph> graph_;
  std::shared_ptr<RunLog> log_;
  bool profile_ = false;
  GraphBuilder rebuild_;
};

class WebGpuBackend : public Backend {
 public:
  explicit WebGpuBackend(BackendOptions options) : options_(options) {}
  std::string_view id() const override { return "VulkanBackend"; }

  Result<std::unique_ptr<DelegateInstance>> init(const DelegateInitContext& ctx) override {
    WICK_RETURN_IF_ERROR(ensure_device());
    WICK_ASSIGN_OR_RETURN(vkgraph::VkBlob blob, vkgraph::parse_vk_blob(ctx.processed));
    GraphOptions go = graph_options(options_);
    WICK_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::build(device_, cache_.get(), blob, ctx.named_data, go));
    GraphBuilder rebuild = [device = device_, cache = cache_, processed = ctx.processed,
                            named = ctx.named_data](const GraphOptions& o) -> Result<std::unique_ptr<Graph>> {
      WICK_ASSIGN_OR_RETURN(vkgraph::VkBlob b, vkgraph::parse_vk_blob(processed));
      return Graph::build(device, cache.get(), b, named, o);
    };
    return wrap(std::move(graph), std::move(rebuild));
  }

  bool runs_operator(std::string_view op) const override {
    auto vk = vkgraph::vk_op_of_host_op(op);
    return vk && find_op(*vk) != nullptr;
  }

  // The run's delegates and host operators as one graph (vkgraph/merge_plans.h).
  Result<FusedDelegate> init_fused(const FusedRun& run) override {
    WICK_RETURN_IF_ERROR(ensure_device());
    std::vector<vkgraph::Plan> plans;
    for (const DelegateInitContext& ctx : run.delegates) {
      WICK_ASSIGN_OR_RETURN(vkgraph::Plan plan, vkgraph::read_plan(ctx.processed, ctx.named_data));
      plans.push_back(std::move(plan));
    }
    WICK_ASSIGN_OR_RETURN(vkgraph::MergedPlan merged, vkgraph::merge_plans(run, plans));
    GraphOptions go = graph_options(options_);
    WICK_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::build(device_, cache_.get(), merged.plan, go));
    auto plan = std::make_shared<vkgraph::Plan>(std::move(merged.plan));
    GraphBuilder rebuild = [device = device_, cache = cache_, plan](const GraphOptions& o) {
      return Graph::build(device, cache.get(), *plan, o);
    };
    WICK_ASSIGN_OR_RETURN(std::unique_ptr<DelegateInstance> instance, wrap(std::move(graph), std::move(rebuild)));
    return FusedDelegate{std::move(instance), std::move(merged.args)};
  }

 private:
  Result<std::unique_ptr<DelegateInstance>> wrap(std::unique_ptr<Graph> graph, GraphBuilder rebuild) {
    {
      std::lock_guard<std::mutex> lock(log_->mutex);
      log_->graphs += 1;
      log_->dispatches += graph->dispatch_count();
      log_->naive += graph->naive_activation_bytes();
      log_->planned += graph->planned_activation_bytes();
      log_->constants += graph->constant_bytes_total();
      log_->f16_weights += graph->f16_weight_count();
      log_->f16_saved += graph->f16_bytes_saved();
      log_->cat_placed += graph->cat_placed_count();
      log_->cat_not_copied += graph->cat_pieces_not_copied();
    }
    return std::unique_ptr<DelegateInstance>(
        new WebGpuDelegate(device_, cache_, std::move(graph), log_, options_.profile, std::move(rebuild)));
  }

 public:
  // A lost device is replaced on the next load, so one failure does not poison the process.
  Status ensure_device() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (device_ && !device_->is_lost()) return {};
    gpu::DeviceOptions o;
    o.request_timestamps_inside_passes = options_.profile;
    WICK_ASSIGN_OR_RETURN(device_, gpu::Device::create(o));
    cache_ = std::make_shared<gpu::PipelineCache>(device_, find_wgsl);
    std::lock_guard<std::mutex> log_lock(log_->mutex);
    log_->robust = device_->options().robust_buffer_access;
    return {};
  }

  std::shared_ptr<gpu::Device> device() {
    std::lock_guard<std::mutex> lock(mutex_);
    return device_;
  }

  // Takes over another backend's device and compiled pipelines, if it has a live one. The
  // options change how graphs are built, not the device (ensure_device asks the same of
  // every device, but for the timestamps inside passes a profiling backend asks for: on an
  // adopted device without them, profiles take a pass per dispatch), so a re-registration
  // with other options compiles nothing twice.
  void adopt_device(WebGpuBackend& from) {
    std::scoped_lock lock(mutex_, from.mutex_);
    if (!from.device_ || from.device_->is_lost()) return;
    device_ = from.device_;
    cache_ = from.cache_;
  }

  BackendOptions options_;
  std::shared_ptr<RunLog> log_ = std::make_shared<RunLog>();
  std::mutex mutex_;
  std::shared_ptr<gpu::Device> device_;
  std::shared_ptr<gpu::PipelineCache> cache_;
};

std::weak_ptr<WebGpuBackend>& registered() {
  static std::weak_ptr<WebGpuBackend> b;
  return b;
}

}  // namespace

bool f16_weights_requested(const BackendOptions& options) {
  if (options.f16_weights) return true;
  const char* v = std::getenv("WICK_F16");
  return v && *v && std::string_view(v) != "0";
}

std::shared_ptr<gpu::Device> backend_device() {
  auto b = registered().lock();
  return b ? b->device() : nullptr;
}

Status register_webgpu_backend(const BackendOptions& options) {
  // Reuse the registered backend (its device and compiled pipelines) when it fits.
  if (auto existing = registered().lock();
      existing && existing->options_.profile == options.profile &&
      existing->options_.alias_views == options.alias_views &&
      existing->options_.f16_weights == options.f16_weights && find_backend("VulkanBackend") == existing) {
    return existing->ensure_device();
  }
  auto backend = std::make_shared<WebGpuBackend>(options);
  if (auto existing = registered().lock()) backend->adopt_device(*existing);
  registered() = backend;
  WICK_RETURN_IF_ERROR(backend->ensure_device());
  register_backend(backend);
  return {};
}

std::vector<DelegateCallTimes> take_delegate_call_times() {
  std::vector<DelegateCallTimes> calls;
  with_locked_log(registered(), [&](RunLog& lr) { calls.swap(lr.calls); });
  return calls;
}

std::vector<ProfileRow> take_last_profile_rows() {
  std::vector<ProfileRow> rows;
  with_locked_log(registered(), [&](RunLog& lr) {
    rows.reserve(lr.profile.size());
    for (const ProfileEntry& e : lr.profile) rows.push_back(ProfileRow{e.label, e.gpu_ns, e.flops, e.op_gpu_ns});
    lr.profile.clear();
  });
  return rows;
}

const ProfileWords& profile_words() {
  static const ProfileWords unknown{"op kernel", "gpu us", "dispatches", "GPU time"};
  static const ProfileWords per_pass{"op kernel", "gpu us", "dispatches", "GPU time",
                                     "GPU times: a compute pass per dispatch, timestamps at its boundaries (each "
                                     "dispatch alone; each time holds a pass's fixed cost, which an unprofiled call "
                                     "does not pay)"};
  static const ProfileWords inside{"op kernel", "gpu us", "dispatches", "GPU time",
                                   "GPU times: timestamps between the dispatches of the call's passes (each from "
                                   "the end of the one before to its own end, barrier and launch included; they add "
                                   "up to the GPU time of an unprofiled call)"};
  int timing = 0;
  with_locked_log(registered(), [&](RunLog& lr) { timing = lr.timing; });
  return timing == 2 ? inside : timing == 1 ? per_pass : unknown;
}

void print_last_profile(std::FILE* out) { print_profile_table(out, take_last_profile_rows(), profile_words()); }

void reset_call_totals() {
  with_locked_log(registered(), [](RunLog& lr) {
    lr.call_totals = DelegateCallTimes{};
    lr.calls_run = 0;
  });
}

void print_last_graph_summary(std::FILE* out) {
  with_locked_log(registered(), [&](RunLog& lr) {
    std::fprintf(out, "webgpu: %zu graph(s), %zu dispatches recorded; activations %.1f KiB planned (shared by liveness) vs %.1f KiB naive; constants %.1f KiB\n",
                 lr.graphs, lr.dispatches, lr.planned / 1024.0, lr.naive / 1024.0, lr.constants / 1024.0);
    if (!lr.robust)
      std::fprintf(out, "webgpu: Dawn's robustness off (WICK_ROBUSTNESS=0): shader indices unclamped\n");
    if (lr.cat_placed > 0)
      std::fprintf(out, "webgpu: concatenations in place: %zu values live in a cat's buffer, %zu cat inputs not copied\n",
                   lr.cat_placed, lr.cat_not_copied);
    if (lr.f16_weights > 0)
      std::fprintf(out, "webgpu: f16 weights: %zu linear weight(s) stored as f16, %.1f KiB saved\n", lr.f16_weights,
                   lr.f16_saved / 1024.0);
    const DelegateCallTimes& t = lr.call_totals;
    if (t.dispatches > 0)
      std::fprintf(out, "webgpu: host encode time %.3f us per dispatch (%llu dispatches encoded)\n",
                   t.encode_ms * 1000.0 / static_cast<double>(t.dispatches), static_cast<unsigned long long>(t.dispatches));
    if (lr.calls_run > 0) {
      const double n = static_cast<double>(lr.calls_run);
      std::fprintf(out,
                   "webgpu: per delegate call (mean of %llu): upload %.3f ms, prepare %.3f, encode "
                   "%.3f, submit %.3f, wait for the GPU %.3f, readback %.3f; sum %.3f ms\n",
                   static_cast<unsigned long long>(lr.calls_run), t.upload_ms / n, t.prepare_ms / n, t.encode_ms / n,
                   t.submit_ms / n, t.wait_ms / n, t.download_ms / n,
                   (t.upload_ms + t.prepare_ms + t.encode_ms + t.submit_ms + t.wait_ms + t.download_ms) / n);
    }
  });
}

}  // namespace wick::webgpu
