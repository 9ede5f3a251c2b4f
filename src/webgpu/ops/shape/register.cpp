// Shape and copy operators. Every one is a strided copy (shape_copy.wgsl, see copy.h)
// planned from the live input shapes at each execution: views and clones are flat
// copies; permute, slice, select, expand, repeat, flip, pad and pixel_shuffle map each
// output coordinate to its source; cat and split run one copy per piece.
#include <algorithm>
#include <optional>
#include <string>

#include "core/view_shape.h"
#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "webgpu/ops/shape/copy.h"

namespace wick::webgpu {

namespace {

using Dims = std::vector<int64_t>;

Status bad_arg(const char* name, const std::string& what) { return op_error(ErrorCode::kInvalidArgument, name, what); }

// The output's live shape is also the copy's iteration shape.
Status plan_output(const char* name, GpuTensor* out, CopyPlan& plan, const Dims& shape) {
  WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
  plan.dims = shape;
  return {};
}

Result<int64_t> norm_dim(const char* name, int64_t dim, int64_t rank) {
  const int64_t d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= std::max<int64_t>(rank, 1))
    return bad_arg(name, "dim " + std::to_string(dim) + " out of range for rank " + std::to_string(rank));
  return d;
}

// ---- flat copies ----

Status view_copy(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  const Dims probe = a.ints(1);
  if (probe.size() != out->max_dims.size())
    return a.invalid("size " + shape_to_string(probe) + " does not match the output rank " + std::to_string(out->rank()));
  const int32_t size_id = a.id(1);
  return add_flat_copy(g, name, x, out, [=, &g]() -> Result<Dims> {
    WICK_ASSIGN_OR_RETURN(Dims sizes, g.int_list(size_id, name));
    return resolve_view_shape(name, sizes, x->numel());
  });
}

// clone, alias_copy, _clone_dim_order; _to_dim_order_copy / _to_copy convert f32 <-> i32
// <-> bool words as the output's dtype asks (dim_order/memory_format: buffers are always
// contiguous).
Status same_shape_copy(Graph& g, const OpArgs& a) {
  GpuTensor *x = a.tensor(0), *out = a.out();
  if (x->rank() != out->rank())
    return a.invalid("input rank " + std::to_string(x->rank()) + " differs from the output rank " +
                     std::to_string(out->rank()));
  return add_flat_copy(g, a.name(), x, out, [=]() -> Result<Dims> { return x->dims; });
}

// squeeze_copy.dims: the dims removed are those listed (all when empty) that are 1 in the
// input's serialized shape, the exporter's decision; when the live shape disagrees with
// the output rank, the listed dims that are 1 now are removed instead.
// squeeze_copy.dim and .default are the list of one dim and of none.
enum class Squeeze { kDims, kDim, kAll };
Status squeeze(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  std::optional<Dims> listed;
  if (a.variant_as<Squeeze>() == Squeeze::kDims) listed = a.ints(1);
  if (a.variant_as<Squeeze>() == Squeeze::kDim) listed = Dims{a.integer(1)};
  const int64_t rank = x->rank();
  std::vector<bool> candidate(static_cast<size_t>(rank), !listed.has_value() || listed->empty());
  if (listed)
    for (int64_t d : *listed) {
      if (rank == 0) continue;
      WICK_ASSIGN_OR_RETURN(int64_t nd, norm_dim(name, d, rank));
      candidate[static_cast<size_t>(nd)] = true;
    }
  return add_flat_copy(g, name, x, out, [=]() -> Result<Dims> {
    for (int pass = 0; pass < 2; ++pass) {
      Dims shape;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t ref = pass == 0 ? x->max_dims[static_cast<size_t>(d)] : x->dims[static_cast<size_t>(d)];
        if (candidate[static_cast<size_t>(d)] && ref == 1) continue;
        shape.push_back(x->dims[static_cast<size_t>(d)]);
      }
      if (shape.size() == out->max_dims.size()) return shape;
    }
    return bad_arg(name, "squeezing " + shape_to_string(x->dims) + " cannot give the output rank " +
                             std::to_string(out->rank()));
  });
}

Status unsqueeze(Graph& g, const OpArgs& a) {
  GpuTensor *x = a.tensor(0), *out = a.out();
  WICK_ASSIGN_OR_RETURN(int64_t d, norm_dim(a.name(), a.integer(1), x->rank() + 1));
  return add_flat_copy(g, a.name(), x, out, [=]() -> Result<Dims> {
    Dims shape = x->dims;
    shape.insert(shape.begin() + d, 1);
    return shape;
  });
}

// ---- gathers ----

Status permute(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  Dims dims = a.ints(1);
  const int64_t rank = x->rank();
  if (static_cast<int64_t>(dims.size()) != rank)
    return bad_arg(name, "dims " + shape_to_string(dims) + " do not match the input rank " + std::to_string(rank));
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t& d : dims) {
    WICK_ASSIGN_OR_RETURN(d, norm_dim(name, d, rank));
    if (seen[static_cast<size_t>(d)]) return bad_arg(name, "repeated dim in " + shape_to_string(dims));
    seen[static_cast<size_t>(d)] = true;
  }
  if (permute_keeps_order(x->max_dims, dims)) {
    // Only dims of size 1 move: the words keep their order (no dispatch where the memory
    // plan gave the output the input's buffer, alias_args).
    return add_flat_copy(g, name, x, out, [=]() -> Result<Dims> {
      Dims shape;
      for (int64_t d : dims) shape.push_back(x->dims[static_cast<size_t>(d)]);
      return shape;
    });
  }
  return add_strided_copy(g, name, x, out, [=](CopyPlan& plan) -> Status {
    const Dims cs = contiguous_strides(x->dims);
    Dims shape;
    for (int64_t d : dims) {
      shape.push_back(x->dims[static_cast<size_t>(d)]);
      plan.in_strides.push_back(cs[static_cast<size_t>(d)]);
    }
    return plan_output(name, out, plan, shape);
  });
}

Status slice_copy(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  WICK_ASSIGN_OR_RETURN(int64_t d, norm_dim(name, a.integer(1), x->rank()));
  if (x->rank() == 0) return a.bad("cannot slice a 0-d tensor");
  const int32_t start_id = a.id(2), end_id = a.id(3), step_id = a.id(4);
  auto plan_slice = [=, &g](CopyPlan& plan) -> Status {
    const int64_t size = x->dims[static_cast<size_t>(d)];
    int64_t start = 0, end = size, step = 1;
    if (!g.is_none(start_id)) {
      WICK_ASSIGN_OR_RETURN(start, g.int_arg(start_id, name));
    }
    if (!g.is_none(end_id)) {
      WICK_ASSIGN_OR_RETURN(end, g.int_arg(end_id, name));
    }
    if (!g.is_none(step_id)) {
      WICK_ASSIGN_OR_RETURN(step, g.int_arg(step_id, name));
    }
    if (step <= 0) return bad_arg(name, "step " + std::to_string(step) + " must be positive");
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
    const int64_t len = (end - start + step - 1) / step;
    const Dims cs = contiguous_strides(x->dims);
    Dims shape = x->dims;
    shape[static_cast<size_t>(d)] = len;
    plan.in_strides = cs;
    plan.in_strides[static_cast<size_t>(d)] *= step;
    plan.in_base = start * cs[static_cast<size_t>(d)];
    return plan_output(name, out, plan, shape);
  };
  const auto view = range_view_of(g, name, {a.id(0), a.id(1), start_id, end_id, step_id, a.id(5)}, a.id(5));
  if (view && is_range_view(x, out, *view)) {
    // The memory plan made the output a view of the input's buffer (range_views): the
    // words are already there. Only the fixed shapes' offset is right: counted, so a
    // smaller input rebuilds the graph without (Graph::inputs_fit_placement).
    g.count_fixed_shape_op();
    return g.add_step([=]() -> Status {
      CopyPlan plan;
      WICK_RETURN_IF_ERROR(plan_slice(plan));
      if (static_cast<uint64_t>(plan.in_base) * 4 != view->offset)
        return Status(ErrorCode::kInternal, std::string(name) + ": slice moved under a buffer view");
      return {};
    });
  }
  return add_strided_copy(g, name, x, out, plan_slice);
}

Status select_copy(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  if (x->rank() == 0) return a.bad("cannot select from a 0-d tensor");
  WICK_ASSIGN_OR_RETURN(int64_t d, norm_dim(name, a.integer(1), x->rank()));
  const int32_t index_id = a.id(2);
  auto plan_select = [=, &g](CopyPlan& plan) -> Status {
    WICK_ASSIGN_OR_RETURN(int64_t index, g.int_arg(index_id, name));
    const int64_t size = x->dims[static_cast<size_t>(d)];
    if (index < -size || index >= size)
      return bad_arg(name, "index " + std::to_string(index) + " out of range for size " + std::to_string(size));
    if (index < 0) index += size;
    const Dims cs = contiguous_strides(x->dims);
    Dims shape = x->dims;
    shape.erase(shape.begin() + d);
    plan.in_strides = cs;
    plan.in_strides.erase(plan.in_strides.begin() + d);
    plan.in_base = index * cs[static_cast<size_t>(d)];
    return plan_output(name, out, plan, shape);
  };
  const auto view = range_view_of(g, name, {a.id(0), a.id(1), index_id, a.id(3)}, a.id(3));
  if (view && is_range_view(x, out, *view)) {
    // A view of the input's buffer (range_views), as for slice_copy.
    g.count_fixed_shape_op();
    return g.add_step([=]() -> Status {
      CopyPlan plan;
      WICK_RETURN_IF_ERROR(plan_select(plan));
      if (static_cast<uint64_t>(plan.in_base) * 4 != view->offset)
        return Status(ErrorCode::kInternal, std::string(name) + ": select moved under a buffer view");
      return {};
    });
  }
  return add_strided_copy(g, name, x, out, plan_select);
}

Status expand_copy(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  const Dims probe = a.ints(1);
  if (probe.size() < static_cast<size_t>(x->rank()))
    return a.bad("size " + shape_to_string(probe) + " has fewer dims than the input " + shape_to_string(x->max_dims));
  const int32_t size_id = a.id(1);
  return add_strided_copy(g, name, x, out, [=, &g](CopyPlan& plan) -> Status {
    WICK_ASSIGN_OR_RETURN(Dims sizes, g.int_list(size_id, name));
    const size_t rank = sizes.size(), lead = rank - static_cast<size_t>(x->rank());
    const Dims cs = contiguous_strides(x->dims);
    Dims shape(rank);
    plan.in_strides.assign(rank, 0);
    for (size_t i = 0; i < rank; ++i) {
      if (i < lead) {
        if (sizes[i] < 0) return bad_arg(name, "size " + shape_to_string(sizes) + ": -1 in a new leading dim");
        shape[i] = sizes[i];
        continue;
      }
      const size_t j = i - lead;
      const int64_t have = x->dims[j];
      int64_t want = sizes[i] == -1 ? have : sizes[i];
      // A static size that was the input's bound follows the input's live size.
      if (want != have && have != 1 && want == x->max_dims[j]) want = have;
      if (want != have && have != 1)
        return bad_arg(name, "cannot expand " + shape_to_string(x->dims) + " to " + shape_to_string(sizes));
      shape[i] = want;
      plan.in_strides[i] = have == 1 ? 0 : cs[j];
    }
    return plan_output(name, out, plan, shape);
  });
}

Status repeat(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  const Dims probe = a.ints(1);
  if (probe.size() < static_cast<size_t>(x->rank()))
    return a.bad("repeats " + shape_to_string(probe) + " have fewer dims than the input " + shape_to_string(x->max_dims));
  const int32_t reps_id = a.id(1);
  return add_strided_copy(g, name, x, out, [=, &g](CopyPlan& plan) -> Status {
    WICK_ASSIGN_OR_RETURN(Dims reps, g.int_list(reps_id, name));
    const size_t rank = reps.size(), lead = rank - static_cast<size_t>(x->rank());
    Dims in(rank, 1);
    for (size_t j = 0; j < static_cast<size_t>(x->rank()); ++j) in[lead + j] = x->dims[j];
    Dims shape(rank);
    for (size_t i = 0; i < rank; ++i) {
      if (reps[i] < 0) return bad_arg(name, "negative repeat in " + shape_to_string(reps));
      shape[i] = in[i] * reps[i];
    }
    plan.in_strides = contiguous_strides(in);
    plan.mods = in;
    for (int64_t& m : plan.mods) m = std::max<int64_t>(m, 1);
    return plan_output(name, out, plan, shape);
  });
}

Status flip(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  std::vector<bool> flipped(static_cast<size_t>(x->rank()), false);
  for (int64_t d : a.ints(1)) {
    WICK_ASSIGN_OR_RETURN(int64_t nd, norm_dim(name, d, x->rank()));
    if (x->rank() > 0) flipped[static_cast<size_t>(nd)] = true;
  }
  return add_strided_copy(g, name, x, out, [=](CopyPlan& plan) -> Status {
    const Dims cs = contiguous_strides(x->dims);
    plan.in_strides = cs;
    for (size_t d = 0; d < flipped.size(); ++d)
      if (flipped[d] && x->dims[d] > 0) {
        plan.in_base += (x->dims[d] - 1) * cs[d];
        plan.in_strides[d] = -cs[d];
      }
    return plan_output(name, out, plan, x->dims);
  });
}

Status constant_pad_nd(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  const double value = a.scalar(2);
  const Dims probe = a.ints(1);
  if (probe.size() % 2 != 0 || probe.size() / 2 > static_cast<size_t>(x->rank()))
    return a.bad("pad " + shape_to_string(probe) + " must have an even length of at most twice the rank " +
                 std::to_string(x->rank()));
  const int32_t pad_id = a.id(1);
  if (is_zero_pad(g, pad_id)) {
    // F.pad by zeros (SAM 2's window partition pads every map, mostly by nothing): a flat
    // copy, so no dispatch where the memory plan gave the output the input's buffer.
    return add_flat_copy(g, name, x, out, [=]() -> Result<Dims> { return x->dims; });
  }
  return add_strided_copy(g, name, x, out, [=, &g](CopyPlan& plan) -> Status {
    WICK_ASSIGN_OR_RETURN(Dims pad, g.int_list(pad_id, name));
    const size_t rank = static_cast<size_t>(x->rank());
    Dims shape = x->dims;
    plan.offs.assign(rank, 0);
    plan.lims.assign(rank, 0);
    const bool empty = x->numel() == 0;
    for (size_t i = 0; i < rank; ++i) plan.lims[i] = empty ? 1 : x->dims[i];
    if (empty) plan.offs[0] = -(int64_t{1} << 30);  // nothing to read: every element is the fill
    for (size_t k = 0; k < pad.size() / 2; ++k) {
      const size_t d = rank - 1 - k;
      const int64_t before = pad[2 * k], after = pad[2 * k + 1];
      shape[d] = x->dims[d] + before + after;
      if (shape[d] < 0) return bad_arg(name, "pad " + shape_to_string(pad) + " gives a negative size");
      if (!empty) plan.offs[d] = -before;
    }
    plan.in_strides = contiguous_strides(x->dims);
    plan.fill = value;
    return plan_output(name, out, plan, shape);
  });
}

Status pixel_shuffle(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *out = a.out();
  const int64_t r = a.integer(1);
  if (x->rank() < 3) return a.bad("input rank " + std::to_string(x->rank()) + " (at least 3)");
  if (r <= 0) return a.bad("upscale_factor " + std::to_string(r) + " must be positive");
  return add_strided_copy(g, name, x, out, [=](CopyPlan& plan) -> Status {
    const size_t rank = static_cast<size_t>(x->rank());
    const int64_t cin = x->dims[rank - 3], h = x->dims[rank - 2], w = x->dims[rank - 1];
    if (cin % (r * r) != 0)
      return bad_arg(name, "channels " + std::to_string(cin) + " not divisible by upscale_factor^2 " +
                               std::to_string(r * r));
    const int64_t c = cin / (r * r);
    int64_t batch = 1;
    for (size_t i = 0; i + 3 < rank; ++i) batch *= x->dims[i];
    Dims shape(x->dims.begin(), x->dims.end() - 3);
    shape.insert(shape.end(), {c, h * r, w * r});
    WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
    // Output as [batch, c, h, i, w, j] reads input [batch, c, i, j, h, w].
    plan.dims = {batch, c, h, r, w, r};
    plan.in_strides = {cin * h * w, r * r * h * w, w, r * h * w, 1, h * w};
    return {};
  });
}

// ---- multi-piece copies ----

Status cat(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const std::vector<int32_t>& items = a.items(0);
  GpuTensor* out = a.out();
  WICK_ASSIGN_OR_RETURN(int64_t d, norm_dim(name, a.integer(1), out->rank()));
  if (items.empty()) return a.bad("no input tensors");
  std::vector<GpuTensor*> ins;
  for (int32_t id : items) {
    WICK_ASSIGN_OR_RETURN(GpuTensor * t, g.tensor(id, name));
    // Legacy cat skips 1-D empty tensors; any other rank mismatch is an error.
    if (t->rank() != out->rank() && !(t->rank() == 1 && t->max_dims[0] == 0))
      return bad_arg(name, "input of rank " + std::to_string(t->rank()) + " for an output of rank " +
                               std::to_string(out->rank()));
    ins.push_back(t);
  }
  // The live output shape and each piece's offset along `dim`.
  auto layout = [=](std::vector<int64_t>& offsets) -> Result<Dims> {
    Dims shape;
    int64_t total = 0;
    offsets.clear();
    for (GpuTensor* t : ins) {
      offsets.push_back(total);
      if (t->rank() != out->rank()) continue;
      if (shape.empty()) shape = t->dims;
      for (size_t i = 0; i < shape.size(); ++i)
        if (static_cast<int64_t>(i) != d && t->dims[i] != shape[i])
          return bad_arg(name, "input shapes " + shape_to_string(shape) + " and " + shape_to_string(t->dims) +
                                   " differ outside dim " + std::to_string(d));
      total += t->dims[static_cast<size_t>(d)];
    }
    if (shape.empty()) return bad_arg(name, "all inputs are empty");
    shape[static_cast<size_t>(d)] = total;
    return shape;
  };
  // Pieces the graph placed in their slice of the output (cat_plan.h), or that an earlier
  // cat already copied there, are not copied; shapes are static then (the plan's condition),
  // which the step checks.
  std::vector<bool> copy(ins.size(), true);
  int64_t outer = 1;  // pieces are contiguous ranges of the output only when this is 1
  for (int64_t i = 0; i < d; ++i) outer *= out->max_dims[static_cast<size_t>(i)];
  const CatHome* home = g.cat_home(a.id(2));
  if (home && outer == 1) {
    const CatHome out_home = *home;
    int64_t offset = out_home.offset;
    for (size_t k = 0; k < ins.size(); ++k) {
      const CatHome* piece = g.cat_home(items[k]);
      if (ins[k]->rank() != out->rank()) continue;
      if ((piece && piece->root == out_home.root && piece->offset == offset) ||
          !g.first_cat_copy(out_home.root, offset, items[k])) {
        copy[k] = false;
        g.count_cat_piece_not_copied();
      }
      offset += ins[k]->max_numel();
    }
  }
  WICK_RETURN_IF_ERROR(g.add_step([=]() -> Status {
    std::vector<int64_t> offsets;
    WICK_ASSIGN_OR_RETURN(Dims shape, layout(offsets));
    for (size_t k = 0; k < ins.size(); ++k)
      if (!copy[k] && ins[k]->dims != ins[k]->max_dims)
        return bad_arg(name, "input " + std::to_string(k) + " was placed in the output for shape " +
                                 shape_to_string(ins[k]->max_dims) + " but is " + shape_to_string(ins[k]->dims));
    return set_output_dims(name, out, shape);
  }));
  for (size_t k = 0; k < ins.size(); ++k) {
    GpuTensor* t = ins[k];
    if (t->rank() != out->rank() || !copy[k]) continue;
    WICK_RETURN_IF_ERROR(add_strided_copy(g, name, t, out, [=](CopyPlan& plan) -> Status {
      std::vector<int64_t> offsets;
      WICK_ASSIGN_OR_RETURN(Dims shape, layout(offsets));
      WICK_RETURN_IF_ERROR(set_output_dims(name, out, shape));
      plan.dims = t->dims;
      plan.out_strides = contiguous_strides(shape);
      plan.out_base = offsets[k] * plan.out_strides[static_cast<size_t>(d)];
      return {};
    }));
  }
  return {};
}

Status split_with_sizes(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor* x = a.tensor(0);
  const std::vector<int32_t>& items = a.items(3);
  const Dims probe = a.ints(1);
  if (x->rank() == 0) return a.bad("cannot split a 0-d tensor");
  WICK_ASSIGN_OR_RETURN(int64_t d, norm_dim(name, a.integer(2), x->rank()));
  if (probe.size() != items.size())
    return a.bad(std::to_string(probe.size()) + " split sizes for " + std::to_string(items.size()) + " outputs");
  const int32_t sizes_id = a.id(1);
  const std::vector<RangeView> views = range_views(g, name, {a.id(0), sizes_id, a.id(2), a.id(3)});
  for (size_t k = 0; k < items.size(); ++k) {
    WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(items[k], name));
    auto plan_piece = [=, &g](CopyPlan& plan) -> Status {
      WICK_ASSIGN_OR_RETURN(Dims sizes, g.int_list(sizes_id, name));
      int64_t total = 0, offset = 0;
      for (size_t j = 0; j < sizes.size(); ++j) {
        if (sizes[j] < 0) return bad_arg(name, "negative split size in " + shape_to_string(sizes));
        if (j == k) offset = total;
        total += sizes[j];
      }
      const int64_t size = x->dims[static_cast<size_t>(d)];
      if (total != size)
        return bad_arg(name, "split sizes " + shape_to_string(sizes) + " do not sum to " + std::to_string(size));
      const Dims cs = contiguous_strides(x->dims);
      Dims shape = x->dims;
      shape[static_cast<size_t>(d)] = sizes[k];
      plan.in_strides = cs;
      plan.in_base = offset * cs[static_cast<size_t>(d)];
      return plan_output(name, out, plan, shape);
    };
    auto view = std::find_if(views.begin(), views.end(), [&](const RangeView& v) { return v.dst == items[k]; });
    if (view != views.end() && is_range_view(x, out, *view)) {
      // This piece is a view of the input's buffer (range_views), as for slice_copy.
      g.count_fixed_shape_op();
      const uint64_t offset = view->offset;
      WICK_RETURN_IF_ERROR(g.add_step([=]() -> Status {
        CopyPlan plan;
        WICK_RETURN_IF_ERROR(plan_piece(plan));
        if (static_cast<uint64_t>(plan.in_base) * 4 != offset)
          return Status(ErrorCode::kInternal, std::string(name) + ": split moved under a buffer view");
        return {};
      }));
      continue;
    }
    WICK_RETURN_IF_ERROR(add_strided_copy(g, name, x, out, plan_piece));
  }
  return {};
}

}  // namespace

bool is_flat_copy(OpBody build) {
  return build == view_copy || build == same_shape_copy || build == squeeze || build == unsqueeze;
}

void append_shape_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.view_copy.default", "T L -> T", view_copy},
      {"aten.clone.default", "T * -> T", same_shape_copy},
      {"aten.alias_copy.default", "T -> T", same_shape_copy},
      {"dim_order_ops._clone_dim_order.default", "T * * -> T", same_shape_copy},
      {"dim_order_ops._to_dim_order_copy.default", "T * * * * * * -> T", same_shape_copy},
      {"aten._to_copy.default", "T * * * * * * -> T", same_shape_copy},
      {"aten.squeeze_copy.dims", "T L -> T", squeeze, Squeeze::kDims},
      {"aten.squeeze_copy.dim", "T I -> T", squeeze, Squeeze::kDim},
      {"aten.squeeze_copy.default", "T -> T", squeeze, Squeeze::kAll},
      {"aten.unsqueeze_copy.default", "T I -> T", unsqueeze},
      {"aten.permute_copy.default", "T L -> T", permute},
      {"aten.permute.default", "T L -> T", permute},
      {"aten.slice_copy.Tensor", "T I I? I? I? -> T", slice_copy},
      {"aten.select_copy.int", "T I I -> T", select_copy},
      {"aten.expand_copy.default", "T L * -> T", expand_copy},
      {"aten.repeat.default", "T L -> T", repeat},
      {"aten.flip.default", "T L -> T", flip},
      {"aten.constant_pad_nd.default", "T L F -> T", constant_pad_nd},
      {"aten.pixel_shuffle.default", "T I -> T", pixel_shuffle},
      {"aten.cat.default", "V I -> T", cat},
      {"aten.split_with_sizes_copy.default", "T L I -> V", split_with_sizes},
  });
}

}  // namespace wick::webgpu
