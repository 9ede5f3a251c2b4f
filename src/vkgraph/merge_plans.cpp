#include "vkgraph/merge_plans.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace wick::vkgraph {

namespace {

// Host operators a merged plan may hold, and their VK00 names. These are the ones
// ExecuTorch 1.5's Vulkan partitioner leaves between the delegates of an SDPA attention
// layer (PyTorch's _safe_softmax: any(dim=-1); the split scale: mul(x, 1.0)).
// A host kernel call's arguments: the schema's `inputs`, then its `outputs`, then the
// returned value (the one output again, or a TensorList of the several). The VK00 op takes
// the inputs, then the output, or a ValueList of them where there are several.
struct HostOp {
  std::string_view host, vk;
  size_t inputs, outputs;
};
constexpr HostOp kHostOps[] = {
    {"aten::mul.Scalar_out", "aten.mul.Scalar", 2, 1},  // self, other | out
    {"aten::any.out", "aten.any.dim", 3, 1},            // self, dim, keepdim | out
    // self, kernel_size, stride, padding, dilation, ceil_mode | out, indices: the Vulkan
    // partitioner leaves it out where a texture could not hold it (SAM 2.1's Hiera).
    {"aten::max_pool2d_with_indices.out", "aten.max_pool2d_with_indices.default", 6, 2},
    // D-FINE's deformable attention (zeros padding: "op args not supported"), its query
    // selection (max over classes, top 300 anchors, a log) and box head (top 4 bins).
    {"aten::grid_sampler_2d.out", "aten.grid_sampler_2d.default", 5, 1},  // input, grid, modes, align | out
    {"aten::max.dim_max", "aten.max.dim", 3, 2},                          // self, dim, keepdim | values, indices
    {"aten::topk.values", "aten.topk.default", 5, 2},                     // self, k, dim, largest, sorted | values, indices
    {"aten::log.out", "aten.log.default", 1, 1},
    // nn.InstanceNorm2d: input, weight, bias, training, momentum, eps | out, mean, invstd.
    {"aten::_native_batch_norm_legit.no_stats_out", "aten._native_batch_norm_legit.no_stats", 6, 3},
};

const HostOp* find_host_op(std::string_view host_op) {
  for (const HostOp& h : kHostOps)
    if (h.host == host_op) return &h;
  return nullptr;
}

Result<vk::VkDataType> vk_dtype(ScalarType t, const std::string& where) {
  switch (t) {
    case ScalarType::kBool: return vk::VkDataType::BOOL;
    case ScalarType::kByte: return vk::VkDataType::UINT8;
    case ScalarType::kChar: return vk::VkDataType::INT8;
    case ScalarType::kInt: return vk::VkDataType::INT32;
    case ScalarType::kLong: return vk::VkDataType::INT64;
    case ScalarType::kHalf: return vk::VkDataType::FLOAT16;
    case ScalarType::kFloat: return vk::VkDataType::FLOAT32;
    case ScalarType::kDouble: return vk::VkDataType::FLOAT64;
    default: return Status(ErrorCode::kNotSupported, where + ": dtype " + dtype_name(t) + " has no VK00 type");
  }
}

class Merger {
 public:
  explicit Merger(const FusedRun& run) : run_(run) {}

  Status add_delegate(const Plan& q, std::span<const int32_t> args, const std::string& where) {
    const size_t n_in = q.input_ids.size(), n_out = q.output_ids.size();
    if (args.size() != n_in + n_out)
      return Status(ErrorCode::kInvalidProgram, where + ": the call passes " + std::to_string(args.size()) +
                                                    " values, the graph has " + std::to_string(n_in) + " inputs and " +
                                                    std::to_string(n_out) + " outputs");
    // New ids: inputs an earlier part wrote join that value; every other value is copied,
    // its memory objects moved past those of the earlier parts (no aliasing across parts).
    std::vector<int32_t> id(q.values.size(), -1);
    for (size_t i = 0; i < n_in; ++i)
      if (std::find(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i), args[i]) != args.begin() + static_cast<std::ptrdiff_t>(i))
        return Status(ErrorCode::kNotSupported, where + ": value " + std::to_string(args[i]) + " is passed twice");
    for (size_t i = 0; i < n_in; ++i) {
      auto it = of_value_.find(args[i]);
      if (it != of_value_.end()) id[static_cast<size_t>(q.input_ids[i])] = it->second;
    }
    std::vector<size_t> copied;
    for (size_t v = 0; v < q.values.size(); ++v)
      if (id[v] < 0) {
        id[v] = next_id_++;
        copied.push_back(v);
      }
    // The part's own inputs get buffers of their own: its exporter may have planned an
    // input's memory object for an intermediate once the input is dead, which is safe
    // when the input is uploaded before each call, not when a later part reads the same
    // value (MODNet's image, read by three branches, was overwritten that way).
    std::vector<bool> is_input(q.values.size(), false);
    for (int32_t in : q.input_ids) is_input[static_cast<size_t>(in)] = true;
    int max_mem = -1;
    for (size_t v : copied) {
      ValueDecl d = q.values[v];
      if (d.kind == ValueKind::kTensor && is_input[v]) {
        d.tensor.mem_obj_id = -1;
      } else if (d.kind == ValueKind::kTensor && d.tensor.mem_obj_id >= 0) {
        max_mem = std::max(max_mem, d.tensor.mem_obj_id);
        d.tensor.mem_obj_id += mem_base_;
      }
      for (int32_t& item : d.items) item = item >= 0 ? id[static_cast<size_t>(item)] : item;
      out_.plan.values.push_back(std::move(d));
    }
    mem_base_ += max_mem + 1;
    for (size_t i = 0; i < n_in; ++i)
      if (!of_value_.count(args[i])) add_input(args[i], id[static_cast<size_t>(q.input_ids[i])]);
    for (const OpCall& op : q.ops) {
      OpCall c = op;
      c.index = static_cast<uint32_t>(out_.plan.ops.size());
      for (int32_t& a : c.args) a = a >= 0 ? id[static_cast<size_t>(a)] : a;
      out_.plan.ops.push_back(std::move(c));
    }
    for (size_t j = 0; j < n_out; ++j) write(args[n_in + j], id[static_cast<size_t>(q.output_ids[j])]);
    return {};
  }

  Status add_operator(std::string_view host_op, std::span<const int32_t> args, const std::string& where) {
    const HostOp* h = find_host_op(host_op);
    if (h == nullptr) return Status(ErrorCode::kNotSupported, where + ": no graph op for " + std::string(host_op));
    const size_t n = h->inputs + h->outputs;
    WICK_ASSIGN_OR_RETURN(bool returns_outputs, lists_outputs_again(*h, args, where));
    if (args.size() != n && !returns_outputs)
      return Status(ErrorCode::kInvalidProgram, where + ": " + std::to_string(args.size()) + " arguments, expected " +
                                                    std::to_string(n) + " (and the returned outputs)");
    OpCall call;
    call.index = static_cast<uint32_t>(out_.plan.ops.size());
    call.name = std::string(h->vk);
    for (size_t k = 0; k < h->inputs; ++k) {
      WICK_ASSIGN_OR_RETURN(int32_t pid, input_arg(args[k], where + ": argument " + std::to_string(k)));
      call.args.push_back(pid);
    }
    std::vector<int32_t> outs;
    for (size_t k = h->inputs; k < n; ++k) {
      WICK_ASSIGN_OR_RETURN(const Value* v, method_value(args[k], where));
      if (!v->is_tensor())
        return Status(ErrorCode::kInvalidProgram, where + ": output " + std::to_string(k - h->inputs) + " is not a tensor");
      WICK_ASSIGN_OR_RETURN(ValueDecl d, tensor_decl(*v, where));
      outs.push_back(push(std::move(d)));
    }
    if (outs.size() == 1) {
      call.args.push_back(outs[0]);
    } else {
      ValueDecl list;
      list.kind = ValueKind::kValueList;
      list.items = outs;
      call.args.push_back(push(std::move(list)));
    }
    // Written after the inputs were read: an in-place call reads the old value.
    for (size_t k = 0; k < outs.size(); ++k) write(args[h->inputs + k], outs[k]);
    out_.plan.ops.push_back(std::move(call));
    return {};
  }

  Result<MergedPlan> finish() {
    std::vector<int32_t> outputs;
    for (int32_t ev : written_) {
      if (!run_.read_after.at(static_cast<size_t>(ev))) continue;
      if (std::find(outputs.begin(), outputs.end(), ev) != outputs.end()) continue;
      outputs.push_back(ev);
    }
    if (outputs.empty()) return Status(ErrorCode::kInvalidProgram, "the run writes nothing read after it");
    for (int32_t ev : outputs) {
      out_.plan.output_ids.push_back(of_value_.at(ev));
      out_.args.push_back(ev);
    }
    return std::move(out_);
  }

 private:
  // Whether `args` ends with the call's return after its outputs, as ExecuTorch's emitter
  // writes it: the one output again, or one TensorList value of the several outputs.
  Result<bool> lists_outputs_again(const HostOp& h, std::span<const int32_t> args, const std::string& where) const {
    const size_t n = h.inputs + h.outputs;
    if (args.size() != n + 1) return false;
    const std::span<const int32_t> outs = args.subspan(h.inputs, h.outputs);
    if (h.outputs == 1) return args[n] == outs[0];
    WICK_ASSIGN_OR_RETURN(const Value* ret, method_value(args[n], where));
    return ret->tag == ValueTag::kListTensor && std::equal(ret->items.begin(), ret->items.end(), outs.begin(), outs.end());
  }

  Result<const Value*> method_value(int32_t ev, const std::string& where) const {
    if (ev < 0 || static_cast<size_t>(ev) >= run_.values->values.size())
      return Status(ErrorCode::kInvalidProgram, where + ": value " + std::to_string(ev) + " out of range");
    return &run_.values->values[static_cast<size_t>(ev)];
  }

  static Result<ValueDecl> tensor_decl(const Value& v, const std::string& where) {
    ValueDecl d;
    d.kind = ValueKind::kTensor;
    WICK_ASSIGN_OR_RETURN(d.tensor.dtype, vk_dtype(v.tensor.dtype, where));
    d.tensor.dims = v.tensor.max_sizes;
    return d;
  }

  // An operator input as a plan value: a tensor an earlier part wrote, else a new graph
  // input; scalars and lists as constants of the plan.
  Result<int32_t> input_arg(int32_t ev, const std::string& where) {
    WICK_ASSIGN_OR_RETURN(const Value* v, method_value(ev, where));
    if (v->is_tensor()) {
      auto it = of_value_.find(ev);
      if (it != of_value_.end()) return it->second;
      WICK_ASSIGN_OR_RETURN(ValueDecl d, tensor_decl(*v, where));
      const int32_t pid = push(std::move(d));
      add_input(ev, pid);
      return pid;
    }
    ValueDecl d;
    switch (v->tag) {
      case ValueTag::kNone: d.kind = ValueKind::kNone; break;
      case ValueTag::kInt: d.kind = ValueKind::kInt; d.i = v->i; break;
      case ValueTag::kBool: d.kind = ValueKind::kBool; d.i = v->b ? 1 : 0; break;
      case ValueTag::kDouble: d.kind = ValueKind::kDouble; d.d = v->d; break;
      case ValueTag::kListBool:
        d.kind = ValueKind::kBoolList;
        for (uint8_t b : v->bools) d.ints.push_back(b ? 1 : 0);
        break;
      case ValueTag::kListDouble: d.kind = ValueKind::kDoubleList; d.doubles = v->doubles; break;
      case ValueTag::kListInt: {
        d.kind = ValueKind::kIntList;
        // Items are Int values, read now: a list an earlier op computes at run time is
        // refused (the plan would freeze it).
        for (int32_t item : v->items) {
          WICK_ASSIGN_OR_RETURN(const Value* x, method_value(item, where));
          if (x->tag != ValueTag::kInt) return Status(ErrorCode::kNotSupported, where + ": an int list of non-ints");
          d.ints.push_back(x->i);
        }
        break;
      }
      default:
        return Status(ErrorCode::kNotSupported, where + " is a " + value_tag_name(v->tag));
    }
    return push(std::move(d));
  }

  int32_t push(ValueDecl d) {
    out_.plan.values.push_back(std::move(d));
    return next_id_++;
  }
  void add_input(int32_t ev, int32_t pid) {
    of_value_[ev] = pid;
    out_.plan.input_ids.push_back(pid);
    out_.args.push_back(ev);  // inputs come first: finish() appends the outputs
  }
  void write(int32_t ev, int32_t pid) {
    of_value_[ev] = pid;  // a later read sees the latest write
    written_.push_back(ev);
  }

  const FusedRun& run_;
  MergedPlan out_;
  std::unordered_map<int32_t, int32_t> of_value_;  // method value -> merged plan value
  std::vector<int32_t> written_;                   // method values the run writes, in order
  int32_t next_id_ = 0;
  int mem_base_ = 0;
};

}  // namespace

std::optional<std::string_view> vk_op_of_host_op(std::string_view host_op) {
  const HostOp* h = find_host_op(host_op);
  if (h == nullptr) return std::nullopt;
  return h->vk;
}

Result<MergedPlan> merge_plans(const FusedRun& run, const std::vector<Plan>& plans) {
  if (run.values == nullptr || run.read_after.size() != run.values->values.size())
    return Status(ErrorCode::kInvalidArgument, "merge_plans: the run has no value table");
  Merger merger(run);
  for (size_t p = 0; p < run.parts.size(); ++p) {
    const FusedRunPart& part = run.parts[p];
    const std::string where = "fused run part " + std::to_string(p);
    if (part.delegate >= 0) {
      if (static_cast<size_t>(part.delegate) >= plans.size())
        return Status(ErrorCode::kInvalidArgument, where + ": delegate " + std::to_string(part.delegate) + " has no plan");
      WICK_RETURN_IF_ERROR(merger.add_delegate(plans[static_cast<size_t>(part.delegate)], part.args, where));
    } else {
      WICK_RETURN_IF_ERROR(merger.add_operator(part.op, part.args, where + " (" + part.op + ")"));
    }
  }
  return merger.finish();
}

}  // namespace wick::vkgraph
