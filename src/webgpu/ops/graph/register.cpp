// Graph plumbing that needs no kernel: prepack, and the SymInt operators whose values
// are known on the host (tensor sizes, input scalars, integer arithmetic).
#include "webgpu/graph.h"
#include "webgpu/ops/families.h"

namespace wick::webgpu {

namespace {

// et_vk.prepack(x) -> out: stages a constant for an op that does not read constants
// directly. Constants are immutable here, so the output simply shares the buffer.
Status prepack(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "et_vk.prepack.default";
  if (args.size() != 2) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected 2 arguments");
  WICK_ASSIGN_OR_RETURN(GpuTensor * in, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args[1], name));
  if (in->max_numel() != out->max_numel() || in->elem != out->elem)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": input and output differ in size or type");
  out->buffer = in->buffer;
  out->dims = in->dims;
  return {};
}

Status symint_out(Graph& g, int32_t id, const char* name, GValue** out) {
  WICK_ASSIGN_OR_RETURN(*out, g.value(id));
  if ((*out)->kind != GValue::kSymInt && (*out)->kind != GValue::kInt)
    return Status(ErrorCode::kInvalidProgram, std::string(name) + ": output is not a SymInt");
  return {};
}

// sym_size.int(t, dim) -> SymInt: the tensor's current size along dim.
Status sym_size(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "sym_size.int";
  if (args.size() != 3) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected 3 arguments");
  WICK_ASSIGN_OR_RETURN(GpuTensor * t, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(int64_t dim, g.int_arg(args[1], name));
  GValue* out;
  WICK_RETURN_IF_ERROR(symint_out(g, args[2], name, &out));
  dim = normalize_dim(dim, t->rank());
  if (dim < 0 || dim >= t->rank()) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": dim out of range");
  return g.add_step([=]() -> Status {
    out->i = t->dims[static_cast<size_t>(dim)];
    return {};
  });
}

// Python integer arithmetic on SymInts (add, sub, mul, floordiv).
template <int kOp>
Status sym_arith(Graph& g, const std::vector<int32_t>& args) {
  const char* name = kOp == 0 ? "add" : kOp == 1 ? "sub" : kOp == 2 ? "mul" : "floordiv";
  if (args.size() != 3) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": expected 3 arguments");
  GValue* out;
  WICK_RETURN_IF_ERROR(symint_out(g, args[2], name, &out));
  int32_t a = args[0], b = args[1];
  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(int64_t x, g.int_arg(a, name));
    WICK_ASSIGN_OR_RETURN(int64_t y, g.int_arg(b, name));
    if (kOp == 3 && y == 0) return Status(ErrorCode::kInvalidArgument, "floordiv: division by zero");
    int64_t r = kOp == 0 ? x + y : kOp == 1 ? x - y : kOp == 2 ? x * y : (x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
    out->i = r;
    return {};
  });
}

}  // namespace

void append_graph_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"et_vk.prepack.default", prepack},
      {"sym_size.int", sym_size},
      {"add", sym_arith<0>},
      {"sub", sym_arith<1>},
      {"mul", sym_arith<2>},
      {"floordiv", sym_arith<3>},
  });
}

}  // namespace wick::webgpu
