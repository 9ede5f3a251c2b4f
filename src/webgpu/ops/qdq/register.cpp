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

#include "core/quant_blocks.h"
#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"

namespace wick::webgpu {

namespace {

constexpr uint32_t kWorkgroup = 256;

// The integer range of an ExecuTorch ScalarType code.
Result<std::pair<int64_t, int64_t>> dtype_range(int64_t code, const char* name) {
  if (auto range = quant_range(static_cast<ScalarType>(code))) return *range;
  return op_error(ErrorCode::kNotSupported, name, "quantized dtype code " + std::to_string(code));
}

// The ScalarType of a quantized tensor's integer words (VK00 stores no torch.dtype).
Result<ScalarType> integer_type(const OpArgs& a, vk::VkDataType t, const std::string& what) {
  switch (t) {
    case vk::VkDataType::UINT8: return ScalarType::kByte;
    case vk::VkDataType::INT8: return ScalarType::kChar;
    case vk::VkDataType::INT32: return ScalarType::kInt;
    default: return a.unsupported(what + " is not uint8, int8 or int32");
  }
}

struct QdqParams {
  uint32_t n;
  int32_t zp, qmin, qmax;
  float scale, inv_scale;
  uint32_t pad0, pad1;
};
static_assert(sizeof(QdqParams) == 32);

// quantize_per_tensor (variant 1):   [input, scale, zero_point, quant_min, quant_max, dtype, out]
// dequantize_per_tensor (variant 0): [input, scale, zero_point, quant_min, quant_max, dtype, (out_dtype,) out]
Status build_qdq(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  const bool quantize = a.variant() == 1;
  GpuTensor *in = a.tensor(0), *out = a.out();
  const double scale = a.scalar(1);
  const int64_t zp = a.integer(2), qmin = a.integer(3), qmax = a.integer(4);
  // ExecuTorch's Vulkan serializer writes the torch.dtype argument as Null (VK00 has no
  // dtype value; seen in the exported fixtures): then the quantized tensor's own dtype
  // gives the range. An Int is taken as an ExecuTorch ScalarType code.
  int64_t dtype;
  if (!a.has(5)) {
    WICK_ASSIGN_OR_RETURN(ScalarType t, integer_type(a, (quantize ? out : in)->vk_dtype, "the quantized tensor"));
    dtype = static_cast<int64_t>(t);
  } else {
    dtype = a.integer(5);
  }
  WICK_ASSIGN_OR_RETURN(auto range, dtype_range(dtype, name));
  if (qmin > qmax || qmin < range.first || qmax > range.second)
    return a.invalid("quant range [" + std::to_string(qmin) + ", " + std::to_string(qmax) + "] does not fit dtype code " +
                     std::to_string(dtype));
  if (!(scale > 0) || !std::isfinite(scale))
    return a.invalid("scale " + std::to_string(scale) + " must be positive and finite");
  if (zp < INT32_MIN || zp > INT32_MAX) return a.invalid("zero point out of int32 range");
  GpuTensor* f = quantize ? in : out;
  GpuTensor* q = quantize ? out : in;
  if (f->elem != Elem::kF32) return a.unsupported(quantize ? "input must be float" : "output must be float");
  if (q->elem != Elem::kI32)
    return a.unsupported(std::string(quantize ? "output" : "input") + " must be a non-constant integer tensor");
  if (in->buffer == out->buffer) return a.unsupported("aliased input and output");

  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey("qdq_per_tensor").set("wg_size", kWorkgroup).set("mode", quantize ? 0u : 1u), sizeof(QdqParams),
      {in->buffer.get(), out->buffer.get(), kParamsSlot}));
  QdqParams base{};
  base.zp = static_cast<int32_t>(zp);
  base.qmin = static_cast<int32_t>(qmin);
  base.qmax = static_cast<int32_t>(qmax);
  base.scale = static_cast<float>(scale);
  base.inv_scale = static_cast<float>(1.0 / scale);
  return g.add_step([=, &g]() -> Status {
    if (in->numel() > out->max_numel() || in->rank() != out->rank())
      return op_error(ErrorCode::kInvalidArgument, name,
                  "input " + shape_to_string(in->dims) + " does not fit the output " + shape_to_string(out->max_dims));
    out->dims = in->dims;
    QdqParams p = base;
    p.n = static_cast<uint32_t>(in->numel());
    return kernel.launch(g, p, p.n, kWorkgroup);
  });
}


struct ChooseParams {
  uint32_t len, blocks, mapping, pad0;
  float qmin, qmax, eps, mid;
};
static_assert(sizeof(ChooseParams) == 32);

// [input, mapping_type (String), block_size, target_dtype, quant_min?, quant_max?, eps?,
//  scale_dtype?, zero_point_dtype?, (keepdim,) ValueList(scale, zero_point)]
Status choose_qparams_affine(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor* x = a.tensor(0);
  uint32_t mapping = 0;
  const std::string& mapping_s = a.str(1);
  if (mapping_s == "ASYMMETRIC") mapping = 0;
  else if (mapping_s == "SYMMETRIC") mapping = 1;
  else if (mapping_s == "SYMMETRIC_NO_CLIPPING_ERR") mapping = 2;
  else return a.unsupported("mapping_type \"" + mapping_s + "\"");
  const std::vector<int64_t> block = a.ints(2);
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, a.tensors(a.num_inputs(), 2));
  GpuTensor *scale = outs[0], *zp = outs[1];
  if (!scale || !zp) return a.invalid("expected 2 outputs (scale, zero_point)");
  // target_dtype is a torch.dtype, which the Vulkan serializer writes as Null (VK00 has no
  // dtype value; seen in the exported 8da4w and choose_qparams_affine programs). Then the
  // quant range comes from quant_min / quant_max, which torchao always passes for int8;
  // without them the zero point's own dtype stands in. An Int is a ScalarType code.
  int64_t qmin = 0, qmax = 0;
  if (a.has(3)) {
    WICK_ASSIGN_OR_RETURN(auto range, dtype_range(a.integer(3), name));
    qmin = range.first, qmax = range.second;
  } else if (!a.has(4) || !a.has(5)) {
    WICK_ASSIGN_OR_RETURN(ScalarType zp_type,
                          integer_type(a, zp->vk_dtype, "target_dtype is not given and the zero point"));
    WICK_ASSIGN_OR_RETURN(auto range, dtype_range(static_cast<int64_t>(zp_type), name));
    qmin = range.first, qmax = range.second;
  }
  qmin = a.integer_or(4, qmin);
  qmax = a.integer_or(5, qmax);
  if (qmin >= qmax) return a.invalid("quant_min must be below quant_max");
  const double eps = a.scalar_or(6, std::numeric_limits<float>::min());  // torchao's default: f32 smallest normal
  if (!x->is_float() || !scale->is_float()) return a.unsupported("input and scale must be float");
  if (zp->elem != Elem::kI32) return a.unsupported("zero_point must be an integer tensor");
  if (contiguous_block_len(x->max_dims, block) == 0)
    return a.unsupported("block_size " + shape_to_string(block) + " on input " + shape_to_string(x->max_dims) +
                         ": only blocks that are contiguous runs (1 on leading dims, full on trailing dims)");

  WICK_ASSIGN_OR_RETURN(const KernelDispatch kernel, add_kernel(g, name, gpu::PipelineKey("choose_qparams_affine"), sizeof(ChooseParams),
      {x->buffer.get(), scale->buffer.get(), zp->buffer.get(), kParamsSlot}));
  ChooseParams base{};
  base.mapping = mapping;
  base.qmin = static_cast<float>(qmin);
  base.qmax = static_cast<float>(qmax);
  base.eps = static_cast<float>(eps);
  base.mid = static_cast<float>(std::trunc(static_cast<double>(qmin + qmax + 1) / 2));
  return g.add_step([=, &g]() -> Status {
    const int64_t len = contiguous_block_len(x->dims, block);
    if (len == 0)
      return op_error(ErrorCode::kInvalidArgument, name,
                  "block_size " + shape_to_string(block) + " does not tile input " + shape_to_string(x->dims));
    const int64_t blocks = x->numel() / len;
    if (blocks != scale->max_numel() || blocks != zp->max_numel())
      return op_error(ErrorCode::kInvalidArgument, name,
                  std::to_string(blocks) + " blocks for scale " + shape_to_string(scale->max_dims) +
                      " and zero_point " + shape_to_string(zp->max_dims));
    scale->dims = scale->max_dims;
    zp->dims = zp->max_dims;
    ChooseParams p = base;
    p.len = static_cast<uint32_t>(len);
    p.blocks = static_cast<uint32_t>(blocks);
    WICK_RETURN_IF_ERROR(kernel.params->write(p));
    // One 64-thread workgroup per block.
    return g.set_grid(kernel.index, static_cast<uint64_t>(blocks) * 64, 64);
  });
}

}  // namespace

void append_qdq_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"quantized_decomposed.quantize_per_tensor.default", "T F I I I I? -> T", build_qdq, 1},
      {"quantized_decomposed.dequantize_per_tensor.default", "T F I I I I? [*] -> T", build_qdq, 0},
      {"torchao.choose_qparams_affine.default", "T S L I? I? I? F? * * [*] -> V", choose_qparams_affine},
  });
}

}  // namespace wick::webgpu
