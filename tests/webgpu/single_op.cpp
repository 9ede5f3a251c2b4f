#include "single_op.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "format/named_data.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"
#include "vk00_generated.h"
#include "vkcpu/cpu_graph.h"
#include "webgpu/graph.h"
#include "webgpu/wgsl_shaders.h"

namespace wick::test {

struct VkGraphBuilder::V {
  enum Kind { kTensor, kInt, kDouble, kBool, kNone, kIntList, kValueList, kSymInt, kString } kind;
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> shape;
  int constant_id = -1;
  int mem_obj_id = -1;
  std::string key;  // constants: the named-data key; strings: the value
  int64_t i = 0;
  double d = 0;
  std::vector<int64_t> ints;
  std::vector<int> items;
};

namespace {

vk::VkDataType vk_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::kBool: return vk::VkDataType::BOOL;
    case ScalarType::kByte: return vk::VkDataType::UINT8;
    case ScalarType::kChar: return vk::VkDataType::INT8;
    case ScalarType::kInt: return vk::VkDataType::INT32;
    case ScalarType::kLong: return vk::VkDataType::INT32;  // the exporter downcasts 64-bit ints
    case ScalarType::kHalf: return vk::VkDataType::FLOAT16;
    default: return vk::VkDataType::FLOAT32;
  }
}

class MapData : public NamedDataMap {
 public:
  explicit MapData(const std::map<std::string, std::vector<uint8_t>>& m) : m_(m) {}
  Result<std::span<const uint8_t>> get(std::string_view key) const override {
    auto it = m_.find(std::string(key));
    if (it == m_.end()) return Status(ErrorCode::kNotFound, "no key");
    return std::span<const uint8_t>(it->second);
  }
  std::vector<std::string> keys() const override {
    std::vector<std::string> k;
    for (auto& [a, b] : m_) k.push_back(a);
    return k;
  }

 private:
  const std::map<std::string, std::vector<uint8_t>>& m_;
};

}  // namespace

int VkGraphBuilder::add(std::shared_ptr<V> v) {
  values_.push_back(std::move(v));
  return static_cast<int>(values_.size()) - 1;
}

int VkGraphBuilder::input(ScalarType dtype, std::vector<int64_t> shape, int mem_obj_id) {
  int id = tensor(dtype, std::move(shape), mem_obj_id);
  inputs_.push_back(id);
  return id;
}

int VkGraphBuilder::tensor(ScalarType dtype, std::vector<int64_t> shape, int mem_obj_id) {
  auto v = std::make_shared<V>();
  v->kind = V::kTensor;
  v->dtype = dtype;
  v->mem_obj_id = mem_obj_id;
  v->shape = std::move(shape);
  return add(v);
}

int VkGraphBuilder::constant(const Tensor& value) {
  auto v = std::make_shared<V>();
  v->kind = V::kTensor;
  v->dtype = value.dtype == ScalarType::kLong ? ScalarType::kInt : value.dtype;
  v->shape = value.sizes;
  v->constant_id = static_cast<int>(named_.size());
  v->key = "const_" + std::to_string(named_.size());
  std::vector<uint8_t> bytes;
  if (value.dtype == ScalarType::kLong) {  // stored downcast, as the exporter does
    for (int64_t i = 0; i < value.numel(); ++i) {
      int32_t x = static_cast<int32_t>(value.data_as<int64_t>()[i]);
      const uint8_t* p = reinterpret_cast<const uint8_t*>(&x);
      bytes.insert(bytes.end(), p, p + 4);
    }
  } else {
    bytes.assign(value.bytes().begin(), value.bytes().end());
  }
  named_[v->key] = std::move(bytes);
  return add(v);
}

int VkGraphBuilder::int_value(int64_t x) { auto v = std::make_shared<V>(); v->kind = V::kInt; v->i = x; return add(v); }
int VkGraphBuilder::double_value(double x) { auto v = std::make_shared<V>(); v->kind = V::kDouble; v->d = x; return add(v); }
int VkGraphBuilder::bool_value(bool x) { auto v = std::make_shared<V>(); v->kind = V::kBool; v->i = x; return add(v); }
int VkGraphBuilder::string_value(std::string x) { auto v = std::make_shared<V>(); v->kind = V::kString; v->key = std::move(x); return add(v); }
int VkGraphBuilder::none() { auto v = std::make_shared<V>(); v->kind = V::kNone; return add(v); }
int VkGraphBuilder::int_list(std::vector<int64_t> x) { auto v = std::make_shared<V>(); v->kind = V::kIntList; v->ints = std::move(x); return add(v); }
int VkGraphBuilder::value_list(std::vector<int> ids) { auto v = std::make_shared<V>(); v->kind = V::kValueList; v->items = std::move(ids); return add(v); }
int VkGraphBuilder::symint(int64_t x) { auto v = std::make_shared<V>(); v->kind = V::kSymInt; v->i = x; return add(v); }
void VkGraphBuilder::op(const std::string& name, std::vector<int> args) { ops_.emplace_back(name, std::move(args)); }
void VkGraphBuilder::output(int id) { outputs_.push_back(id); }

std::unique_ptr<NamedDataMap> VkGraphBuilder::named_data() const { return std::make_unique<MapData>(named_); }

std::vector<uint8_t> VkGraphBuilder::blob() const {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<vk::VkValue>> values;
  std::vector<flatbuffers::Offset<vk::VkBytes>> constants(named_.size());
  for (const auto& v : values_) {
    switch (v->kind) {
      case V::kTensor: {
        std::vector<uint32_t> dims(v->shape.begin(), v->shape.end());
        auto t = vk::CreateVkTensorDirect(fbb, vk_dtype(v->dtype), &dims, v->constant_id, v->mem_obj_id);
        values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::VkTensor, t.Union()));
        if (v->constant_id >= 0)
          constants[static_cast<size_t>(v->constant_id)] =
              vk::CreateVkBytesDirect(fbb, UINT64_MAX, named_.at(v->key).size(), v->key.c_str());
        break;
      }
      case V::kInt: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::Int, vk::CreateInt(fbb, v->i).Union())); break;
      case V::kDouble: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::Double, vk::CreateDouble(fbb, v->d).Union())); break;
      case V::kBool: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::Bool, vk::CreateBool(fbb, v->i != 0).Union())); break;
      case V::kNone: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::Null, vk::CreateNull(fbb).Union())); break;
      case V::kIntList: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::IntList, vk::CreateIntListDirect(fbb, &v->ints).Union())); break;
      case V::kValueList: {
        std::vector<int32_t> items(v->items.begin(), v->items.end());
        values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::ValueList, vk::CreateValueListDirect(fbb, &items).Union()));
        break;
      }
      case V::kString: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::String, vk::CreateStringDirect(fbb, v->key.c_str()).Union())); break;
      case V::kSymInt: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::SymInt, vk::CreateSymInt(fbb, static_cast<int32_t>(v->i)).Union())); break;
    }
  }
  std::vector<flatbuffers::Offset<vk::OperatorCall>> chain;
  for (const auto& [name, args] : ops_) {
    std::vector<int32_t> a(args.begin(), args.end());
    chain.push_back(vk::CreateOperatorCallDirect(fbb, 0, name.c_str(), &a));
  }
  std::vector<uint32_t> in_ids(inputs_.begin(), inputs_.end()), out_ids(outputs_.begin(), outputs_.end());
  auto root = vk::CreateVkGraphDirect(fbb, "0", &chain, &values, &in_ids, &out_ids, &constants);
  vk::FinishVkGraphBuffer(fbb, root);

  // VH00 header (30 bytes, padded to 32), then the flatbuffer.
  std::vector<uint8_t> blob(32, 0);
  std::memcpy(blob.data() + 4, "VH00", 4);
  uint16_t header_size = 30;
  uint32_t fb_offset = 32, fb_size = fbb.GetSize(), bytes_offset = 32 + (fb_size + 15) / 16 * 16;
  uint64_t bytes_size = 0;
  std::memcpy(blob.data() + 8, &header_size, 2);
  std::memcpy(blob.data() + 10, &fb_offset, 4);
  std::memcpy(blob.data() + 14, &fb_size, 4);
  std::memcpy(blob.data() + 18, &bytes_offset, 4);
  std::memcpy(blob.data() + 22, &bytes_size, 8);
  blob.insert(blob.end(), fbb.GetBufferPointer(), fbb.GetBufferPointer() + fb_size);
  blob.resize(bytes_offset, 0);
  return blob;
}

Result<std::vector<Value>> VkGraphBuilder::run(const std::vector<Value>& inputs) {
  const std::vector<uint8_t> blob = this->blob();
  WICK_ASSIGN_OR_RETURN(AlignedBuffer aligned, AlignedBuffer::allocate(blob.size(), "the test's VK00 blob"));
  std::memcpy(aligned.data(), blob.data(), blob.size());

  if (cpu) {
    MapData named(named_);
    WICK_ASSIGN_OR_RETURN(vkgraph::Plan plan, vkgraph::read_plan(aligned.bytes(), &named));
    WICK_ASSIGN_OR_RETURN(auto graph, vkcpu::CpuGraph::build(plan));
    ValueTable table;
    std::vector<int32_t> args;
    for (const Value& in : inputs) {
      table.values.push_back(in);
      args.push_back(static_cast<int32_t>(table.values.size()) - 1);
    }
    for (int id : outputs_) {
      const V& v = *values_[static_cast<size_t>(id)];
      Tensor t = Tensor::make_owned(v.dtype, v.shape);
      t.dynamism = ShapeDynamism::kDynamicBound;
      table.values.push_back(Value::make_tensor(std::move(t)));
      args.push_back(static_cast<int32_t>(table.values.size()) - 1);
    }
    WICK_RETURN_IF_ERROR(graph->execute(table, args));
    return std::vector<Value>(table.values.begin() + static_cast<long>(inputs.size()), table.values.end());
  }

  // Leaked on purpose: destroying a device from a static destructor at exit races the
  // Vulkan driver's own teardown.
  static auto& device = *new std::shared_ptr<gpu::Device>();
  static auto& cache = *new std::shared_ptr<gpu::PipelineCache>();
  if (!device || device->is_lost()) {
    WICK_ASSIGN_OR_RETURN(device, gpu::Device::create());
    cache = std::make_shared<gpu::PipelineCache>(device, webgpu::find_wgsl);
  }
  WICK_ASSIGN_OR_RETURN(vkgraph::VkBlob parsed, vkgraph::parse_vk_blob(aligned.bytes()));
  MapData named(named_);
  webgpu::GraphOptions go;
  go.fuse = fuse;
  go.fuse_chains = fuse_chains;
  go.fuse_matmul_epilogue = fuse_matmul_epilogue;
  go.specialize_matmul_epilogue = specialize_matmul_epilogue;
  go.alias_views = alias_views;
  if (gpu_kernels) go.kernel_choice = webgpu::GraphOptions::KernelChoice::kGpu;
  go.profile = profile;
  go.cat_in_place = cat_in_place;
  go.joint_memory_plan = joint_memory_plan;
  go.range_views = range_views;
  go.flash_attention = flash_attention;
  go.flash_splitkv = flash_splitkv;
  go.flash_prefetch = flash_prefetch;
  go.flash_tile_bq = flash_tile_bq, go.flash_tile_bkv = flash_tile_bkv;
  go.flash_score_rows = flash_score_rows;
  go.flash_score_chain = flash_score_chain;
  go.join_qkv = join_qkv;
  go.flash_subgroups = flash_subgroups;
  go.fixed_shapes = fixed_shapes;
  go.submit_first_chunk = submit_first_chunk;
  go.readback_staging = readback_staging;
  go.readback_map_wait = readback_map_wait;
  go.conv_pw_gemm = conv_pw_gemm;
  go.matmul_splitk = matmul_splitk;
  go.norm_into_splitk = norm_into_splitk;
  go.conv_rm8 = conv_rm8;
  go.conv_splitk_fill = conv_splitk_fill;
  if (gpu_multiprocessors) go.gpu_multiprocessors = gpu_multiprocessors;
  go.conv_pw_tail = conv_pw_tail;
  go.f16_weights = f16_weights;
  go.subgroups = subgroups;
  go.f16_arith = f16_arith;
  WICK_ASSIGN_OR_RETURN(auto graph, webgpu::Graph::build(device, cache.get(), parsed, &named, go));
  dispatches = graph->dispatch_count();
  view_alignment = graph->view_alignment();
  adapter = device->adapter_info().summary();
  matmul_epilogues = graph->matmul_epilogue_count();
  planned_bytes = graph->planned_activation_bytes();
  cat_placed = graph->cat_placed_count();
  cat_not_copied = graph->cat_pieces_not_copied();
  f16_weight_count = graph->f16_weight_count();
  joined_linears = graph->joined_linear_count();

  ValueTable table;
  std::vector<int32_t> args;
  for (const Value& in : inputs) {
    table.values.push_back(in);
    args.push_back(static_cast<int32_t>(table.values.size()) - 1);
  }
  for (int id : outputs_) {
    const V& v = *values_[static_cast<size_t>(id)];
    Tensor t = Tensor::make_owned(v.dtype, v.shape);
    t.dynamism = ShapeDynamism::kDynamicBound;
    table.values.push_back(Value::make_tensor(std::move(t)));
    args.push_back(static_cast<int32_t>(table.values.size()) - 1);
  }
  if (rebuild_for_smaller_inputs && !graph->inputs_fit_placement(table, args)) {
    // As WebGpuDelegate does: an input below its upper bound needs a graph without in-place
    // cats and fixed-shape kernels.
    go.cat_in_place = false;
    go.fixed_shapes = false;
    WICK_ASSIGN_OR_RETURN(graph, webgpu::Graph::build(device, cache.get(), parsed, &named, go));
    dispatches = graph->dispatch_count();
    cat_placed = graph->cat_placed_count();
    cat_not_copied = graph->cat_pieces_not_copied();
  }
  for (const auto& [j, k] : output_topk) WICK_RETURN_IF_ERROR(graph->request_output_topk(j, k));
  WICK_RETURN_IF_ERROR(graph->execute(table, args));
  submits = graph->last_submit().submits;
  kernels.clear();
  for (const webgpu::ProfileEntry& e : graph->last_profile()) kernels.push_back(e.label);
  topk_results.clear();
  for (const auto& [j, k] : output_topk)
    if (const TopK* t = graph->output_topk(j)) topk_results[j] = *t;
  std::vector<Value> outs(table.values.begin() + static_cast<long>(inputs.size()), table.values.end());
  later_outputs.clear();
  later_kernels.clear();
  later_statuses.clear();
  for (const std::vector<Value>& call : later_calls) {
    if (call.size() != inputs.size()) return Status(ErrorCode::kInvalidArgument, "later_calls: input count differs");
    ValueTable again;
    for (const Value& in : call) again.values.push_back(in);
    for (int id : outputs_) {
      const V& v = *values_[static_cast<size_t>(id)];
      Tensor t = Tensor::make_owned(v.dtype, v.shape);
      t.dynamism = ShapeDynamism::kDynamicBound;
      again.values.push_back(Value::make_tensor(std::move(t)));
    }
    Status called = graph->execute(again, args);
    if (!called.ok() && !later_errors_continue) return called;
    later_statuses.push_back(called);
    later_kernels.emplace_back();
    if (!called.ok()) {
      later_outputs.emplace_back();
      continue;
    }
    for (const webgpu::ProfileEntry& e : graph->last_profile()) later_kernels.back().push_back(e.label);
    later_outputs.emplace_back(again.values.begin() + static_cast<long>(call.size()), again.values.end());
  }
  return outs;
}

Tensor random_tensor(ScalarType dtype, std::vector<int64_t> shape, std::mt19937& rng, double lo, double hi) {
  Tensor t = Tensor::make_owned(dtype, std::move(shape));
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double x = u(rng);
    switch (dtype) {
      case ScalarType::kFloat: t.data_as<float>()[i] = static_cast<float>(x); break;
      case ScalarType::kLong: t.data_as<int64_t>()[i] = static_cast<int64_t>(std::floor(x)); break;
      case ScalarType::kInt: t.data_as<int32_t>()[i] = static_cast<int32_t>(std::floor(x)); break;
      case ScalarType::kBool: t.data_as<uint8_t>()[i] = x > (lo + hi) / 2 ? 1 : 0; break;
      default: break;
    }
  }
  return t;
}

size_t count_kernel(const std::vector<std::string>& kernels, const std::string& shader) {
  size_t n = 0;
  for (const std::string& k : kernels) n += k.size() >= shader.size() && k.compare(k.size() - shader.size(), shader.size(), shader) == 0;
  return n;
}

void expect_outputs_near(const std::vector<Value>& got, const std::vector<Value>& want, double tol,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < got.size(); ++o) {
    const Tensor& g = got[o].tensor;
    const Tensor& w = want[o].tensor;
    ASSERT_EQ(g.sizes, w.sizes) << what << " output " << o;
    for (int64_t i = 0; i < g.numel(); ++i) {
      const float a = g.data_as<float>()[i], b = w.data_as<float>()[i];
      ASSERT_NEAR(a, b, tol + tol * std::fabs(b)) << what << " output " << o << " at " << i;
    }
  }
}

float at_f(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case ScalarType::kFloat: return t.data_as<float>()[i];
    case ScalarType::kLong: return static_cast<float>(t.data_as<int64_t>()[i]);
    case ScalarType::kInt: return static_cast<float>(t.data_as<int32_t>()[i]);
    case ScalarType::kBool: case ScalarType::kByte: return t.data_as<uint8_t>()[i];
    default: return 0;
  }
}

Tensor pack_q4gsw_weight(const std::vector<int>& q, int64_t n, int64_t k) {
  const int64_t kp = (k + 1) / 2;
  Tensor w = Tensor::make_owned(ScalarType::kByte, {n, kp});
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < kp; ++j) {
      const int lo = q[static_cast<size_t>(r * k + 2 * j)];
      const int hi = 2 * j + 1 < k ? q[static_cast<size_t>(r * k + 2 * j + 1)] : 0;
      w.data_as<uint8_t>()[r * kp + j] = static_cast<uint8_t>(((hi + 8) << 4) | (lo + 8));
    }
  return w;
}

}  // namespace wick::test
