#include "webgpu/graph.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <utility>

#include "webgpu/chain_fusion.h"
#include "gpu/host_copy.h"
#include "webgpu/flop_count.h"
#include "webgpu/f16_weights.h"
#include "webgpu/fusion.h"
#include "webgpu/llm_fusion.h"
#include "webgpu/matmul_fusion.h"
#include "webgpu/memory_plan.h"
#include "webgpu/op_registry.h"
#include "webgpu/ops/shape/copy.h"

namespace wick::webgpu {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

int64_t normalize_dim(int64_t dim, int64_t rank) { return dim < 0 ? dim + rank : dim; }

uint32_t ceil_div(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

namespace {

using vkgraph::vk_elem_size;
using vkgraph::vk_is_float;

// Serialized constant bytes (in the VK dtype) -> 32-bit words.
std::vector<uint32_t> to_words(std::span<const uint8_t> src, vk::VkDataType dtype, int64_t numel) {
  std::vector<uint32_t> out(static_cast<size_t>(std::max<int64_t>(numel, 1)), 0);
  for (int64_t i = 0; i < numel; ++i) {
    const uint8_t* p = src.data() + i * vk_elem_size(dtype);
    uint32_t w = 0;
    switch (dtype) {
      case vk::VkDataType::FLOAT32: case vk::VkDataType::INT32: std::memcpy(&w, p, 4); break;
      case vk::VkDataType::FLOAT16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        float f = half_to_float(h);
        std::memcpy(&w, &f, 4);
        break;
      }
      case vk::VkDataType::FLOAT64: {
        double d;
        std::memcpy(&d, p, 8);
        float f = static_cast<float>(d);
        std::memcpy(&w, &f, 4);
        break;
      }
      case vk::VkDataType::INT64: {
        int64_t v;
        std::memcpy(&v, p, 8);
        w = static_cast<uint32_t>(static_cast<int32_t>(v));
        break;
      }
      case vk::VkDataType::INT8: w = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(*p))); break;
      default: w = *p; break;  // bool, uint8
    }
    out[static_cast<size_t>(i)] = w;
  }
  return out;
}

// Host tensor element i -> the GPU's 32-bit word (f32 or i32), for uploads and for
// host_input_word. Errors on dtypes the GPU cannot hold.
Result<uint32_t> host_word(const Tensor& host, int64_t i, Elem elem) {
  double v;
  int64_t iv = 0;
  bool is_int = true;
  switch (host.dtype) {
    case ScalarType::kFloat: v = host.data_as<float>()[i]; is_int = false; break;
    case ScalarType::kDouble: v = host.data_as<double>()[i]; is_int = false; break;
    case ScalarType::kHalf: v = half_to_float(host.data_as<uint16_t>()[i]); is_int = false; break;
    case ScalarType::kBFloat16: v = bf16_to_float(host.data_as<uint16_t>()[i]); is_int = false; break;
    case ScalarType::kLong: iv = host.data_as<int64_t>()[i]; v = static_cast<double>(iv); break;
    case ScalarType::kInt: iv = host.data_as<int32_t>()[i]; v = static_cast<double>(iv); break;
    case ScalarType::kShort: iv = host.data_as<int16_t>()[i]; v = static_cast<double>(iv); break;
    case ScalarType::kChar: iv = host.data_as<int8_t>()[i]; v = static_cast<double>(iv); break;
    case ScalarType::kByte: case ScalarType::kBool: iv = host.data_as<uint8_t>()[i]; v = static_cast<double>(iv); break;
    default:
      return Status(ErrorCode::kNotSupported, std::string("input dtype ") + dtype_name(host.dtype) +
                                                  " cannot be uploaded to the GPU");
  }
  uint32_t w;
  if (elem == Elem::kF32) {
    float f = static_cast<float>(v);
    std::memcpy(&w, &f, 4);
  } else {
    int32_t x = is_int ? static_cast<int32_t>(iv) : static_cast<int32_t>(v);
    std::memcpy(&w, &x, 4);
  }
  return w;
}

// Whether the host tensor's bytes already are the GPU's words (float32 as f32, int32 as
// i32): then uploads and readbacks copy straight between the tensor and the buffer.
bool same_words(ScalarType dtype, Elem elem) {
  return (dtype == ScalarType::kFloat && elem == Elem::kF32) || (dtype == ScalarType::kInt && elem == Elem::kI32);
}

// Host tensor -> words, for uploads of dtypes the GPU holds differently. The common
// non-float case, bool and uint8 masks, gets a loop of its own: the general one costs a
// switch and two conversions per element, ~10x more on a 9M-element attention mask.
Status host_to_words(const Tensor& host, Elem elem, std::vector<uint32_t>& out) {
  const int64_t n = host.numel();
  out.resize(static_cast<size_t>(std::max<int64_t>(n, 1)));
  out[0] = 0;
  if ((host.dtype == ScalarType::kBool || host.dtype == ScalarType::kByte) && elem == Elem::kI32) {
    const uint8_t* p = host.data_as<uint8_t>();
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = p[i];
    return {};
  }
  for (int64_t i = 0; i < n; ++i) {
    WICK_ASSIGN_OR_RETURN(out[static_cast<size_t>(i)], host_word(host, i, elem));
  }
  return {};
}

template <typename T, typename F>
void convert_words(const uint32_t* words, int64_t n, T* dst, F convert) {
  for (int64_t i = 0; i < n; ++i) dst[i] = convert(words[i]);
}

float word_f32(uint32_t w) {
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}
int32_t word_i32(uint32_t w) { return static_cast<int32_t>(w); }

// Words read back -> host tensor of its own dtype; one loop per dtype (the switch is
// outside the loop: readbacks of attention-sized outputs run over millions of elements).
Status words_to_host(const uint32_t* words, Elem elem, Tensor& host) {
  const int64_t n = host.numel();
  const bool f = elem == Elem::kF32;
  auto as_double = [f](uint32_t w) { return f ? static_cast<double>(word_f32(w)) : static_cast<double>(word_i32(w)); };
  switch (host.dtype) {
    case ScalarType::kFloat:
      convert_words(words, n, host.data_as<float>(), [f](uint32_t w) { return f ? word_f32(w) : static_cast<float>(word_i32(w)); });
      break;
    case ScalarType::kDouble: convert_words(words, n, host.data_as<double>(), as_double); break;
    case ScalarType::kHalf:
      convert_words(words, n, host.data_as<uint16_t>(), [&](uint32_t w) { return float_to_half(static_cast<float>(as_double(w))); });
      break;
    case ScalarType::kBFloat16:
      convert_words(words, n, host.data_as<uint16_t>(), [&](uint32_t w) { return float_to_bf16(static_cast<float>(as_double(w))); });
      break;
    case ScalarType::kLong:
      convert_words(words, n, host.data_as<int64_t>(), [f](uint32_t w) { return f ? static_cast<int64_t>(word_f32(w)) : int64_t{word_i32(w)}; });
      break;
    case ScalarType::kInt:
      convert_words(words, n, host.data_as<int32_t>(), [f](uint32_t w) { return f ? static_cast<int32_t>(word_f32(w)) : word_i32(w); });
      break;
    case ScalarType::kShort:
      convert_words(words, n, host.data_as<int16_t>(), [&](uint32_t w) { return static_cast<int16_t>(as_double(w)); });
      break;
    case ScalarType::kChar:
      convert_words(words, n, host.data_as<int8_t>(), [&](uint32_t w) { return static_cast<int8_t>(as_double(w)); });
      break;
    case ScalarType::kByte:
      convert_words(words, n, host.data_as<uint8_t>(), [&](uint32_t w) { return static_cast<uint8_t>(as_double(w)); });
      break;
    case ScalarType::kBool:
      if (f) convert_words(words, n, host.data_as<uint8_t>(), [](uint32_t w) { return static_cast<uint8_t>(word_f32(w) != 0 ? 1 : 0); });
      else convert_words(words, n, host.data_as<uint8_t>(), [](uint32_t w) { return static_cast<uint8_t>(w != 0 ? 1 : 0); });
      break;
    default:
      return Status(ErrorCode::kNotSupported, std::string("output dtype ") + dtype_name(host.dtype) +
                                                  " cannot be read back from the GPU");
  }
  return {};
}

}  // namespace

// ---- ParamsBlock ----

Status ParamsBlock::init(std::shared_ptr<gpu::Device> device, size_t bytes, const std::string& label) {
  WICK_ASSIGN_OR_RETURN(buffer_, gpu::Buffer::create_uniform(std::move(device), (bytes + 15) / 16 * 16, label));
  return {};
}

Status ParamsBlock::write(const void* data, size_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  if (last_.size() == bytes && std::memcmp(last_.data(), p, bytes) == 0) return {};
  std::vector<uint8_t> padded(static_cast<size_t>(buffer_.size()), 0);
  if (bytes > padded.size()) return Status(ErrorCode::kInternal, "params block too small");
  std::memcpy(padded.data(), p, bytes);
  WICK_RETURN_IF_ERROR(buffer_.write(padded.data(), padded.size()));
  last_.assign(p, p + bytes);
  return {};
}

bool Graph::use_subgroups() const {
  return options_.subgroups && device_->has_feature(gpu::Feature::kSubgroups);
}

bool Graph::gpu_kernel_choice() const {
  switch (options_.kernel_choice) {
    case GraphOptions::KernelChoice::kGpu: return true;
    case GraphOptions::KernelChoice::kCpu: return false;
    case GraphOptions::KernelChoice::kByAdapter: break;
  }
  return device_->adapter_info().adapter_type != "CPU";
}

// ---- build ----

Result<std::unique_ptr<Graph>> Graph::build(std::shared_ptr<gpu::Device> device, gpu::PipelineCache* cache,
                                            const vkgraph::VkBlob& blob, const NamedDataMap* named_data,
                                            const GraphOptions& options) {
  WICK_ASSIGN_OR_RETURN(vkgraph::Plan plan, vkgraph::read_plan(blob, named_data));
  return build(std::move(device), cache, plan, options);
}

Result<std::unique_ptr<Graph>> Graph::build(std::shared_ptr<gpu::Device> device, gpu::PipelineCache* cache,
                                            const vkgraph::Plan& plan, const GraphOptions& options) {
  std::unique_ptr<Graph> g(new Graph());
  g->device_ = std::move(device);
  g->cache_ = cache;
  g->options_ = options;
  g->commands_ = std::make_unique<gpu::CommandList>(g->device_);
  g->uploads_ = std::make_unique<gpu::UploadStaging>(g->device_);
  WICK_RETURN_IF_ERROR(g->create_values(plan));
  WICK_RETURN_IF_ERROR(g->build_ops(plan));
  WICK_RETURN_IF_ERROR(g->add_output_copies());
  g->constant_host_.clear();  // the spans are only valid while the plan's sources are
  WICK_RETURN_IF_ERROR(g->device_->check().with_context("WebGPU graph build"));
  return g;
}

// Plan values -> graph values; every tensor gets a buffer sized for its upper bound
// (shared by mem_obj_id), constants are uploaded.
Status Graph::create_values(const vkgraph::Plan& plan) {
  const size_t n = plan.values.size();
  values_.resize(n);
  constant_host_.resize(n);
  if (options_.f16_weights) f16_values_ = plan_f16_weights(plan);
  std::map<int, uint64_t> shared_sizes;  // mem_obj_id -> max bytes
  for (size_t id = 0; id < n; ++id) {
    const vkgraph::ValueDecl& pv = plan.values[id];
    if (pv.kind == vkgraph::ValueKind::kTensor) {
      WICK_RETURN_IF_ERROR(create_tensor_value(id, pv, shared_sizes));
    } else {
      values_[id] = non_tensor_value(pv);
    }
  }
  input_ids_ = plan.input_ids;
  output_ids_ = plan.output_ids;
  WICK_RETURN_IF_ERROR(plan_transient_buffers(plan, shared_sizes));
  return create_shared_buffers(shared_sizes);
}

// Everything but a tensor is kept as the plan declares it: ops read these at build time.
GValue Graph::non_tensor_value(const vkgraph::ValueDecl& pv) {
  using vkgraph::ValueKind;
  GValue v;
  v.i = pv.i;
  v.d = pv.d;
  switch (pv.kind) {
    case ValueKind::kNone: v.kind = GValue::kNone; break;
    case ValueKind::kInt: v.kind = GValue::kInt; break;
    case ValueKind::kDouble: v.kind = GValue::kDouble; break;
    case ValueKind::kBool: v.kind = GValue::kBool; break;
    case ValueKind::kString: v.kind = GValue::kString; v.s = pv.s; break;
    case ValueKind::kIntList: v.kind = GValue::kIntList; v.ints = pv.ints; break;
    case ValueKind::kDoubleList: v.kind = GValue::kDoubleList; v.doubles = pv.doubles; break;
    case ValueKind::kBoolList: v.kind = GValue::kBoolList; v.ints = pv.ints; break;
    case ValueKind::kValueList: v.kind = GValue::kValueList; v.items = pv.items; break;
    case ValueKind::kSymInt: v.kind = GValue::kSymInt; break;
    case ValueKind::kTensor: break;  // create_tensor_value
  }
  return v;
}

// A tensor's element layout and buffer: a constant gets its own buffer with its data; an
// intermediate with a mem_obj_id only records its size (create_shared_buffers, after the
// memory plan); any other gets a buffer of its own.
Status Graph::create_tensor_value(size_t id, const vkgraph::ValueDecl& pv, std::map<int, uint64_t>& shared_sizes) {
  const vkgraph::TensorDecl& t = pv.tensor;
  GValue& v = values_[id];
  v.i = pv.i;
  v.d = pv.d;
  v.kind = GValue::kTensor;
  GpuTensor& gt = v.tensor;
  gt.vk_dtype = t.dtype;
  gt.max_dims = t.dims;
  gt.dims = t.dims;
  gt.constant_id = t.constant_id;
  gt.mem_obj_id = t.mem_obj_id;
  const uint64_t numel = static_cast<uint64_t>(t.numel());
  // int8/uint8 constants stay packed four to a word; every other element is one 32-bit word.
  const bool is_byte = gt.vk_dtype == vk::VkDataType::UINT8 || gt.vk_dtype == vk::VkDataType::INT8;
  gt.elem = vk_is_float(gt.vk_dtype) ? Elem::kF32 : (is_byte && gt.constant_id >= 0 ? Elem::kPackedBytes : Elem::kI32);
  // A linear weight kept as f16, and the prepack outputs that pass it on (f16_weights.h).
  if (id < f16_values_.size() && f16_values_[id]) gt.elem = Elem::kF16;
  const uint64_t bytes = gt.elem == Elem::kPackedBytes ? (numel + 3) / 4 * 4
                         : gt.elem == Elem::kF16      ? (numel + 1) / 2 * 4
                                                      : numel * 4;
  if (t.is_constant()) {
    constant_host_[id] = t.constant;
    constant_total_ += bytes;
    if (gt.elem == Elem::kF16) ++f16_weight_count_, f16_bytes_saved_ += numel * 4 - bytes;
    return upload_constant(gt, t, bytes);
  }
  naive_bytes_ += bytes;
  if (gt.mem_obj_id >= 0) {
    uint64_t& s = shared_sizes[gt.mem_obj_id];
    s = std::max(s, bytes);
    return {};
  }
  WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create_storage(device_, std::max<uint64_t>(bytes, 4), "tensor"));
  gt.buffer = std::make_shared<gpu::Buffer>(std::move(buf));
  planned_bytes_ += bytes;
  return {};
}

// A constant's buffer of `bytes` (at least 4), written with the constant in gt.elem's layout.
Status Graph::upload_constant(GpuTensor& gt, const vkgraph::TensorDecl& t, uint64_t bytes) {
  const uint64_t size = std::max<uint64_t>(bytes, 4);
  WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create_storage(device_, size, "constant"));
  gt.buffer = std::make_shared<gpu::Buffer>(std::move(buf));
  if (gt.elem == Elem::kF16) {  // f16_weights.h checked: f32 bytes, numel * 4 of them
    std::vector<float> f(static_cast<size_t>(t.numel()));
    std::memcpy(f.data(), t.constant.data(), f.size() * 4);
    std::vector<uint32_t> words = pack_f16_pairs(f);
    words.resize(static_cast<size_t>(size / 4), 0);
    return gt.buffer->write(words.data(), words.size() * 4);
  }
  if (gt.elem == Elem::kPackedBytes) {
    std::vector<uint8_t> padded(static_cast<size_t>(size), 0);
    std::memcpy(padded.data(), t.constant.data(), t.constant.size());
    return gt.buffer->write(padded.data(), padded.size());
  }
  std::vector<uint32_t> words = to_words(t.constant, gt.vk_dtype, t.numel());
  return gt.buffer->write(words.data(), words.size() * 4);
}

// One buffer per exporter-shared object left after the memory plan, given to every tensor
// that has none yet.
Status Graph::create_shared_buffers(const std::map<int, uint64_t>& shared_sizes) {
  std::map<int, std::shared_ptr<gpu::Buffer>> shared;
  for (const auto& [mem_id, bytes] : shared_sizes) {
    WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create_storage(device_, std::max<uint64_t>(bytes, 4),
                                                                       "shared " + std::to_string(mem_id)));
    shared[mem_id] = std::make_shared<gpu::Buffer>(std::move(buf));
    planned_bytes_ += bytes;
  }
  for (GValue& v : values_)
    if (v.kind == GValue::kTensor && !v.tensor.buffer) v.tensor.buffer = shared[v.tensor.mem_obj_id];
  return {};
}

// memory_plan.h: Wick's own plan for the exporter's shareable tensors (graph inputs and
// outputs included), so flat copies alias their inputs with no dispatch.
Status Graph::plan_transient_buffers(const vkgraph::Plan& plan, std::map<int, uint64_t>& shared_sizes) {
  if (!options_.alias_views) return {};
  bool has_conv = false;
  for (const vkgraph::OpCall& call : plan.ops)
    if (call.name.find("conv") != std::string::npos) has_conv = true;
  // The LLM fusions are planned for graphs without convolutions only: fusion.cpp's conv
  // fusions skip ops of their own, and the two passes do not know each other's.
  if (options_.fuse && !has_conv)
    llm_fusions_ = plan_llm_fusions(plan, std::vector<bool>(plan.ops.size(), false),
                                    device_->limits().max_storage_buffers_per_shader_stage);
  if (options_.fuse && options_.flash_attention) {
    const gpu::Limits& lim = device_->limits();
    // Head dims up to GraphOptions::flash_attention_max_head_dim that some tile of the
    // kernel fits on this device; else the ops stay.
    attention_fusions_ = plan_attention_fusions(plan, lim.max_storage_buffers_per_shader_stage, [&](const AttentionFusion& f) {
      return f.d <= options_.flash_attention_max_head_dim &&
             attention_tile_fits(f.d, lim.max_compute_workgroup_storage_size, lim.max_compute_invocations_per_workgroup);
    });
    // Joint q/k/v products: the dropped linears join the attention's skipped ops, and the
    // host's output is widened to hold every part before the buffers are sized below.
    if (options_.join_qkv && !options_.f16_weights) {
      qkv_joins_ = plan_qkv_joins(plan, attention_fusions_, lim.max_storage_buffer_binding_size);
      for (const auto& [host, join] : qkv_joins_.joins) {
        GpuTensor& t = values_[static_cast<size_t>(join.out)].tensor;
        const int64_t cols = join.n * static_cast<int64_t>(join.weights.size());
        t.max_dims.back() = cols;
        t.dims.back() = cols;
      }
    }
  }
  const size_t n = values_.size(), n_ops = plan.ops.size();
  std::vector<bool> attention_skip(n_ops, false);
  for (size_t i : attention_fusions_.skipped) attention_skip[i] = true;
  std::vector<bool> is_input(n, false), is_output(n, false);
  for (int32_t id : input_ids_)
    if (id >= 0 && static_cast<size_t>(id) < n) is_input[static_cast<size_t>(id)] = true;
  for (int32_t id : output_ids_)
    if (id >= 0 && static_cast<size_t>(id) < n) is_output[static_cast<size_t>(id)] = true;
  std::vector<int> index(n, -1);  // value id -> planned tensor
  std::vector<size_t> ids;
  std::vector<PlannedTensor> tensors;
  for (size_t id = 0; id < n; ++id) {
    const GValue& v = values_[id];
    // Dedicated tensors (mem_obj_id < 0: state that persists across executions, such as
    // KV caches) keep their own buffers.
    if (v.kind != GValue::kTensor || v.tensor.constant_id >= 0 || v.tensor.mem_obj_id < 0) continue;
    index[id] = static_cast<int>(tensors.size());
    ids.push_back(id);
    PlannedTensor t;
    t.bytes = static_cast<uint64_t>(std::max<int64_t>(v.tensor.max_numel(), 1)) * 4;
    t.first = SIZE_MAX;
    // Inputs are written before the first op (the upload), outputs read after the last (the
    // readback copies).
    if (is_input[id]) t.first = 0;
    if (is_output[id]) t.last = n_ops;
    tensors.push_back(t);
  }
  if (tensors.empty()) return {};
  // Lifetimes from the chain: every argument appearance (ValueList members included) is a
  // use; the first is the producer (the chain is in execution order).
  auto touch = [&](int32_t id, size_t at) {
    if (id < 0 || static_cast<size_t>(id) >= n || index[static_cast<size_t>(id)] < 0) return;
    PlannedTensor& t = tensors[static_cast<size_t>(index[static_cast<size_t>(id)])];
    t.first = std::min(t.first, at);
    t.last = std::max(t.last, at);
  };
  // Fusions that move a read later (llm_fusion.h) are known before lifetimes are.
  for (const auto& [at, ids_read] : llm_fusions_.extra_uses)
    for (int32_t id : ids_read) touch(id, at);
  // Tensors an op writes in place (not as its last argument): a view of one taken before the
  // write must not see it, so they alias nothing.
  std::vector<bool> written_in_place(n, false);
  for (const vkgraph::OpCall& call : plan.ops)
    for (size_t pos : in_place_args(call.name))
      if (pos < call.args.size() && call.args[pos] >= 0 && static_cast<size_t>(call.args[pos]) < n)
        written_in_place[static_cast<size_t>(call.args[pos])] = true;
  std::vector<std::pair<size_t, size_t>> aliases;
  // Per alias pair, in op order: the op, the value ids and where the output starts in the
  // input's words (range views, ops/shape's range_views; 0 for flat copies).
  std::vector<ViewLink> alias_ids;
  const bool joint = joint_plan();
  for (size_t i = 0; i < n_ops; ++i) {
    const vkgraph::OpCall& call = plan.ops[i];
    // Ops folded into a fused attention use nothing; the fused dispatch only its own tensors.
    if (attention_skip[i]) continue;
    if (auto af = attention_fusions_.fused.find(i); af != attention_fusions_.fused.end()) {
      for (int32_t id : af->second.uses) touch(id, i);
      continue;
    }
    for (int32_t id : call.args) {
      touch(id, i);
      if (id >= 0 && static_cast<size_t>(id) < n && values_[static_cast<size_t>(id)].kind == GValue::kValueList)
        for (int32_t item : values_[static_cast<size_t>(id)].items) touch(item, i);
    }
    for (const RangeView& v : buffer_views(*this, call.name, call.args)) {
      const int32_t src = v.src, dst = v.dst;
      if (src < 0 || dst < 0 || static_cast<size_t>(src) >= n || static_cast<size_t>(dst) >= n || src == dst) continue;
      const size_t s = static_cast<size_t>(src), d = static_cast<size_t>(dst);
      if (values_[s].kind != GValue::kTensor || values_[d].kind != GValue::kTensor) continue;
      const int a = index[s], b = index[d];
      if (a < 0 || b < 0 || written_in_place[s] || written_in_place[d] || is_input[d]) continue;
      if (copy_converts(&values_[s].tensor, &values_[d].tensor)) continue;
      // Separate plans: the readback copied whole planned buffers when offset views came in.
      if (!joint && v.offset != 0 && is_output[d]) continue;
      aliases.emplace_back(static_cast<size_t>(a), static_cast<size_t>(b));
      alias_ids.push_back({i, src, dst, v.offset});
    }
  }
  for (PlannedTensor& t : tensors)
    if (t.first == SIZE_MAX) {
      t.first = std::min(t.last, n_ops);  // never used: any buffer free then will do
      // Left dead by a fusion (a score matrix, say): nothing writes or reads it, so it
      // takes no memory.
      if (!attention_fusions_.skipped.empty()) t.bytes = 4;
    }
  const MemoryPlan mp = plan_memory(tensors, aliases);
  aliased_ops_ = mp.aliased;
  if (joint) {
    // Placeholders (no memory), one per group of views: the fusion passes compare buffers
    // to see which tensors share memory. Only views truly do: the final plan
    // (finalize_memory_plan) keeps everything else apart by the fused lifetimes, so the
    // passes need not give up a fusion for a buffer the unfused order would have reused.
    std::vector<size_t> group(tensors.size());
    for (size_t k = 0; k < group.size(); ++k) group[k] = k;
    auto find = [&](size_t k) {
      while (group[k] != k) k = group[k] = group[group[k]];
      return k;
    };
    for (const auto& [a, b] : aliases) group[find(b)] = find(a);
    std::map<size_t, std::shared_ptr<gpu::Buffer>> placeholders;
    planned_.assign(n, false);
    for (size_t k = 0; k < ids.size(); ++k) {
      std::shared_ptr<gpu::Buffer>& p = placeholders[find(k)];
      if (!p) p = std::make_shared<gpu::Buffer>();
      values_[ids[k]].tensor.buffer = p;
      planned_[ids[k]] = true;
    }
    view_links_ = std::move(alias_ids);
    shared_sizes.clear();
    return {};
  }
  std::vector<std::shared_ptr<gpu::Buffer>> slots;
  for (size_t s = 0; s < mp.slot_bytes.size(); ++s) {
    WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create_storage(device_, std::max<uint64_t>(mp.slot_bytes[s], 4),
                                                                       "planned " + std::to_string(s)));
    slots.push_back(std::make_shared<gpu::Buffer>(std::move(buf)));
    planned_bytes_ += mp.slot_bytes[s];
  }
  for (size_t k = 0; k < ids.size(); ++k) values_[ids[k]].tensor.buffer = slots[static_cast<size_t>(mp.slot[k])];
  // An honoured pair shares one buffer (a pair the plan could not honour cannot share one
  // by chance: both are live at the op). The output is the input's buffer, or for a slice
  // view a view of it at the slice's offset; in op order, so chains of views compose.
  for (const ViewLink& p : alias_ids) {
    GpuTensor &src = values_[static_cast<size_t>(p.src)].tensor, &dst = values_[static_cast<size_t>(p.dst)].tensor;
    if (mp.slot[static_cast<size_t>(index[static_cast<size_t>(p.src)])] != mp.slot[static_cast<size_t>(index[static_cast<size_t>(p.dst)])]) continue;
    if (p.offset == 0) {
      dst.buffer = src.buffer;  // a flat copy: the same words (a view where its input is one)
      continue;
    }
    const uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(dst.max_numel(), 1)) * 4;
    WICK_ASSIGN_OR_RETURN(gpu::Buffer view, gpu::Buffer::view(*src.buffer, p.offset, bytes, "view"));
    dst.buffer = std::make_shared<gpu::Buffer>(std::move(view));
  }
  shared_sizes.clear();  // every shareable tensor is in a planned buffer now
  return {};
}

Status Graph::build_ops(const vkgraph::Plan& plan) {
  WICK_RETURN_IF_ERROR(vkgraph::check_ops_implemented(
      plan, "WebGPU", [](std::string_view name) { return !(find_op(name) == nullptr); }));
  skip_op_.assign(plan.ops.size(), false);
  value_refs_.assign(values_.size(), 0);
  auto ref = [&](int32_t id) {
    if (id >= 0 && static_cast<size_t>(id) < value_refs_.size()) ++value_refs_[static_cast<size_t>(id)];
  };
  for (const vkgraph::OpCall& call : plan.ops)
    for (int32_t id : call.args) {
      ref(id);
      if (id >= 0 && static_cast<size_t>(id) < values_.size() && values_[static_cast<size_t>(id)].kind == GValue::kValueList)
        for (int32_t item : values_[static_cast<size_t>(id)].items) ref(item);
    }
  for (int32_t id : output_ids_) ref(id);
  if (options_.fuse) WICK_RETURN_IF_ERROR(apply_conv_fusions(plan_conv_fusions(plan, *this)));
  // LLM fusions were planned with the memory plan (plan_transient_buffers), which keeps
  // the fused ops' operands alive long enough.
  const LlmFusions& llm = llm_fusions_;
  for (size_t i : llm.skipped) skip_op_[i] = true;
  fused_ops_ += llm.skipped.size();
  for (size_t i : attention_fusions_.skipped) skip_op_[i] = true;
  fused_ops_ += attention_fusions_.skipped.size();
  // Matmul epilogues before the chains: a chain then starts after what a product absorbed.
  if (options_.fuse && options_.fuse_matmul_epilogue && llm.skipped.empty() && llm.replaced.empty())
    WICK_RETURN_IF_ERROR(apply_matmul_epilogues(plan));
  if (options_.fuse && options_.fuse_chains && llm.skipped.empty() && llm.replaced.empty()) apply_chain_fusions(plan);
  WICK_RETURN_IF_ERROR(place_concatenations(plan));
  if (joint_plan()) WICK_RETURN_IF_ERROR(finalize_memory_plan(plan));
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (skip_op_[i]) continue;
    const vkgraph::OpCall& call = plan.ops[i];
    current_op_ = call.name;
    auto fused = fusions_.find(i);
    current_fusion_ = fused == fusions_.end() ? nullptr : &fused->second;
    auto epilogue = matmul_epilogues_.find(i);
    current_matmul_epilogue_ = epilogue == matmul_epilogues_.end() ? nullptr : &epilogue->second;
    auto replaced = llm.replaced.find(i);
    const size_t first_command = commands_->size();
    auto attention = attention_fusions_.fused.find(i);
    auto chain = chains_.find(i);
    auto join = qkv_joins_.joins.find(i);
    const bool absorbs = attention != attention_fusions_.fused.end() || replaced != llm.replaced.end();
    Status s = attention != attention_fusions_.fused.end() ? build_flash_attention(*this, attention->second)
               : join != qkv_joins_.joins.end()            ? build_qkv_join(*this, join->second)
               : chain != chains_.end()                    ? build_elementwise_chain(*this, chain->second, call.name.c_str())
               : replaced != llm.replaced.end()            ? replaced->second(*this)
                                                           : find_op(current_op_)(*this, call.args);
    // FLOPs per op for the profile (flop_count.h); not for the LLM fusions' replacements or
    // a fused attention, whose dispatches also do the work of the ops they absorbed.
    if (s.ok() && !absorbs && counts_flops(call.name) && !call.args.empty()) {
      FlopOp f{call.name, call.args,
               current_fusion_            ? current_fusion_->out_id
               : current_matmul_epilogue_ ? current_matmul_epilogue_->out_id
                                          : call.args.back(),
               false};
      if (call.name.find("conv") != std::string::npos && call.args.size() > 6) {
        auto transposed = int_arg(call.args[6], "flops");
        f.transposed = transposed.ok() && *transposed != 0;
      }
      command_flop_op_.resize(commands_->size(), -1);
      for (size_t c = first_command; c < commands_->size(); ++c) command_flop_op_[c] = static_cast<int32_t>(flop_ops_.size());
      flop_ops_.push_back(std::move(f));
    }
    current_fusion_ = nullptr;
    current_matmul_epilogue_ = nullptr;
    if (!s.ok()) return s.with_context("VK00 op " + std::to_string(i));
  }
  return {};
}

void Graph::apply_chain_fusions(const vkgraph::Plan& plan) {
  chains_ = plan_elementwise_chains(plan, *this);
  for (const auto& [last, c] : chains_) skip_folded(c.folded);
}

// Ops a later fusion pass may not fold: skipped already, or part of a fused attention (built
// at one of its ops, attention_fusion.h).
std::vector<bool> Graph::ops_taken(size_t n_ops) const {
  std::vector<bool> taken = skip_op_;
  taken.resize(n_ops, false);
  for (const auto& entry : attention_fusions_.fused)
    if (entry.first < n_ops) taken[entry.first] = true;
  for (const auto& entry : qkv_joins_.joins)
    if (entry.first < n_ops) taken[entry.first] = true;
  return taken;
}

// Folded ops run inside the op that absorbed them: never built on their own.
void Graph::skip_folded(const std::vector<size_t>& folded) {
  for (size_t op : folded)
    if (!skip_op_[op]) {
      skip_op_[op] = true;
      ++fused_ops_;
    }
}

// Gives the values a fusion pass moved to fusion slots (slot_of: value id -> slot) their
// buffers, one per slot some value uses. With the joint plan, planned values need no slot:
// finalize_memory_plan places them by the lifetimes the fused ops give them.
Status Graph::bind_fusion_slots(const std::vector<uint64_t>& slot_bytes, std::map<int32_t, size_t> slot_of,
                                const std::string& label) {
  if (joint_plan())
    for (auto it = slot_of.begin(); it != slot_of.end();)
      it = static_cast<size_t>(it->first) < planned_.size() && planned_[static_cast<size_t>(it->first)] ? slot_of.erase(it) : std::next(it);
  std::vector<bool> slot_used(slot_bytes.size(), false);
  for (const auto& [id, slot] : slot_of) slot_used[slot] = true;
  std::vector<std::shared_ptr<gpu::Buffer>> slots;
  for (size_t k = 0; k < slot_bytes.size(); ++k) {
    if (!slot_used[k]) {
      slots.push_back(nullptr);
      continue;
    }
    WICK_ASSIGN_OR_RETURN(gpu::Buffer buffer, gpu::Buffer::create_storage(device_, slot_bytes[k], label + " " + std::to_string(k)));
    slots.push_back(std::make_shared<gpu::Buffer>(std::move(buffer)));
    planned_bytes_ += slot_bytes[k];
  }
  for (const auto& [id, slot] : slot_of) values_[static_cast<size_t>(id)].tensor.buffer = slots[slot];
  return {};
}

Status Graph::apply_matmul_epilogues(const vkgraph::Plan& plan) {
  MatmulFusionPlan mp = plan_matmul_epilogues(plan, *this);
  WICK_RETURN_IF_ERROR(bind_fusion_slots(mp.slot_bytes, std::move(mp.slot_of), "matmul fusion"));
  matmul_epilogues_ = std::move(mp.epilogues);
  for (const auto& [op, e] : matmul_epilogues_) skip_folded(e.folded);
  return {};
}

Status Graph::apply_conv_fusions(ConvFusionPlan plan) {
  WICK_RETURN_IF_ERROR(bind_fusion_slots(plan.slot_bytes, std::move(plan.slot_of), "fusion"));
  conv_skip_ = plan.skip;
  skip_op_ = std::move(plan.skip);
  fusions_ = std::move(plan.convs);
  fused_ops_ += plan.fused_ops;
  dead_ops_ += plan.dead_ops;
  return {};
}

Status Graph::add_output_copies() {
  // The tensor's own words, not its buffer's (a planned buffer may serve larger tensors).
  auto output_bytes = [&](const GValue& v) {
    const uint64_t bytes = std::min<uint64_t>(v.tensor.buffer->size(),
                                              static_cast<uint64_t>(std::max<int64_t>(v.tensor.max_numel(), 1)) * 4);
    return (bytes + 3) / 4 * 4;
  };
#ifdef __EMSCRIPTEN__
  const bool shared = false;  // the browser maps asynchronously: one buffer per output, as before
#else
  const bool shared = options_.readback_staging;
#endif
  // GraphOptions::readback_staging: one MapRead buffer, each output at a 256-byte aligned
  // offset (a view of it), so a call maps once however many outputs it has.
  std::vector<uint64_t> offsets;
  if (shared) {
    uint64_t total = 0;
    for (int32_t id : output_ids_) {
      const GValue& v = values_[static_cast<size_t>(id)];
      offsets.push_back(total);
      if (v.kind == GValue::kTensor) total += (output_bytes(v) + 255) / 256 * 256;
    }
    // Outputs that together pass the device's buffer size limit keep a buffer each.
    if (total > 0 && total <= device_->limits().max_buffer_size) {
      WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create(device_, total, gpu::BufferUsage::kMapRead | gpu::BufferUsage::kCopyDst,
                                                                 "output readback"));
      readback_ = std::make_unique<gpu::Buffer>(std::move(buf));
      readback_used_ = total;
    }
  }
  for (size_t j = 0; j < output_ids_.size(); ++j) {
    const GValue& v = values_[static_cast<size_t>(output_ids_[j])];
    if (v.kind != GValue::kTensor) {
      staging_.push_back(nullptr);
      continue;
    }
    const uint64_t bytes = output_bytes(v);
    auto buf = readback_ ? gpu::Buffer::view(*readback_, offsets[j], bytes, "output staging")
                         : gpu::Buffer::create(device_, bytes, gpu::BufferUsage::kMapRead | gpu::BufferUsage::kCopyDst,
                                               "output staging");
    if (!buf.ok()) return buf.status();
    staging_.push_back(std::make_unique<gpu::Buffer>(std::move(buf).value()));
    WICK_ASSIGN_OR_RETURN(size_t copy, add_copy(*v.tensor.buffer, *staging_.back(), bytes));
    staging_copy_.resize(staging_.size());
    staging_bytes_.resize(staging_.size());
    staging_copy_.back() = copy;
    staging_bytes_.back() = bytes;
  }
  return {};
}

Result<size_t> Graph::add_copy(const gpu::Buffer& src, const gpu::Buffer& dst, uint64_t bytes) {
  WICK_RETURN_IF_ERROR(commands_->add_copy(src, 0, dst, 0, bytes));
  return commands_->size() - 1;
}

Status Graph::request_output_topk(size_t output, int k) {
  if (output >= output_ids_.size())
    return Status(ErrorCode::kInvalidArgument, "top-k: the graph has " + std::to_string(output_ids_.size()) + " outputs, not " +
                                                   std::to_string(output + 1));
  const GValue& v = values_[static_cast<size_t>(output_ids_[output])];
  if (v.kind != GValue::kTensor || !staging_[output])
    return Status(ErrorCode::kNotSupported, "top-k: graph output " + std::to_string(output) + " is not a tensor");
  topk_.resize(output_ids_.size());
  topk_result_.resize(output_ids_.size());
  if (!topk_[output]) {
    if (k == 0) return {};
    WICK_ASSIGN_OR_RETURN(topk_[output], OutputTopK::create(*this, v.tensor, output));
  }
  WICK_RETURN_IF_ERROR(topk_[output]->enable(k));
  return commands_->set_copy_bytes(staging_copy_[output], k ? 0 : staging_bytes_[output]);
}

const TopK* Graph::output_topk(size_t output) const {
  if (output >= topk_.size() || !topk_[output] || topk_[output]->k() == 0) return nullptr;
  return &topk_result_[output];
}

// ---- accessors ----

Result<GValue*> Graph::value(int64_t id) {
  WICK_ASSIGN_OR_RETURN(const GValue* v, std::as_const(*this).value(id));
  return const_cast<GValue*>(v);
}

Result<const GValue*> Graph::value(int64_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= values_.size())
    return Status(ErrorCode::kInvalidProgram, "value id " + std::to_string(id) + " out of range");
  return &values_[static_cast<size_t>(id)];
}

bool Graph::is_none(int64_t id) const {
  return id >= 0 && static_cast<size_t>(id) < values_.size() && values_[static_cast<size_t>(id)].kind == GValue::kNone;
}

std::optional<bool> Graph::gelu_tanh_arg(int64_t id) const {
  if (is_none(id)) return false;
  if (id < 0 || static_cast<size_t>(id) >= values_.size()) return std::nullopt;
  const GValue& v = values_[static_cast<size_t>(id)];
  if (v.kind != GValue::kString || (v.s != "none" && v.s != "tanh")) return std::nullopt;
  return v.s == "tanh";
}

Result<GpuTensor*> Graph::tensor(int64_t id, const char* op) {
  WICK_ASSIGN_OR_RETURN(GValue * v, value(id));
  if (v->kind != GValue::kTensor)
    return Status(ErrorCode::kInvalidProgram, std::string(op) + ": value " + std::to_string(id) + " is not a tensor");
  return &v->tensor;
}

Result<int64_t> Graph::int_arg(int64_t id, const char* op) const {
  WICK_ASSIGN_OR_RETURN(const GValue* v, value(id));
  switch (v->kind) {
    case GValue::kInt: case GValue::kBool: case GValue::kSymInt: return v->i;
    case GValue::kDouble: return static_cast<int64_t>(v->d);
    default:
      return Status(ErrorCode::kInvalidProgram, std::string(op) + ": value " + std::to_string(id) + " is not an int");
  }
}

Result<double> Graph::scalar_arg(int64_t id, const char* op) const {
  WICK_ASSIGN_OR_RETURN(const GValue* v, value(id));
  switch (v->kind) {
    case GValue::kInt: case GValue::kBool: case GValue::kSymInt: return static_cast<double>(v->i);
    case GValue::kDouble: return v->d;
    default:
      return Status(ErrorCode::kInvalidProgram, std::string(op) + ": value " + std::to_string(id) + " is not a scalar");
  }
}

Result<bool> Graph::bool_arg(int64_t id, const char* op) const {
  WICK_ASSIGN_OR_RETURN(int64_t v, int_arg(id, op));
  return v != 0;
}

Result<std::vector<int64_t>> Graph::int_list(int64_t id, const char* op) const {
  WICK_ASSIGN_OR_RETURN(const GValue* v, value(id));
  if (v->kind == GValue::kIntList || v->kind == GValue::kBoolList) return v->ints;
  if (v->kind == GValue::kValueList) {
    std::vector<int64_t> out;
    for (int32_t item : v->items) {
      WICK_ASSIGN_OR_RETURN(int64_t x, int_arg(item, op));
      out.push_back(x);
    }
    return out;
  }
  return Status(ErrorCode::kInvalidProgram, std::string(op) + ": value " + std::to_string(id) + " is not an int list");
}

Result<std::vector<int32_t>> Graph::value_list(int64_t id, const char* op) {
  WICK_ASSIGN_OR_RETURN(GValue * v, value(id));
  if (v->kind != GValue::kValueList)
    return Status(ErrorCode::kInvalidProgram, std::string(op) + ": value " + std::to_string(id) + " is not a value list");
  return v->items;
}

Result<std::span<const uint8_t>> Graph::constant_bytes(int64_t id, const char* op) {
  WICK_ASSIGN_OR_RETURN(GpuTensor * t, tensor(id, op));
  if (t->constant_id < 0)
    return Status(ErrorCode::kNotSupported, std::string(op) + ": value " + std::to_string(id) + " must be a constant");
  return std::span<const uint8_t>(constant_host_[static_cast<size_t>(id)]);
}

Result<std::shared_ptr<const gpu::ComputePipeline>> Graph::pipeline(const gpu::PipelineKey& key) {
  auto p = cache_->get(key);
  if (!p.ok()) return p.status().with_context(current_op_);
  return p;
}

Result<ParamsBlock*> Graph::params(size_t bytes, const std::string& label) {
  auto block = std::make_unique<ParamsBlock>();
  WICK_RETURN_IF_ERROR(block->init(device_, bytes, label));
  params_.push_back(std::move(block));
  return params_.back().get();
}

Result<gpu::Buffer*> Graph::scratch(uint64_t bytes, const std::string& label) {
  WICK_ASSIGN_OR_RETURN(gpu::Buffer buf, gpu::Buffer::create_storage(device_, std::max<uint64_t>(bytes, 4), label));
  scratch_.push_back(std::make_unique<gpu::Buffer>(std::move(buf)));
  return scratch_.back().get();
}

Result<gpu::Buffer*> Graph::shared_scratch(const std::string& key, uint64_t bytes) {
  auto it = shared_scratch_.find(key);
  if (it != shared_scratch_.end() && it->second->size() >= bytes) return it->second;
  WICK_ASSIGN_OR_RETURN(gpu::Buffer * buf, scratch(bytes, key));
  shared_scratch_[key] = buf;
  return buf;
}

Result<size_t> Graph::add_dispatch(gpu::Dispatch dispatch) {
  if (dispatch.label.empty() && dispatch.pipeline) dispatch.label = current_op_ + " " + dispatch.pipeline->key().shader;
  auto idx = commands_->add(std::move(dispatch));
  if (!idx.ok()) return idx.status().with_context(current_op_);
  return idx;
}

Status Graph::set_workgroups(size_t dispatch, uint32_t x, uint32_t y, uint32_t z) {
  return commands_->set_workgroups(dispatch, x, y, z);
}

Status Graph::set_grid(size_t dispatch, uint64_t invocations, uint32_t workgroup_size) {
  uint64_t groups = (invocations + workgroup_size - 1) / workgroup_size;
  const uint64_t max_dim = device_->limits().max_compute_workgroups_per_dimension
                               ? device_->limits().max_compute_workgroups_per_dimension
                               : 65535;
  if (groups <= max_dim) return set_workgroups(dispatch, static_cast<uint32_t>(groups), groups ? 1 : 0);
  uint64_t y = (groups + max_dim - 1) / max_dim;
  uint64_t x = (groups + y - 1) / y;
  if (y > max_dim) return Status(ErrorCode::kNotSupported, current_op_ + ": grid of " + std::to_string(invocations) + " threads is too large");
  return set_workgroups(dispatch, static_cast<uint32_t>(x), static_cast<uint32_t>(y));
}

Status Graph::add_step(std::function<Status()> prepare) {
  WICK_RETURN_IF_ERROR(prepare().with_context(current_op_));
  std::string op = current_op_;
  steps_.push_back([prepare = std::move(prepare), op]() { return prepare().with_context(op); });
  return {};
}

// ---- execute ----

Result<int64_t> Graph::host_input_word(int64_t tensor_id, int64_t flat_index) const {
  auto it = host_inputs_.find(static_cast<int32_t>(tensor_id));
  if (it == host_inputs_.end() || it->second == nullptr) {
    for (int32_t id : input_ids_)
      if (id == tensor_id) return int64_t{0};  // at build time nothing is uploaded yet
    return Status(ErrorCode::kInvalidProgram, "value " + std::to_string(tensor_id) + " is not a graph input tensor");
  }
  const Tensor& host = *it->second;
  if (flat_index < 0 || flat_index >= std::max<int64_t>(host.numel(), 1))
    return Status(ErrorCode::kInvalidArgument, "index " + std::to_string(flat_index) + " outside input " +
                                                   std::to_string(tensor_id));
  const GpuTensor& t = values_[static_cast<size_t>(tensor_id)].tensor;
  uint32_t w = 0;
  if (host.numel() > 0) {
    WICK_ASSIGN_OR_RETURN(w, host_word(host, flat_index, t.elem));
  }
  if (t.elem == Elem::kF32) {
    float f;
    std::memcpy(&f, &w, 4);
    return static_cast<int64_t>(f);
  }
  return static_cast<int64_t>(static_cast<int32_t>(w));
}

Status Graph::upload_input(const Tensor& host, int32_t id, const std::string& where) {
  GpuTensor& t = values_[static_cast<size_t>(id)].tensor;
  if (host.dim() != t.rank())
    return Status(ErrorCode::kInvalidArgument, where + ": rank " + std::to_string(host.dim()) + " " +
                                                   host.shape_string() + ", the graph expects " +
                                                   shape_to_string(t.max_dims));
  for (int d = 0; d < host.dim(); ++d)
    if (host.sizes[d] > t.max_dims[d])
      return Status(ErrorCode::kInvalidArgument, where + ": shape " + host.shape_string() +
                                                     " exceeds the graph's bound " + shape_to_string(t.max_dims));
  if (t.elem == Elem::kPackedBytes) return Status(ErrorCode::kNotSupported, where + ": byte-packed input");
  if (host.data == nullptr && host.numel() > 0) return Status(ErrorCode::kInvalidArgument, where + ": no data");
  t.dims = host.sizes;
  host_inputs_[id] = &host;
  const uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(host.numel(), 1)) * 4;
  host_times_.upload_bytes += bytes;
  if (host.numel() > 0 && same_words(host.dtype, t.elem)) return uploads_->write(*t.buffer, host.data, bytes);
  WICK_RETURN_IF_ERROR(host_to_words(host, t.elem, convert_scratch_).with_context(where));
  return uploads_->write(*t.buffer, convert_scratch_.data(), bytes);
}

Status Graph::download_output(size_t j, const uint8_t* mapped, Tensor& host, const std::string& where) {
  const GpuTensor& t = values_[static_cast<size_t>(output_ids_[j])].tensor;
  if (host.dim() != t.rank())
    return Status(ErrorCode::kInvalidProgram, where + ": host tensor rank " + std::to_string(host.dim()) +
                                                  " differs from the graph's " + std::to_string(t.rank()));
  Status s = host.resize(t.dims);
  if (!s.ok()) return s.with_context(where);
  if (host.numel() == 0) return {};
  if (host.data == nullptr) return Status(ErrorCode::kInvalidProgram, where + ": output tensor has no memory");
  const uint64_t bytes = static_cast<uint64_t>(host.numel()) * 4;
  host_times_.download_bytes += bytes;
  const gpu::Buffer& staging = *staging_[j];
  if (mapped != nullptr && bytes > staging.size())
    return Status(ErrorCode::kInternal, where + ": " + std::to_string(bytes) + " bytes past its readback range");
  // From the mapped shared buffer (the view's offset in it), else one map of its own.
  auto read = [&](void* dst) -> Status {
    if (mapped == nullptr) return staging.read(dst, bytes);
    gpu::host_copy(dst, mapped + (staging.offset() - readback_->offset()), bytes);
    return {};
  };
  if (same_words(host.dtype, t.elem)) return read(host.data);
  convert_scratch_.resize(static_cast<size_t>(host.numel()));
  WICK_RETURN_IF_ERROR(read(convert_scratch_.data()));
  return words_to_host(convert_scratch_.data(), t.elem, host).with_context(where);
}

bool Graph::reads_through_readback() const {
  if (!readback_) return false;
  for (size_t j = 0; j < output_ids_.size(); ++j)
    if (staging_[j] && !(j < topk_.size() && topk_[j] && topk_[j]->k() > 0)) return true;
  return false;
}

Status Graph::download_outputs(ValueTable& values, std::span<const int32_t> args, bool readback_mapped) {
  // One map of the shared readback buffer for every output read this call.
  const uint8_t* mapped = nullptr;
#ifndef __EMSCRIPTEN__
  if (readback_mapped) {
    mapped = static_cast<const uint8_t*>(wgpuBufferGetConstMappedRange(readback_->handle(), 0, readback_used_));
    if (mapped == nullptr) return Status(ErrorCode::kInternal, "WebGPU delegate: the outputs' mapped range is unavailable");
  }
#endif
  for (size_t j = 0; j < output_ids_.size(); ++j) {
    const GValue& gv = values_[static_cast<size_t>(output_ids_[j])];
    WICK_ASSIGN_OR_RETURN(Value * hv, values.at(args[input_ids_.size() + j]));
    std::string where = "WebGPU delegate output " + std::to_string(j);
    if (gv.kind == GValue::kSymInt) {
      *hv = Value::make_int(gv.i);
      continue;
    }
    if (!hv->is_tensor()) return Status(ErrorCode::kInvalidProgram, where + ": host value is not a tensor");
    if (j < topk_.size() && topk_[j] && topk_[j]->k() > 0) {
      // Only the top-k was read back: the host tensor gets the shape, not the data.
      Status s = hv->tensor.resize(gv.tensor.dims);
      if (!s.ok()) return s.with_context(where);
      WICK_RETURN_IF_ERROR(topk_[j]->read(topk_result_[j]).with_context(where));
      continue;
    }
    WICK_RETURN_IF_ERROR(download_output(j, mapped, hv->tensor, where));
  }
  return {};
}

void Graph::record_profile(const gpu::SubmitStats& stats) {
  profile_.clear();
  for (size_t k = 0; k < stats.labels.size(); ++k)
    profile_.push_back(ProfileEntry{stats.labels[k], stats.has_gpu_times ? stats.gpu_ns[k] : 0});
  if (flop_ops_.empty() || stats.commands.size() != profile_.size()) return;
  // Each counted op's FLOPs at this call's shapes go on its last dispatch, with the GPU
  // time of all its dispatches.
  std::vector<int64_t> last(flop_ops_.size(), -1);
  std::vector<uint64_t> op_ns(flop_ops_.size(), 0);
  for (size_t k = 0; k < profile_.size(); ++k) {
    const uint32_t c = stats.commands[k];
    if (c >= command_flop_op_.size() || command_flop_op_[c] < 0) continue;
    const size_t op = static_cast<size_t>(command_flop_op_[c]);
    last[op] = static_cast<int64_t>(k);
    op_ns[op] += profile_[k].gpu_ns;
  }
  for (size_t op = 0; op < flop_ops_.size(); ++op) {
    if (last[op] < 0) continue;
    const FlopOp& f = flop_ops_[op];
    OpShapes shapes;
    shapes.transposed = f.transposed;
    for (int32_t id : f.args) {
      const bool tensor = id >= 0 && static_cast<size_t>(id) < values_.size() && values_[static_cast<size_t>(id)].kind == GValue::kTensor;
      shapes.args.push_back(tensor ? values_[static_cast<size_t>(id)].tensor.dims : std::vector<int64_t>{});
    }
    if (f.out_id >= 0 && static_cast<size_t>(f.out_id) < values_.size() && values_[static_cast<size_t>(f.out_id)].kind == GValue::kTensor)
      shapes.out = values_[static_cast<size_t>(f.out_id)].tensor.dims;
    ProfileEntry& e = profile_[static_cast<size_t>(last[op])];
    e.flops = op_flops(f.name, shapes);
    e.op_gpu_ns = op_ns[op];
  }
}

namespace {
uint64_t ns_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}
}  // namespace

Status Graph::execute(ValueTable& values, std::span<const int32_t> args) {
  // Host inputs are read in place (host_input_word) only while this call runs.
  struct ForgetInputs {
    std::map<int32_t, const Tensor*>& m;
    ~ForgetInputs() {
      for (auto& [id, t] : m) t = nullptr;
    }
  } forget{host_inputs_};
  return execute_call(values, args);
}

Status Graph::execute_call(ValueTable& values, std::span<const int32_t> args) {
  using Clock = std::chrono::steady_clock;
  host_times_ = HostTimes{};
  if (args.size() != input_ids_.size() + output_ids_.size())
    return Status(ErrorCode::kInvalidProgram, "WebGPU delegate: called with " + std::to_string(args.size()) +
                                                  " arguments, the graph has " + std::to_string(input_ids_.size()) +
                                                  " inputs and " + std::to_string(output_ids_.size()) + " outputs");
  WICK_RETURN_IF_ERROR(device_->check().with_context("WebGPU delegate"));
  if (!inputs_fit_placement(values, args))
    return Status(ErrorCode::kInvalidArgument,
                  "WebGPU delegate: an input is below its upper bound, and this graph builds concatenations in place "
                  "or kernels at the upper bounds' shapes (GraphOptions::cat_in_place, fixed_shapes; the backend "
                  "rebuilds without)");
  Clock::time_point t0 = Clock::now();
  uint64_t upload_total = 0;
  for (size_t i = 0; i < input_ids_.size(); ++i) {
    const GValue& gv = values_[static_cast<size_t>(input_ids_[i])];
    Result<Value*> hv = values.at(args[i]);
    if (gv.kind == GValue::kTensor && hv.ok() && (*hv)->is_tensor())
      upload_total += static_cast<uint64_t>(std::max<int64_t>((*hv)->tensor.numel(), 1)) * 4;
  }
  WICK_RETURN_IF_ERROR(uploads_->begin(upload_total).with_context("WebGPU delegate"));
  for (size_t i = 0; i < input_ids_.size(); ++i) {
    GValue& gv = values_[static_cast<size_t>(input_ids_[i])];
    WICK_ASSIGN_OR_RETURN(Value * hv, values.at(args[i]));
    std::string where = "WebGPU delegate input " + std::to_string(i);
    if (gv.kind == GValue::kTensor) {
      if (!hv->is_tensor()) return Status(ErrorCode::kInvalidArgument, where + ": expected a tensor");
      WICK_RETURN_IF_ERROR(upload_input(hv->tensor, input_ids_[i], where));
    } else if (gv.kind == GValue::kSymInt || gv.kind == GValue::kInt) {
      if (!hv->is_scalar()) return Status(ErrorCode::kInvalidArgument, where + ": expected an int");
      gv.i = hv->scalar_as_int();
    } else {
      return Status(ErrorCode::kNotSupported, where + ": unsupported input kind");
    }
  }
  WICK_RETURN_IF_ERROR(uploads_->flush().with_context("WebGPU delegate"));
  Clock::time_point t1 = Clock::now();
  host_times_.upload_ns = ns_between(t0, t1);
  for (auto& step : steps_) WICK_RETURN_IF_ERROR(step());
  for (auto& t : topk_)
    if (t) WICK_RETURN_IF_ERROR(t->prepare());
  host_times_.prepare_ns = ns_between(t1, Clock::now());
  gpu::SubmitOptions so;
  so.timestamps = options_.profile;
  so.timestamps_inside_pass = !options_.profile_per_pass;
  // Profiled calls (a pass per dispatch, timestamps) go out as one command buffer, as they
  // did before chunking: the per-dispatch GPU times are measured the same way, and on the
  // H200 chunked profiled calls of Whisper base took longer (bench/results/vision_h200.md).
  so.first_chunk = options_.profile ? 0 : options_.submit_first_chunk;
#ifndef __EMSCRIPTEN__
  if (options_.readback_map_wait && reads_through_readback()) {
    so.map_for_read = readback_->handle();
    so.map_size = readback_used_;
  }
#endif
  auto stats = commands_->submit(so);
  if (!stats.ok()) return stats.status().with_context("WebGPU delegate");
  last_submit_ = *stats;
  if (options_.profile) record_profile(*stats);
  t0 = Clock::now();
#ifndef __EMSCRIPTEN__
  // The outputs' readback buffer, mapped by the submit (GraphOptions::readback_map_wait) or
  // below, is unmapped however this call ends (the next call's copies write it).
  struct Unmap {
    WGPUBuffer buffer = nullptr;
    ~Unmap() {
      if (buffer) wgpuBufferUnmap(buffer);
    }
  } unmap{stats->mapped ? so.map_for_read : nullptr};
#endif
  for (auto& check : after_submit_) WICK_RETURN_IF_ERROR(check().with_context("WebGPU delegate"));
#ifndef __EMSCRIPTEN__
  if (!unmap.buffer && reads_through_readback()) {
    WICK_RETURN_IF_ERROR(device_->map_for_read(readback_->handle(), 0, readback_used_, "WebGPU delegate: map the outputs"));
    unmap.buffer = readback_->handle();
  }
  const bool readback_mapped = unmap.buffer != nullptr;
#else
  const bool readback_mapped = false;
#endif
  WICK_RETURN_IF_ERROR(download_outputs(values, args, readback_mapped));
  host_times_.download_ns = ns_between(t0, Clock::now());
  return device_->check().with_context("WebGPU delegate");
}

}  // namespace wick::webgpu
