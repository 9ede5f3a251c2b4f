#include "webgpu/ops/elementwise/binary.h"
#include "webgpu/ops/elementwise/unary.h"
#include "webgpu/graph.h"
#include "webgpu/ops/families.h"

namespace wick::webgpu {

namespace {
#define WICK_BINARY(fn, op, name, alpha, scalar) \
  Status fn(Graph& g, const std::vector<int32_t>& a) { return build_binary(g, a, BinaryOp::op, name, alpha, scalar); }
WICK_BINARY(add_tensor, kAdd, "aten.add.Tensor", true, false)
WICK_BINARY(sub_tensor, kSub, "aten.sub.Tensor", true, false)
WICK_BINARY(mul_tensor, kMul, "aten.mul.Tensor", false, false)
WICK_BINARY(mul_scalar, kMul, "aten.mul.Scalar", false, true)
WICK_BINARY(div_tensor, kDiv, "aten.div.Tensor", false, false)
WICK_BINARY(pow_tensor, kPow, "aten.pow.Tensor_Tensor", false, false)
WICK_BINARY(minimum, kMin, "aten.minimum.default", false, false)
WICK_BINARY(maximum, kMax, "aten.maximum.default", false, false)
WICK_BINARY(eq_tensor, kEq, "aten.eq.Tensor", false, false)
WICK_BINARY(eq_scalar, kEq, "aten.eq.Scalar", false, true)
WICK_BINARY(ne_scalar, kNe, "aten.ne.Scalar", false, true)
WICK_BINARY(lt_tensor, kLt, "aten.lt.Tensor", false, false)
WICK_BINARY(le_tensor, kLe, "aten.le.Tensor", false, false)
WICK_BINARY(le_scalar, kLe, "aten.le.Scalar", false, true)
WICK_BINARY(gt_scalar, kGt, "aten.gt.Scalar", false, true)
WICK_BINARY(ge_scalar, kGe, "aten.ge.Scalar", false, true)
WICK_BINARY(logical_and, kLogicalAnd, "aten.logical_and.default", false, false)
WICK_BINARY(bitwise_and, kBitwiseAnd, "aten.bitwise_and.Tensor", false, false)
WICK_BINARY(gt_tensor, kGt, "aten.gt.Tensor", false, false)
WICK_BINARY(ge_tensor, kGe, "aten.ge.Tensor", false, false)
WICK_BINARY(lt_scalar, kLt, "aten.lt.Scalar", false, true)
WICK_BINARY(logical_or, kLogicalOr, "aten.logical_or.default", false, false)
WICK_BINARY(bitwise_or, kBitwiseOr, "aten.bitwise_or.Tensor", false, false)
#undef WICK_BINARY

// div.Tensor_mode: [self, other, rounding_mode (String "trunc" / "floor", or Null), out].
Status div_tensor_mode(Graph& g, const std::vector<int32_t>& a) {
  const char* name = "aten.div.Tensor_mode";
  if (a.size() != 4)
    return Status(ErrorCode::kInvalidProgram,
                  std::string(name) + ": expected 4 arguments, got " + std::to_string(a.size()));
  BinaryOp op = BinaryOp::kDiv;
  if (!g.is_none(a[2])) {
    WICK_ASSIGN_OR_RETURN(GValue * mode, g.value(a[2]));
    if (mode->kind != GValue::kString)
      return Status(ErrorCode::kInvalidProgram, std::string(name) + ": rounding_mode (value " + std::to_string(a[2]) +
                                                    ") is not a string");
    if (mode->s == "trunc") op = BinaryOp::kTruncDiv;
    else if (mode->s == "floor") op = BinaryOp::kFloorDiv;
    else
      return Status(ErrorCode::kNotSupported, std::string(name) + ": rounding_mode \"" + mode->s + "\"");
  }
  return build_binary(g, {a[0], a[1], a[3]}, op, name, false, false);
}
}  // namespace

void append_elementwise_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.add.Tensor", add_tensor},
      {"aten.sub.Tensor", sub_tensor},
      {"aten.mul.Tensor", mul_tensor},
      {"aten.mul.Scalar", mul_scalar},
      {"aten.div.Tensor", div_tensor},
      {"aten.pow.Tensor_Tensor", pow_tensor},
      {"aten.minimum.default", minimum},
      {"aten.maximum.default", maximum},
      {"aten.eq.Tensor", eq_tensor},
      {"aten.eq.Scalar", eq_scalar},
      {"aten.ne.Scalar", ne_scalar},
      {"aten.lt.Tensor", lt_tensor},
      {"aten.le.Tensor", le_tensor},
      {"aten.le.Scalar", le_scalar},
      {"aten.gt.Scalar", gt_scalar},
      {"aten.ge.Scalar", ge_scalar},
      {"aten.logical_and.default", logical_and},
      {"aten.bitwise_and.Tensor", bitwise_and},
      {"aten.gt.Tensor", gt_tensor},
      {"aten.ge.Tensor", ge_tensor},
      {"aten.lt.Scalar", lt_scalar},
      {"aten.logical_or.default", logical_or},
      {"aten.bitwise_or.Tensor", bitwise_or},
      {"aten.div.Tensor_mode", div_tensor_mode},
  });
  append_unary_ops(ops);
}

}  // namespace wick::webgpu
