// Affine quantization of activations (ops.md §2.11):
//   quantized_decomposed.quantize_per_tensor    f32 -> integer words  } qdq_per_tensor.wgsl
//   quantized_decomposed.dequantize_per_tensor  integer words -> f32  }
//   torchao.choose_qparams_affine               per-block scale and zero point
//                                                (choose_qparams_affine.wgsl)
// Quantized tensors that are not constants live one value per 32-bit word (graph.h), so
// int8 results are i32 words here and narrowed to int8 on readback.
#include <cmath>
#include <limits>
#include <string>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 256;

Status fail(ErrorCode code, const char* name, const std::string& what) {
  return Status(code, std::string(name) + ": " + what);
}

// The integer range of an ExecuTorch ScalarType code.
Result<std::pair<int64_t, int64_t>> dtype_range(int64_t code, const char* name) {
  switch (static_cast<ScalarType>(code)) {
    case ScalarType::kByte: return std::pair<int64_t, int64_t>{0, 255};
    case ScalarType::kChar: return std::pair<int64_t, int64_t>{-128, 127};
    case ScalarType::kShort: return std::pair<int64_t, int64_t>{-32768, 32767};
    case ScalarType::kInt: return std::pair<int64_t, int64_t>{INT32_MIN, INT32_MAX};
    default: return fail(ErrorCode::kNotSupported, name, "quantized dtype code " + std::to_string(code));
  }
}

struct QdqParams {
  uint32_t n;
  int32_t zp, qmin, qmax;
  float scale, inv_scale;
  uint32_t pad0, pad1;
};
static_assert(sizeof(QdqParams) == 32);

// quantize_per_tensor:   [input, scale, zero_point, quant_min, quant_max, dtype, out]
// dequantize_per_tensor: [input, scale, zero_point, quant_min, quant_max, dtype, (out_dtype,) out]
Status build_qdq(Graph& g, const std::vector<int32_t>& args, bool quantize, const char* name) {
  if (quantize ? args.size() != 7 : (args.size() != 7 && args.size() != 8))
    return fail(ErrorCode::kInvalidProgram, name,
                std::string("expected ") + (quantize ? "7" : "7 or 8") + " arguments, got " + std::to_string(args.size()));
  WICK_ASSIGN_OR_RETURN(GpuTensor * in, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(double scale, g.scalar_arg(args[1], name));
  WICK_ASSIGN_OR_RETURN(int64_t zp, g.int_arg(args[2], name));
  WICK_ASSIGN_OR_RETURN(int64_t qmin, g.int_arg(args[3], name));
  WICK_ASSIGN_OR_RETURN(int64_t qmax, g.int_arg(args[4], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * out, g.tensor(args.back(), name));
  // ExecuTorch's Vulkan serializer writes the torch.dtype argument as Null (VK00 has no
  // dtype value; seen in the exported fixtures): then the quantized tensor's own dtype
  // gives the range. An Int is taken as an ExecuTorch ScalarType code.
  int64_t dtype;
  if (g.is_none(args[5])) {
    switch ((quantize ? out : in)->vk_dtype) {
      case vk::VkDataType::UINT8: dtype = static_cast<int64_t>(ScalarType::kByte); break;
      case vk::VkDataType::INT8: dtype = static_cast<int64_t>(ScalarType::kChar); break;
      case vk::VkDataType::INT32: dtype = static_cast<int64_t>(ScalarType::kInt); break;
      default: return fail(ErrorCode::kNotSupported, name, "the quantized tensor is not uint8, int8 or int32");
    }
  } else {
    WICK_ASSIGN_OR_RETURN(dtype, g.int_arg(args[5], name));
  }
  WICK_ASSIGN_OR_RETURN(auto range, dtype_range(dtype, name));
  if (qmin > qmax || qmin < range.first || qmax > range.second)
    return fail(ErrorCode::kInvalidProgram, name,
                "quant range [" + std::to_string(qmin) + ", " + std::to_string(qmax) + "] does not fit dtype code " +
                    std::to_string(dtype));
  if (!(scale > 0) || !std::isfinite(scale))
    return fail(ErrorCode::kInvalidProgram, name, "scale " + std::to_string(scale) + " must be positive and finite");
  if (zp < INT32_MIN || zp > INT32_MAX) return fail(ErrorCode::kInvalidProgram, name, "zero point out of int32 range");
  GpuTensor* f = quantize ? in : out;
  GpuTensor* q = quantize ? out : in;
  if (f->elem != Elem::kF32) return fail(ErrorCode::kNotSupported, name, quantize ? "input must be float" : "output must be float");
  if (q->elem != Elem::kI32)
    return fail(ErrorCode::kNotSupported, name, std::string(quantize ? "output" : "input") + " must be a non-constant integer tensor");
  if (in->buffer == out->buffer) return fail(ErrorCode::kNotSupported, name, "aliased input and output");

  WICK_ASSIGN_OR_RETURN(const KernelDispatch index_k, add_kernel(g, name, gpu::PipelineKey("qdq_per_tensor").set("wg_size", kWorkgroup).set("mode", quantize ? 0u : 1u), sizeof(QdqParams),
      {in->buffer.get(), out->buffer.get(), kParamsSlot}));
  ParamsBlock* params = index_k.params;
  const size_t index = index_k.index;
  QdqParams base{};
  base.zp = static_cast<int32_t>(zp);
  base.qmin = static_cast<int32_t>(qmin);
  base.qmax = static_cast<int32_t>(qmax);
  base.scale = static_cast<float>(scale);
  base.inv_scale = static_cast<float>(1.0 / scale);
  return g.add_step([=, &g]() -> Status {
    if (in->numel() > out->max_numel() || in->rank() != out->rank())
      return fail(ErrorCode::kInvalidArgument, name,
                  "input " + shape_to_string(in->dims) + " does not fit the output " + shape_to_string(out->max_dims));
    out->dims = in->dims;
    QdqParams p = base;
    p.n = static_cast<uint32_t>(in->numel());
    WICK_RETURN_IF_ERROR(params->write(p));
    return g.set_grid(index, p.n, kWorkgroup);
  });
}

Status quantize_per_tensor(Graph& g, const std::vector<int32_t>& a) {
  return build_qdq(g, a, true, "quantized_decomposed.quantize_per_tensor.default");
}
Status dequantize_per_tensor(Graph& g, const std::vector<int32_t>& a) {
  return build_qdq(g, a, false, "quantized_decomposed.dequantize_per_tensor.default");
}

struct ChooseParams {
  uint32_t len, blocks, mapping, pad0;
  float qmin, qmax, eps, mid;
};
static_assert(sizeof(ChooseParams) == 32);

// Blocks of choose_qparams_affine as contiguous runs: block_size must be 1 on the leading
// dims, the full size on the trailing dims, and divide the one dim between (per row,
// per group along the last dim, per tensor). Returns the run length, 0 if not of that form.
int64_t contiguous_block_len(const std::vector<int64_t>& dims, const std::vector<int64_t>& block) {
  if (block.size() != dims.size() || dims.empty()) return 0;
  size_t j = 0;
  while (j < dims.size() && block[j] == 1) ++j;
  if (j == dims.size()) return 1;
  if (block[j] <= 0 || dims[j] % block[j] != 0) return 0;
  int64_t len = block[j];
  for (size_t d = j + 1; d < dims.size(); ++d) {
    if (block[d] != dims[d]) return 0;
    len *= dims[d];
  }
  return len;
}

// [input, mapping_type (String), block_size, target_dtype, quant_min?, quant_max?, eps?,
//  scale_dtype?, zero_point_dtype?, (keepdim,) ValueList(scale, zero_point)]
Status choose_qparams_affine(Graph& g, const std::vector<int32_t>& args) {
  const char* name = "torchao.choose_qparams_affine.default";
  if (args.size() != 10 && args.size() != 11)
    return fail(ErrorCode::kInvalidProgram, name, "expected 10 or 11 arguments, got " + std::to_string(args.size()));
  WICK_ASSIGN_OR_RETURN(GpuTensor * x, g.tensor(args[0], name));
  WICK_ASSIGN_OR_RETURN(GValue * mapping_v, g.value(args[1]));
  if (mapping_v->kind != GValue::kString) return fail(ErrorCode::kInvalidProgram, name, "mapping_type is not a string");
  uint32_t mapping = 0;
  if (mapping_v->s == "ASYMMETRIC") mapping = 0;
  else if (mapping_v->s == "SYMMETRIC") mapping = 1;
  else if (mapping_v->s == "SYMMETRIC_NO_CLIPPING_ERR") mapping = 2;
  else return fail(ErrorCode::kNotSupported, name, "mapping_type \"" + mapping_v->s + "\"");
  WICK_ASSIGN_OR_RETURN(std::vector<int64_t> block, g.int_list(args[2], name));
  // target_dtype is a torch.dtype, which the Vulkan serializer writes as Null (VK00 has no
  // dtype value; seen in the exported 8da4w and choose_qparams_affine programs). Then the
  // quant range comes from quant_min / quant_max, which torchao always passes for int8;
  // without them the zero point's own dtype stands in. An Int is a ScalarType code.
  int64_t qmin = 0, qmax = 0;
  if (!g.is_none(args[3])) {
    WICK_ASSIGN_OR_RETURN(int64_t target, g.int_arg(args[3], name));
    WICK_ASSIGN_OR_RETURN(auto range, dtype_range(target, name));
    qmin = range.first, qmax = range.second;
  } else if (g.is_none(args[4]) || g.is_none(args[5])) {
    WICK_ASSIGN_OR_RETURN(std::vector<int32_t> outs, g.value_list(args.back(), name));
    if (outs.size() != 2) return fail(ErrorCode::kInvalidProgram, name, "expected 2 outputs (scale, zero_point)");
    WICK_ASSIGN_OR_RETURN(GpuTensor * zp_t, g.tensor(outs[1], name));
    ScalarType zp_type;
    switch (zp_t->vk_dtype) {
      case vk::VkDataType::UINT8: zp_type = ScalarType::kByte; break;
      case vk::VkDataType::INT8: zp_type = ScalarType::kChar; break;
      case vk::VkDataType::INT32: zp_type = ScalarType::kInt; break;
      default:
        return fail(ErrorCode::kNotSupported, name,
                    "target_dtype is not given and the zero point is not uint8, int8 or int32");
    }
    WICK_ASSIGN_OR_RETURN(auto range, dtype_range(static_cast<int64_t>(zp_type), name));
    qmin = range.first, qmax = range.second;
  }
  if (!g.is_none(args[4])) {
    WICK_ASSIGN_OR_RETURN(qmin, g.int_arg(args[4], name));
  }
  if (!g.is_none(args[5])) {
    WICK_ASSIGN_OR_RETURN(qmax, g.int_arg(args[5], name));
  }
  if (qmin >= qmax) return fail(ErrorCode::kInvalidProgram, name, "quant_min must be below quant_max");
  double eps = std::numeric_limits<float>::min();  // torchao's default: f32 smallest normal
  if (!g.is_none(args[6])) {
    WICK_ASSIGN_OR_RETURN(eps, g.scalar_arg(args[6], name));
  }
  WICK_ASSIGN_OR_RETURN(std::vector<int32_t> outs, g.value_list(args.back(), name));
  if (outs.size() != 2) return fail(ErrorCode::kInvalidProgram, name, "expected 2 outputs (scale, zero_point)");
  WICK_ASSIGN_OR_RETURN(GpuTensor * scale, g.tensor(outs[0], name));
  WICK_ASSIGN_OR_RETURN(GpuTensor * zp, g.tensor(outs[1], name));
  if (!x->is_float() || !scale->is_float()) return fail(ErrorCode::kNotSupported, name, "input and scale must be float");
  if (zp->elem != Elem::kI32) return fail(ErrorCode::kNotSupported, name, "zero_point must be an integer tensor");
  if (contiguous_block_len(x->max_dims, block) == 0)
    return fail(ErrorCode::kNotSupported, name,
                "block_size " + shape_to_string(block) + " on input " + shape_to_string(x->max_dims) +
                    ": only blocks that are contiguous runs (1 on leading dims, full on trailing dims)");

  WICK_ASSIGN_OR_RETURN(const KernelDispatch index_k, add_kernel(g, name, gpu::PipelineKey("choose_qparams_affine"), sizeof(ChooseParams),
      {x->buffer.get(), scale->buffer.get(), zp->buffer.get(), kParamsSlot}));
  ParamsBlock* params = index_k.params;
  const size_t index = index_k.index;
  ChooseParams base{};
  base.mapping = mapping;
  base.qmin = static_cast<float>(qmin);
  base.qmax = static_cast<float>(qmax);
  base.eps = static_cast<float>(eps);
  base.mid = static_cast<float>(std::trunc(static_cast<double>(qmin + qmax + 1) / 2));
  return g.add_step([=, &g]() -> Status {
    const int64_t len = contiguous_block_len(x->dims, block);
    if (len == 0)
      return fail(ErrorCode::kInvalidArgument, name,
                  "block_size " + shape_to_string(block) + " does not tile input " + shape_to_string(x->dims));
    const int64_t blocks = x->numel() / len;
    if (blocks != scale->max_numel() || blocks != zp->max_numel())
      return fail(ErrorCode::kInvalidArgument, name,
                  std::to_string(blocks) + " blocks for scale " + shape_to_string(scale->max_dims) +
                      " and zero_point " + shape_to_string(zp->max_dims));
    scale->dims = scale->max_dims;
    zp->dims = zp->max_dims;
    ChooseParams p = base;
    p.len = static_cast<uint32_t>(len);
    p.blocks = static_cast<uint32_t>(blocks);
    WICK_RETURN_IF_ERROR(params->write(p));
    // One 64-thread workgroup per block.
    return g.set_grid(index, static_cast<uint64_t>(blocks) * 64, 64);
  });
}

}  // namespace

void append_qdq_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"quantized_decomposed.quantize_per_tensor.default", quantize_per_tensor},
      {"quantized_decomposed.dequantize_per_tensor.default", dequantize_per_tensor},
      {"torchao.choose_qparams_affine.default", choose_qparams_affine},
  });
}

}  // namespace wick::webgpu
