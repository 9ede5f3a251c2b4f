#include "vkcpu/op_table.h"

#include <algorithm>
#include <cstring>

#include "core/view_shape.h"
#include "kernels/cpu/kernel.h"
#include "kernels/cpu/kernel_util.h"
#include "vkcpu/cpu_graph.h"

namespace wick::vkcpu {

namespace {

using vkgraph::OpCall;
using vkgraph::ValueKind;

Status expect_args(const OpCall& call, size_t n) {
  if (call.args.size() != n)
    return Status(ErrorCode::kInvalidProgram, call.name + ": expected " + std::to_string(n) + " arguments, got " +
                                                  std::to_string(call.args.size()));
  return {};
}

Result<cpu::KernelFn> kernel_of(const OpEntry& e) {
  cpu::KernelFn fn = cpu::find_kernel(e.kernel);
  if (fn == nullptr) return Status(ErrorCode::kInternal, std::string("CPU kernel '") + e.kernel + "' is missing");
  return fn;
}

// The VK00 arguments the kernel takes (all schema arguments unless the entry picks some).
Result<std::vector<int32_t>> schema_args(const OpCall& call, const OpEntry& e) {
  if (call.args.empty()) return Status(ErrorCode::kInvalidProgram, call.name + ": no output argument");
  std::vector<int32_t> out;
  if (e.picks.empty()) return std::vector<int32_t>(call.args.begin(), call.args.end() - 1);
  for (int p : e.picks) {
    if (p < 0 || static_cast<size_t>(p) + 1 >= call.args.size())
      return Status(ErrorCode::kInvalidProgram, call.name + ": " + std::to_string(call.args.size()) + " arguments");
    out.push_back(call.args[static_cast<size_t>(p)]);
  }
  return out;
}

// An output that shares memory with one of the op's inputs (the exporter's plan lets a
// GPU view alias its source) gets memory of its own, since the kernels do not work in place.
Status separate_outputs(CpuGraph& g, const std::vector<int32_t>& ins, const std::vector<int32_t>& outs) {
  for (int32_t o : outs) {
    if (!g.values().values[static_cast<size_t>(o)].is_tensor()) continue;
    for (int32_t i : ins) {
      std::vector<int32_t> leaves = {i};
      if (static_cast<size_t>(i) < g.num_plan_values() && g.decl(i).kind == ValueKind::kValueList) leaves = g.decl(i).items;
      for (int32_t l : leaves)
        if (l != o && g.same_storage(l, o)) WICK_RETURN_IF_ERROR(g.unshare(o));
    }
  }
  return {};
}

// Kernel(schema args..., out, out): the out-variant convention for one returned tensor.
Status out_form(CpuGraph& g, const OpCall& call, const OpEntry& e) {
  WICK_ASSIGN_OR_RETURN(cpu::KernelFn fn, kernel_of(e));
  WICK_ASSIGN_OR_RETURN(std::vector<int32_t> args, schema_args(call, e));
  const int32_t out = call.args.back();
  WICK_RETURN_IF_ERROR(g.tensor(out, call.name.c_str()).status());
  WICK_RETURN_IF_ERROR(separate_outputs(g, args, {out}));
  args.push_back(out);
  args.push_back(out);
  g.add_step(Step{call.name, fn, std::move(args), nullptr});
  return {};
}

// Kernel(schema args..., out0, out1, ..., out0): several returned tensors (a ValueList).
Status tuple_form(CpuGraph& g, const OpCall& call, const OpEntry& e) {
  WICK_ASSIGN_OR_RETURN(cpu::KernelFn fn, kernel_of(e));
  WICK_ASSIGN_OR_RETURN(std::vector<int32_t> args, schema_args(call, e));
  WICK_ASSIGN_OR_RETURN(std::vector<int32_t> outs, g.list_items(call.args.back(), call.name.c_str()));
  if (outs.empty()) return Status(ErrorCode::kInvalidProgram, call.name + ": no outputs");
  WICK_RETURN_IF_ERROR(separate_outputs(g, args, outs));
  args.insert(args.end(), outs.begin(), outs.end());
  args.push_back(outs[0]);
  g.add_step(Step{call.name, fn, std::move(args), nullptr});
  return {};
}

// Kernel(args as they are): the output list is a schema argument (split_with_sizes_copy).
Status list_form(CpuGraph& g, const OpCall& call, const OpEntry& e) {
  WICK_ASSIGN_OR_RETURN(cpu::KernelFn fn, kernel_of(e));
  WICK_ASSIGN_OR_RETURN(std::vector<int32_t> outs, g.list_items(call.args.back(), call.name.c_str()));
  WICK_RETURN_IF_ERROR(separate_outputs(g, std::vector<int32_t>(call.args.begin(), call.args.end() - 1), outs));
  g.add_step(Step{call.name, fn, call.args, nullptr});
  return {};
}

// Operators that write into a cache argument: the cache gets a private, persistent copy.
Status cache_form(CpuGraph& g, const OpCall& call, const OpEntry& e, std::initializer_list<size_t> caches) {
  for (size_t c : caches) {
    if (c >= call.args.size()) return Status(ErrorCode::kInvalidProgram, call.name + ": too few arguments");
    WICK_RETURN_IF_ERROR(g.make_writable(call.args[c], call.name.c_str()));
  }
  return out_form(g, call, e);
}
Status sdpa_form(CpuGraph& g, const OpCall& call, const OpEntry& e) { return cache_form(g, call, e, {3, 4}); }
Status update_cache_form(CpuGraph& g, const OpCall& call, const OpEntry& e) { return cache_form(g, call, e, {1}); }

// et_vk.adamw_step writes param, m and v (arguments 0-2) in place: they get private copies
// when they are constants, and the returned tuple gets the results (tuple_form).
Status adamw_form(CpuGraph& g, const OpCall& call, const OpEntry& e) {
  WICK_RETURN_IF_ERROR(expect_args(call, 12));
  for (size_t i = 0; i < 3; ++i) WICK_RETURN_IF_ERROR(g.make_writable(call.args[i], call.name.c_str()));
  return tuple_form(g, call, e);
}

// et_vk.prepack(constant) -> tensor: the output is the constant itself.
Status prepack(CpuGraph& g, const OpCall& call, const OpEntry&) {
  WICK_RETURN_IF_ERROR(expect_args(call, 2));
  WICK_ASSIGN_OR_RETURN(Tensor * src, g.tensor(call.args[0], call.name.c_str()));
  WICK_ASSIGN_OR_RETURN(Tensor * out, g.tensor(call.args[1], call.name.c_str()));
  if (src->numel() != out->numel())
    return Status(ErrorCode::kInvalidProgram, call.name + ": output " + out->shape_string() + " differs from the constant " +
                                                  src->shape_string());
  const std::vector<int64_t> sizes = out->sizes;
  *out = *src;
  out->sizes = sizes;
  out->max_sizes = sizes;
  return {};
}

// A flat copy of `in` into `out` with `shape` (the same element count).
Status flat_copy(CpuGraph& g, const std::string& name, int32_t in_id, int32_t out_id, const std::vector<int64_t>& shape) {
  WICK_ASSIGN_OR_RETURN(Tensor * in, g.tensor(in_id, name.c_str()));
  WICK_ASSIGN_OR_RETURN(Tensor * out, g.tensor(out_id, name.c_str()));
  if (in->dtype != out->dtype)
    return Status(ErrorCode::kInvalidProgram, name + ": input and output dtypes differ");
  if (shape_numel(shape) != in->numel())
    return Status(ErrorCode::kInvalidArgument, name + ": " + in->shape_string() + " cannot be viewed as " +
                                                   shape_to_string(shape));
  WICK_RETURN_IF_ERROR(out->resize(shape).with_context(name));
  if (in->data != out->data && in->nbytes() > 0) std::memmove(out->data, in->data, in->nbytes());
  return {};
}

Status view_copy(CpuGraph& g, const OpCall& call, const OpEntry&) {
  WICK_RETURN_IF_ERROR(expect_args(call, 3));
  const int32_t in = call.args[0], size = call.args[1], out = call.args[2];
  g.add_step(Step{call.name, nullptr, {}, [=, name = call.name](CpuGraph& g) -> Status {
                    WICK_ASSIGN_OR_RETURN(Tensor * x, g.tensor(in, name.c_str()));
                    WICK_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, g.values().int_list(size));
                    WICK_ASSIGN_OR_RETURN(sizes, resolve_view_shape(name, sizes, x->numel()));
                    return flat_copy(g, name, in, out, sizes);
                  }});
  return {};
}

// squeeze_copy.dims: removes the listed dims (all when the list is empty) that are 1 in
// the input's serialized shape, the exporter's decision; when the live shape no longer
// fits the output's rank that way, the listed dims that are 1 now.
Status squeeze_dims(CpuGraph& g, const OpCall& call, const OpEntry&) {
  WICK_RETURN_IF_ERROR(expect_args(call, 3));
  const int32_t in = call.args[0], dims_id = call.args[1], out = call.args[2];
  WICK_RETURN_IF_ERROR(g.tensor(in, call.name.c_str()).status());
  WICK_RETURN_IF_ERROR(g.tensor(out, call.name.c_str()).status());
  const std::vector<int64_t> serialized = g.decl(in).tensor.dims;
  const size_t out_rank = g.decl(out).tensor.dims.size();
  g.add_step(Step{call.name, nullptr, {}, [=, name = call.name](CpuGraph& g) -> Status {
                    WICK_ASSIGN_OR_RETURN(Tensor * x, g.tensor(in, name.c_str()));
                    WICK_ASSIGN_OR_RETURN(std::vector<int64_t> listed, g.values().int_list(dims_id));
                    const int64_t rank = x->dim();
                    std::vector<bool> candidate(static_cast<size_t>(rank), listed.empty());
                    for (int64_t d : listed) {
                      const int64_t nd = d < 0 ? d + rank : d;
                      if (nd < 0 || nd >= rank)
                        return Status(ErrorCode::kInvalidArgument, name + ": dim " + std::to_string(d) + " out of range");
                      candidate[static_cast<size_t>(nd)] = true;
                    }
                    auto squeezed = [&](const std::vector<int64_t>& ones) {
                      std::vector<int64_t> shape;
                      for (int64_t d = 0; d < rank; ++d)
                        if (!(candidate[static_cast<size_t>(d)] && ones[static_cast<size_t>(d)] == 1))
                          shape.push_back(x->sizes[static_cast<size_t>(d)]);
                      return shape;
                    };
                    std::vector<int64_t> shape = squeezed(serialized);
                    if (shape.size() != out_rank) shape = squeezed(x->sizes);
                    return flat_copy(g, name, in, out, shape);
                  }});
  return {};
}

// et_vk.select_as_symint(x, dim, index) -> SymInt: the element x[..., index, ...] (index
// along dim, 0 elsewhere).
Status select_as_symint(CpuGraph& g, const OpCall& call, const OpEntry&) {
  WICK_RETURN_IF_ERROR(expect_args(call, 4));
  const int32_t x_id = call.args[0], dim_id = call.args[1], index_id = call.args[2], out = call.args[3];
  WICK_RETURN_IF_ERROR(g.tensor(x_id, call.name.c_str()).status());
  if (g.values().values[static_cast<size_t>(out)].tag != ValueTag::kInt)
    return Status(ErrorCode::kInvalidProgram, call.name + ": output is not a SymInt");
  g.add_step(Step{call.name, nullptr, {}, [=, name = call.name](CpuGraph& g) -> Status {
                    WICK_ASSIGN_OR_RETURN(Tensor * x, g.tensor(x_id, name.c_str()));
                    WICK_ASSIGN_OR_RETURN(int64_t dim, g.values().int_value(dim_id));
                    WICK_ASSIGN_OR_RETURN(int64_t index, g.values().int_value(index_id));
                    const int64_t rank = x->dim();
                    if (dim < 0) dim += rank;
                    if (dim < 0 || dim >= rank) return Status(ErrorCode::kInvalidProgram, name + ": dim out of range");
                    const int64_t size = x->sizes[static_cast<size_t>(dim)];
                    if (index < 0) index += size;
                    if (index < 0 || index >= size)
                      return Status(ErrorCode::kInvalidArgument, name + ": index out of range for " + x->shape_string());
                    const int64_t flat = index * x->strides()[static_cast<size_t>(dim)];
                    int64_t v = 0;
                    cpu::convert_elements(static_cast<const uint8_t*>(x->data) + flat * element_size(x->dtype), x->dtype,
                                          &v, ScalarType::kLong, 1);
                    g.values().values[static_cast<size_t>(out)] = Value::make_int(v);
                    return {};
                  }});
  return {};
}

// sym_size.int(t, dim) -> SymInt: t's live size along dim.
Status sym_size(CpuGraph& g, const OpCall& call, const OpEntry&) {
  WICK_RETURN_IF_ERROR(expect_args(call, 3));
  const int32_t t_id = call.args[0], dim_id = call.args[1], out = call.args[2];
  if (g.values().values[static_cast<size_t>(out)].tag != ValueTag::kInt) return {};  // folded by the exporter
  g.add_step(Step{call.name, nullptr, {}, [=, name = call.name](CpuGraph& g) -> Status {
                    WICK_ASSIGN_OR_RETURN(Tensor * t, g.tensor(t_id, name.c_str()));
                    WICK_ASSIGN_OR_RETURN(int64_t dim, g.values().int_value(dim_id));
                    if (dim < 0) dim += t->dim();
                    if (dim < 0 || dim >= t->dim()) return Status(ErrorCode::kInvalidProgram, name + ": dim out of range");
                    g.values().values[static_cast<size_t>(out)] = Value::make_int(t->sizes[static_cast<size_t>(dim)]);
                    return {};
                  }});
  return {};
}

// Python operators on SymInts: add, sub, mul, floordiv (rounding toward -inf).
Status sym_arith(CpuGraph& g, const OpCall& call, const OpEntry&) {
  WICK_RETURN_IF_ERROR(expect_args(call, 3));
  const int32_t a_id = call.args[0], b_id = call.args[1], out = call.args[2];
  const char op = call.name == "add" ? '+' : call.name == "sub" ? '-' : call.name == "mul" ? '*' : '/';
  g.add_step(Step{call.name, nullptr, {}, [=, name = call.name](CpuGraph& g) -> Status {
                    WICK_ASSIGN_OR_RETURN(int64_t a, g.values().int_value(a_id));
                    WICK_ASSIGN_OR_RETURN(int64_t b, g.values().int_value(b_id));
                    int64_t r = 0;
                    bool overflow = false;
                    if (op == '+') overflow = __builtin_add_overflow(a, b, &r);
                    else if (op == '-') overflow = __builtin_sub_overflow(a, b, &r);
                    else if (op == '*') overflow = __builtin_mul_overflow(a, b, &r);
                    else {
                      if (b == 0 || (a == INT64_MIN && b == -1))
                        return Status(ErrorCode::kInvalidArgument, name + ": " + std::to_string(a) + " // " + std::to_string(b));
                      r = a / b;
                      if ((a % b != 0) && ((a < 0) != (b < 0))) --r;
                    }
                    if (overflow)
                      return Status(ErrorCode::kInvalidArgument, name + ": " + std::to_string(a) + " " + op + " " +
                                                                     std::to_string(b) + " overflows int64");
                    g.values().values[static_cast<size_t>(out)] = Value::make_int(r);
                    return {};
                  }});
  return {};
}

}  // namespace

const std::vector<OpEntry>& all_ops() {
  static const std::vector<OpEntry> ops = {
      // graph infrastructure and SymInts
      {"et_vk.prepack.default", prepack, "", {}},
      {"et_vk.select_as_symint.default", select_as_symint, "", {}},
      {"sym_size.int", sym_size, "", {}},
      {"add", sym_arith, "", {}},
      {"sub", sym_arith, "", {}},
      {"mul", sym_arith, "", {}},
      {"floordiv", sym_arith, "", {}},
      // views and copies
      {"aten.view_copy.default", view_copy, "", {}},
      {"aten.squeeze_copy.dims", squeeze_dims, "", {}},
      {"aten.clone.default", out_form, "aten::clone.out", {}},
      {"aten.alias_copy.default", out_form, "aten::alias_copy.out", {}},
      {"aten.unsqueeze_copy.default", out_form, "aten::unsqueeze_copy.out", {}},
      {"aten._to_copy.default", out_form, "aten::_to_copy.out", {0, 5, 6}},
      {"dim_order_ops._to_dim_order_copy.default", out_form, "dim_order_ops::_to_dim_order_copy.out", {0, 5, 6}},
      {"dim_order_ops._clone_dim_order.default", out_form, "dim_order_ops::_clone_dim_order.out", {}},
      {"aten.permute.default", out_form, "aten::permute_copy.out", {}},
      {"aten.permute_copy.default", out_form, "aten::permute_copy.out", {}},
      {"aten.expand_copy.default", out_form, "aten::expand_copy.out", {}},
      {"aten.select_copy.int", out_form, "aten::select_copy.int_out", {}},
      {"aten.slice_copy.Tensor", out_form, "aten::slice_copy.Tensor_out", {}},
      {"aten.cat.default", out_form, "aten::cat.out", {}},
      {"aten.split_with_sizes_copy.default", list_form, "aten::split_with_sizes_copy.out", {}},
      {"aten.repeat.default", out_form, "aten::repeat.out", {}},
      {"aten.flip.default", out_form, "aten::flip.out", {}},
      {"aten.constant_pad_nd.default", out_form, "aten::constant_pad_nd.out", {}},
      {"aten.pixel_shuffle.default", out_form, "aten::pixel_shuffle.out", {}},
      // creation
      {"aten.full.default", out_form, "aten::full.out", {0, 1}},
      {"aten.full_like.default", out_form, "aten::full_like.out", {0, 1, 6}},
      {"aten.arange.start_step", out_form, "aten::arange.start_out", {0, 1, 2}},
      {"aten.scalar_tensor.default", out_form, "aten::scalar_tensor.out", {0}},
      // elementwise binary
      {"aten.add.Tensor", out_form, "aten::add.out", {}},
      {"aten.sub.Tensor", out_form, "aten::sub.out", {}},
      {"aten.mul.Tensor", out_form, "aten::mul.out", {}},
      {"aten.div.Tensor", out_form, "aten::div.out", {}},
      {"aten.div.Tensor_mode", out_form, "aten::div.out_mode", {}},
      {"aten.pow.Tensor_Tensor", out_form, "aten::pow.Tensor_Tensor_out", {}},
      {"aten.pow.Tensor_Scalar", out_form, "aten::pow.Tensor_Scalar_out", {}},
      {"aten.minimum.default", out_form, "aten::minimum.out", {}},
      {"aten.where.self", out_form, "aten::where.self_out", {}},
      // comparisons and logic
      {"aten.eq.Tensor", out_form, "aten::eq.Tensor_out", {}},
      {"aten.ge.Tensor", out_form, "aten::ge.Tensor_out", {}},
      {"aten.gt.Tensor", out_form, "aten::gt.Tensor_out", {}},
      {"aten.le.Tensor", out_form, "aten::le.Tensor_out", {}},
      {"aten.lt.Tensor", out_form, "aten::lt.Tensor_out", {}},
      {"aten.eq.Scalar", out_form, "aten::eq.Scalar_out", {}},
      {"aten.ne.Scalar", out_form, "aten::ne.Scalar_out", {}},
      {"aten.ge.Scalar", out_form, "aten::ge.Scalar_out", {}},
      {"aten.gt.Scalar", out_form, "aten::gt.Scalar_out", {}},
      {"aten.le.Scalar", out_form, "aten::le.Scalar_out", {}},
      {"aten.lt.Scalar", out_form, "aten::lt.Scalar_out", {}},
      {"aten.logical_and.default", out_form, "aten::logical_and.out", {}},
      {"aten.logical_or.default", out_form, "aten::logical_or.out", {}},
      {"aten.logical_not.default", out_form, "aten::logical_not.out", {}},
      {"aten.bitwise_and.Tensor", out_form, "aten::bitwise_and.Tensor_out", {}},
      {"aten.bitwise_or.Tensor", out_form, "aten::bitwise_or.Tensor_out", {}},
      {"aten.bitwise_not.default", out_form, "aten::bitwise_not.out", {}},
      // elementwise unary
      {"aten.abs.default", out_form, "aten::abs.out", {}},
      {"aten.cos.default", out_form, "aten::cos.out", {}},
      {"aten.sin.default", out_form, "aten::sin.out", {}},
      {"aten.exp.default", out_form, "aten::exp.out", {}},
      {"aten.log.default", out_form, "aten::log.out", {}},
      {"aten.neg.default", out_form, "aten::neg.out", {}},
      {"aten.round.default", out_form, "aten::round.out", {}},
      {"aten.rsqrt.default", out_form, "aten::rsqrt.out", {}},
      {"aten.sqrt.default", out_form, "aten::sqrt.out", {}},
      {"aten.tanh.default", out_form, "aten::tanh.out", {}},
      {"aten.sigmoid.default", out_form, "aten::sigmoid.out", {}},
      {"aten.relu.default", out_form, "aten::relu.out", {}},
      {"aten.hardswish.default", out_form, "aten::hardswish.out", {}},
      {"aten.gelu.default", out_form, "aten::gelu.out", {}},
      {"aten.leaky_relu.default", out_form, "aten::leaky_relu.out", {}},
      {"aten.clamp.default", out_form, "aten::clamp.out", {}},
      {"aten.hardtanh.default", out_form, "aten::hardtanh.out", {}},
      // reductions and normalization
      {"aten.amax.default", out_form, "aten::amax.out", {}},
      {"aten.amin.default", out_form, "aten::amin.out", {}},
      {"aten.argmax.default", out_form, "aten::argmax.out", {}},
      {"aten.max.dim", tuple_form, "aten::max.dim_max", {}},
      {"aten.topk.default", tuple_form, "aten::topk.values", {}},
      {"aten.argmin.default", out_form, "aten::argmin.out", {}},
      {"aten.sum.dim_IntList", out_form, "aten::sum.IntList_out", {}},
      {"aten.mean.dim", out_form, "aten::mean.out", {}},
      {"aten._softmax.default", out_form, "aten::_softmax.out", {}},
      {"aten._log_softmax.default", out_form, "aten::_log_softmax.out", {}},
      {"aten.native_layer_norm.default", tuple_form, "aten::native_layer_norm.out", {}},
      {"aten.native_group_norm.default", tuple_form, "aten::native_group_norm.out", {}},
      {"aten._native_batch_norm_legit.no_stats", tuple_form, "aten::_native_batch_norm_legit.no_stats_out", {}},
      {"aten._native_batch_norm_legit_no_training.default", tuple_form,
       "aten::_native_batch_norm_legit_no_training.out", {}},
      {"et_vk.rms_norm.default", out_form, "et_vk::rms_norm.out", {}},
      // matrix products and convolution
      {"aten.mm.default", out_form, "aten::mm.out", {}},
      {"aten.bmm.default", out_form, "aten::bmm.out", {}},
      {"aten.addmm.default", out_form, "aten::addmm.out", {}},
      {"aten.linear.default", out_form, "aten::linear.out", {}},
      {"aten.convolution.default", out_form, "aten::convolution.out", {}},
      {"et_vk.conv_with_clamp.default", out_form, "et_vk::conv_with_clamp.out", {}},
      {"et_vk.linear_q4gsw.default", out_form, "et_vk::linear_q4gsw.out", {}},
      {"et_vk.linear_qcs4w.default", out_form, "et_vk::linear_qcs4w.out", {}},
      {"et_vk.q4gsw_requant.default", out_form, "et_vk::q4gsw_requant.out", {}},
      {"et_vk.linear_dq8ca_q4gsw.default", out_form, "et_vk::linear_dq8ca_q4gsw.out", {}},
      {"et_vk.embedding_q4gsw.default", out_form, "et_vk::embedding_q4gsw.out", {}},
      {"torchao.choose_qparams_affine.default", tuple_form, "torchao::choose_qparams_affine.out", {}},
      {"et_vk.linear_q8ta_q8csw.default", out_form, "et_vk::linear_q8ta_q8csw.out", {}},
      {"et_vk.q8ta_linear.default", out_form, "et_vk::q8ta_linear.out", {}},
      {"et_vk.q8ta_linear_gemv.default", out_form, "et_vk::q8ta_linear_gemv.out", {}},
      {"et_vk.q8ta_conv2d.default", out_form, "et_vk::q8ta_conv2d.out", {}},
      {"et_vk.q8ta_conv2d_pw.default", out_form, "et_vk::q8ta_conv2d_pw.out", {}},
      {"et_vk.q8ta_conv2d_dw.default", out_form, "et_vk::q8ta_conv2d_dw.out", {}},
      {"et_vk.q8ta_conv2d_transposed.default", out_form, "et_vk::q8ta_conv2d_transposed.out", {}},
      {"et_vk.q8ta_add.default", out_form, "et_vk::q8ta_add.out", {}},
      {"et_vk.q8ta_relu.default", out_form, "et_vk::q8ta_relu.out", {}},
      {"et_vk.q8ta_pixel_shuffle.default", out_form, "et_vk::q8ta_pixel_shuffle.out", {}},
      {"quantized_decomposed.quantize_per_tensor.default", out_form, "quantized_decomposed::quantize_per_tensor.out", {}},
      {"quantized_decomposed.dequantize_per_tensor.default", out_form, "quantized_decomposed::dequantize_per_tensor.out", {}},
      // pooling and resampling
      {"aten.avg_pool2d.default", out_form, "aten::avg_pool2d.out", {}},
      {"aten.max_pool2d_with_indices.default", tuple_form, "aten::max_pool2d_with_indices.out", {}},
      {"aten.upsample_nearest2d.vec", out_form, "aten::upsample_nearest2d.vec_out", {}},
      {"aten.upsample_bilinear2d.vec", out_form, "aten::upsample_bilinear2d.vec_out", {}},
      {"aten.grid_sampler_2d.default", out_form, "aten::grid_sampler_2d.out", {}},
      // indexing
      {"aten.embedding.default", out_form, "aten::embedding.out", {}},
      {"aten.index.Tensor", out_form, "aten::index.Tensor_out", {}},
      {"aten.index_select.default", out_form, "aten::index_select.out", {}},
      {"aten.gather.default", out_form, "aten::gather.out", {}},
      // attention
      {"et_vk.apply_rotary_emb.default", tuple_form, "et_vk::apply_rotary_emb.out", {}},
      {"et_vk.apply_rotary_emb_hf.default", tuple_form, "et_vk::apply_rotary_emb_hf.out", {}},
      {"et_vk.apply_rotary_emb_interleaved.default", out_form, "et_vk::apply_rotary_emb_interleaved.out", {}},
      {"et_vk.sdpa.default", out_form, "et_vk::sdpa.out", {}},
      {"et_vk.grid_priors.default", out_form, "et_vk::grid_priors.out", {}},
      {"sdpa_with_kv_cache.default", sdpa_form, "llama::sdpa_with_kv_cache.out", {}},
      {"update_cache.default", update_cache_form, "llama::update_cache.out", {}},
      // on-device training
      {"et_vk.adamw_step.default", adamw_form, "et_vk::adamw_step.out", {}},
      {"et_vk.fused_ce.default", tuple_form, "et_vk::fused_ce.out", {}},
      {"et_vk.linear_dW.default", out_form, "et_vk::linear_dW.out", {}},
      {"et_vk.linear_q4gsw_backward.default", out_form, "et_vk::linear_q4gsw_backward.out", {}},
  };
  return ops;
}

const OpEntry* find_op(std::string_view name) {
  for (const OpEntry& e : all_ops())
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace wick::vkcpu
