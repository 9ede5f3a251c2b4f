// The shape family's one kernel (shape_copy.wgsl): a strided copy from one tensor's
// buffer into another's, planned again at every execution from the live shapes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "webgpu/graph.h"
#include "webgpu/op_registry.h"
#include "webgpu/ops/op_kit.h"

namespace wick::webgpu {

constexpr int kMaxCopyRank = 8;

// One copy, in elements. Every per-dim vector has dims.size() entries (or is empty:
// in_strides/out_strides default to the contiguous strides of `dims`, mods/offs/lims to none).
struct CopyPlan {
  std::vector<int64_t> dims;         // iteration shape
  std::vector<int64_t> in_strides;   // may be 0 (broadcast) or negative (flip)
  std::vector<int64_t> out_strides;
  std::vector<int64_t> mods;         // source coordinate = coord % mod (0: none)
  std::vector<int64_t> offs;         // ... + off
  std::vector<int64_t> lims;         // outside [0, lim) reads `fill` (0: no check)
  int64_t in_base = 0, out_base = 0;
  double fill = 0;
};

// The kernel a strided copy runs (shape_copy*.wgsl): one element per thread with the full
// plan (wrap, shift, bounds, flips); a plain copy whose innermost dim is contiguous on
// both sides, 4 words per thread (sizes divisible by 4, fixed shapes only); or a plain copy
// that moves the innermost dim, in 32 x 32 tiles through workgroup memory (GPU kernel
// choice only: Graph::gpu_kernel_choice). See docs/gpu.md ("Layout copies") and
// bench/kernels/shape_copy/.
enum class CopyKernel { kGeneric, kVec4, kTiled };
CopyKernel choose_copy_kernel(const CopyPlan& plan, bool fixed_shapes, bool gpu_choice);

// Fills `plan` from the live shapes (and sets the destination's current dims).
using CopyPlanner = std::function<Status(CopyPlan& plan)>;

// Records one strided copy src -> dst (converting between f32/i32/bool words when the
// two tensors' element kinds differ) and its per-execution step. When src and dst share
// a buffer the source is first staged in a scratch buffer.
Status add_strided_copy(Graph& g, const std::string& name, GpuTensor* src, GpuTensor* dst, CopyPlanner planner);

// A flat copy of all src words into dst (dims given by `shape_of` each execution). When the
// two tensors share a buffer and need no conversion, nothing is dispatched.
Status add_flat_copy(Graph& g, const std::string& name, GpuTensor* src, GpuTensor* dst,
                     std::function<Result<std::vector<int64_t>>()> shape_of);

Status check_word_tensor(const std::string& name, const GpuTensor* t);

// Whether `build` is one of the shape family's flat copies (view_copy, clone, alias_copy,
// _clone_dim_order, _to_copy / _to_dim_order_copy, squeeze_copy, unsqueeze_copy).
bool is_flat_copy(OpBody build);

// For the ops declared with a flat-copy builder (is_flat_copy): the argument positions of
// the input and the output (0 and the last), so the memory plan can give both one buffer
// (memory_plan.h; a copy between different word kinds still converts). nullopt for every
// other op or an argument count its schema does not take.
std::optional<std::pair<size_t, size_t>> flat_copy_args(std::string_view op, size_t nargs);

// Whether a copy from `src` to `dst` rewrites the words (f32 <-> i32, to bool): such a copy
// cannot share its input's buffer.
bool copy_converts(const GpuTensor* src, const GpuTensor* dst);

// Whether permuting a tensor of (upper-bound) shape `dims` by `perm` keeps its element
// order: the dims larger than 1 stay in their order. Live shapes are no larger than the
// bounds, so it then holds at every execution, and the permute is a flat copy.
bool permute_keeps_order(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm);

// Whether value `pad_id` (constant_pad_nd's pad list) is a literal list of zeros: the pad
// is then a flat copy.
bool is_zero_pad(const Graph& g, int32_t pad_id);

// Outputs that are one range of their input's words, in a graph of fixed shapes
// (Graph::shapes_fixed), with literal arguments: slice_copy (step 1), select_copy and each
// piece of split_with_sizes_copy along a dim with only dims of size 1 before it (outer-dim
// selects and splits, batch-1 channel splits in NCHW), at a byte offset that is a multiple
// of the view alignment (minStorageBufferOffsetAlignment: a binding cannot start anywhere
// else). The memory plan makes each such output a view of its input's buffer at `offset`
// (Graph::plan_transient_buffers) and the op records no dispatch for it (MODNet's IBNorm
// halves, Depth Anything's class-token drop, D-FINE's CSP channel splits). select and split
// only with GraphOptions::range_views.
struct RangeView {
  int32_t src = -1, dst = -1;  // value ids
  uint64_t offset = 0;         // bytes into the input
};
std::vector<RangeView> range_views(const Graph& graph, std::string_view op, const std::vector<int32_t>& args);
// range_views' entry for output `dst`, if any.
std::optional<RangeView> range_view_of(const Graph& graph, std::string_view op, const std::vector<int32_t>& args,
                                       int32_t dst);
// Whether the plan made `dst` that view of `src`'s buffer (the op then dispatches nothing).
bool is_range_view(const GpuTensor* src, const GpuTensor* dst, const RangeView& v);

// The outputs of a chain op that may share its input's buffer with no dispatch, as
// (input, output, byte offset) links: the flat copies (flat_copy_args), permutes that keep
// the element order and pads by nothing (is_zero_pad) at offset 0, and range_views. `args`
// are the call's value ids; `graph` gives their values.
std::vector<RangeView> buffer_views(const Graph& graph, std::string_view op, const std::vector<int32_t>& args);

}  // namespace wick::webgpu
