// Top-k of a graph output's last row, computed on the GPU so that an LLM sampler reads
// back k (id, logit) pairs per token instead of the whole vocabulary-sized row.
//
// Requested per output (Graph::request_output_topk). The graph then appends, after its
// dispatches, one row_topk dispatch (ops/reduce/row_topk.wgsl: each workgroup's k best of
// a 2,048-element chunk) and a copy of those candidates into a small staging buffer, and
// skips the output's full readback. After the submit the host merges the workgroups'
// candidates into the k best (ties: lower id first, as torch.topk).
#pragma once

#include <cstdint>
#include <memory>

#include "core/status.h"
#include "gpu/buffer.h"
#include "runtime/value.h"

namespace wick::webgpu {

class Graph;
class ParamsBlock;
struct GpuTensor;

// Most candidates a request may ask for: the shader finds them by k rounds of a
// workgroup argmax, and samplers use top-k in the tens.
constexpr int kMaxOutputTopK = 64;

class OutputTopK {
 public:
  // Records the dispatch and the copy (disabled until enable()).
  static Result<std::unique_ptr<OutputTopK>> create(Graph& g, const GpuTensor& output, size_t output_index);
  // k in 1..kMaxOutputTopK, or 0 to stop.
  Status enable(int k);
  int k() const { return k_; }
  // Before the submit: the row (last row of the output's current shape) and workgroups.
  Status prepare();
  // After the submit: reads and merges the candidates into `result`.
  Status read(TopK& result);

 private:
  OutputTopK(Graph& g, const GpuTensor& t) : g_(g), t_(t) {}
  Graph& g_;
  const GpuTensor& t_;
  ParamsBlock* params_ = nullptr;
  gpu::Buffer* candidates_ = nullptr;
  std::unique_ptr<gpu::Buffer> staging_;
  size_t dispatch_ = 0, copy_ = 0;
  uint32_t groups_ = 0;
  int k_ = 0;
};

}  // namespace wick::webgpu
