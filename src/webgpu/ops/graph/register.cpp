// Graph plumbing that needs no kernel: prepack, and the SymInt operators whose values
// are known on the host (tensor sizes, input scalars, integer arithmetic).
#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"

namespace wick::webgpu {

namespace {

// et_vk.prepack(x) -> out: stages a constant for an op that does not read constants
// directly. Constants are immutable here, so the output simply shares the buffer.
Status prepack(Graph&, const OpArgs& a) {
  GpuTensor *in = a.tensor(0), *out = a.out();
  if (in->max_numel() != out->max_numel() || in->elem != out->elem)
    return a.invalid("input and output differ in size or type");
  out->buffer = in->buffer;
  out->dims = in->dims;
  return {};
}

// sym_size.int(t, dim) -> SymInt: the tensor's current size along dim.
Status sym_size(Graph& g, const OpArgs& a) {
  GpuTensor* t = a.tensor(0);
  WICK_ASSIGN_OR_RETURN(GValue * out, a.symint_out());
  const int64_t dim = normalize_dim(a.integer(1), t->rank());
  if (dim < 0 || dim >= t->rank()) return a.invalid("dim out of range");
  return g.add_step([=]() -> Status {
    out->i = t->dims[static_cast<size_t>(dim)];
    return {};
  });
}

enum class SymOp : uint32_t { kAdd, kSub, kMul, kFloorDiv };

// Python integer arithmetic on SymInts; the operands are read at each execution.
Status sym_arith(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const SymOp op = a.variant_as<SymOp>();
  WICK_ASSIGN_OR_RETURN(GValue * out, a.symint_out());
  const int32_t lhs = a.id(0), rhs = a.id(1);
  return g.add_step([=, &g]() -> Status {
    WICK_ASSIGN_OR_RETURN(int64_t x, g.int_arg(lhs, name));
    WICK_ASSIGN_OR_RETURN(int64_t y, g.int_arg(rhs, name));
    switch (op) {
      case SymOp::kAdd: out->i = x + y; break;
      case SymOp::kSub: out->i = x - y; break;
      case SymOp::kMul: out->i = x * y; break;
      case SymOp::kFloorDiv:
        if (y == 0) return op_error(ErrorCode::kInvalidArgument, name, "division by zero");
        out->i = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
        break;
    }
    return {};
  });
}

}  // namespace

void append_graph_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"et_vk.prepack.default", "T -> T", prepack},
      {"sym_size.int", "T I -> *", sym_size},
      {"add", "I I -> *", sym_arith, SymOp::kAdd},
      {"sub", "I I -> *", sym_arith, SymOp::kSub},
      {"mul", "I I -> *", sym_arith, SymOp::kMul},
      {"floordiv", "I I -> *", sym_arith, SymOp::kFloorDiv},
  });
}

}  // namespace wick::webgpu
