#include "webgpu/graph.h"
#include "webgpu/ops/elementwise/binary.h"
#include "webgpu/ops/elementwise/unary.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"

namespace wick::webgpu {

namespace {

// div.Tensor_mode: [self, other, rounding_mode ("trunc" / "floor", or None), out].
Status div_tensor_mode(Graph& g, const OpArgs& a) {
  BinaryOp op = BinaryOp::kDiv;
  if (a.has(2)) {
    const std::string& mode = a.str(2);
    if (mode == "trunc") op = BinaryOp::kTruncDiv;
    else if (mode == "floor") op = BinaryOp::kFloorDiv;
    else return a.unsupported("rounding_mode \"" + mode + "\"");
  }
  return add_binary(g, a.name(), op, a.tensor(0), a.tensor(1), 0.0, 1.0, a.out());
}

}  // namespace

void append_elementwise_ops(std::vector<OpEntry>& ops) {
  // other: T a tensor, F a Scalar; alpha, where present, scales it.
  ops.insert(ops.end(), {
      {"aten.add.Tensor", "T T F -> T", build_binary, BinaryOp::kAdd},
      {"aten.sub.Tensor", "T T F -> T", build_binary, BinaryOp::kSub},
      {"aten.mul.Tensor", "T T -> T", build_binary, BinaryOp::kMul},
      {"aten.mul.Scalar", "T F -> T", build_binary, BinaryOp::kMul},
      {"aten.div.Tensor", "T T -> T", build_binary, BinaryOp::kDiv},
      {"aten.pow.Tensor_Tensor", "T T -> T", build_binary, BinaryOp::kPow},
      {"aten.minimum.default", "T T -> T", build_binary, BinaryOp::kMin},
      {"aten.maximum.default", "T T -> T", build_binary, BinaryOp::kMax},
      {"aten.eq.Tensor", "T T -> T", build_binary, BinaryOp::kEq},
      {"aten.eq.Scalar", "T F -> T", build_binary, BinaryOp::kEq},
      {"aten.ne.Scalar", "T F -> T", build_binary, BinaryOp::kNe},
      {"aten.lt.Tensor", "T T -> T", build_binary, BinaryOp::kLt},
      {"aten.le.Tensor", "T T -> T", build_binary, BinaryOp::kLe},
      {"aten.le.Scalar", "T F -> T", build_binary, BinaryOp::kLe},
      {"aten.gt.Scalar", "T F -> T", build_binary, BinaryOp::kGt},
      {"aten.ge.Scalar", "T F -> T", build_binary, BinaryOp::kGe},
      {"aten.logical_and.default", "T T -> T", build_binary, BinaryOp::kLogicalAnd},
      {"aten.bitwise_and.Tensor", "T T -> T", build_binary, BinaryOp::kBitwiseAnd},
      {"aten.gt.Tensor", "T T -> T", build_binary, BinaryOp::kGt},
      {"aten.ge.Tensor", "T T -> T", build_binary, BinaryOp::kGe},
      {"aten.lt.Scalar", "T F -> T", build_binary, BinaryOp::kLt},
      {"aten.logical_or.default", "T T -> T", build_binary, BinaryOp::kLogicalOr},
      {"aten.bitwise_or.Tensor", "T T -> T", build_binary, BinaryOp::kBitwiseOr},
      {"aten.div.Tensor_mode", "T T S? -> T", div_tensor_mode},
  });
  append_unary_ops(ops);
}

}  // namespace wick::webgpu
