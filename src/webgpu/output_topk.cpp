#include "webgpu/output_topk.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/topk_order.h"
#include "webgpu/graph.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kChunk = 2048;  // row_topk.wgsl's kMaxChunk: 8 KiB of workgroup memory
constexpr uint32_t kNone = 0xffffffffu;

struct TopKParams {
  uint32_t row_offset, n, chunk, k;
};

}  // namespace

Result<std::unique_ptr<OutputTopK>> OutputTopK::create(Graph& g, const GpuTensor& t, size_t output_index) {
  const std::string where = "output " + std::to_string(output_index) + " top-k";
  if (t.elem != Elem::kF32) return Status(ErrorCode::kNotSupported, where + ": the output is not a float tensor");
  if (t.rank() < 1 || t.max_dims.back() < 1) return Status(ErrorCode::kNotSupported, where + ": empty output");
  std::unique_ptr<OutputTopK> o(new OutputTopK(g, t));
  const uint64_t max_groups = (static_cast<uint64_t>(t.max_dims.back()) + kChunk - 1) / kChunk;
  if (max_groups > g.device().limits().max_compute_workgroups_per_dimension)
    return Status(ErrorCode::kNotSupported, where + ": rows of " + std::to_string(t.max_dims.back()) + " are too long");
  const uint64_t cand_bytes = max_groups * kMaxOutputTopK * 8;
  WICK_ASSIGN_OR_RETURN(o->params_, g.params(sizeof(TopKParams), where));
  WICK_ASSIGN_OR_RETURN(o->candidates_, g.scratch(cand_bytes, where + " candidates"));
  WICK_ASSIGN_OR_RETURN(gpu::Buffer staging,
                        gpu::Buffer::create(g.device_ptr(), cand_bytes, gpu::BufferUsage::kMapRead | gpu::BufferUsage::kCopyDst,
                                            where + " staging"));
  o->staging_ = std::make_unique<gpu::Buffer>(std::move(staging));
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(gpu::PipelineKey(gpu::shaders::row_topk)));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, t.buffer.get()}, {1, o->candidates_}, {2, o->params_->buffer()}};
  d.x = 0;  // off until enable()
  d.label = where + " row_topk";
  WICK_ASSIGN_OR_RETURN(o->dispatch_, g.add_dispatch(std::move(d)));
  WICK_ASSIGN_OR_RETURN(o->copy_, g.add_copy(*o->candidates_, *o->staging_, cand_bytes));
  WICK_RETURN_IF_ERROR(g.commands().set_copy_bytes(o->copy_, 0));
  return o;
}

Status OutputTopK::enable(int k) {
  if (k < 0 || k > kMaxOutputTopK)
    return Status(ErrorCode::kInvalidArgument, "top-k: k must be in 0.." + std::to_string(kMaxOutputTopK) + ", got " + std::to_string(k));
  k_ = k;
  if (k == 0) {
    WICK_RETURN_IF_ERROR(g_.commands().set_workgroups(dispatch_, 0));
    return g_.commands().set_copy_bytes(copy_, 0);
  }
  return prepare();
}

Status OutputTopK::prepare() {
  if (k_ == 0) return {};
  const int64_t n = t_.dims.empty() ? 0 : t_.dims.back();
  const int64_t numel = t_.numel();
  if (n < 1) return Status(ErrorCode::kInvalidArgument, "top-k of an empty output row");
  groups_ = static_cast<uint32_t>((n + kChunk - 1) / kChunk);
  TopKParams p{static_cast<uint32_t>(numel - n), static_cast<uint32_t>(n), kChunk, static_cast<uint32_t>(k_)};
  WICK_RETURN_IF_ERROR(params_->write(p));
  WICK_RETURN_IF_ERROR(g_.commands().set_workgroups(dispatch_, groups_));
  return g_.commands().set_copy_bytes(copy_, uint64_t{groups_} * static_cast<uint64_t>(k_) * 8);
}

Status OutputTopK::read(TopK& result) {
  const size_t pairs = static_cast<size_t>(groups_) * static_cast<size_t>(k_);
  std::vector<uint32_t> words(pairs * 2);
  WICK_RETURN_IF_ERROR(staging_->read(words.data(), words.size() * 4));
  std::vector<TopKCandidate> cand;
  cand.reserve(pairs);
  for (size_t i = 0; i < pairs; ++i) {
    if (words[2 * i] == kNone) continue;
    float v;
    std::memcpy(&v, &words[2 * i + 1], 4);
    cand.emplace_back(v, static_cast<int32_t>(words[2 * i]));
  }
  keep_best(cand, static_cast<size_t>(k_));
  result = to_topk(cand);
  return {};
}

}  // namespace wick::webgpu
