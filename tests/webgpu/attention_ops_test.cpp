// Randomized tests of the LLM attention operators (ops/attention) against CPU references:
// sdpa_with_kv_cache (GQA, causal, dynamic S, KV cache persisting across executions),
// et_vk.apply_rotary_emb (Llama interleaved), et_vk.apply_rotary_emb_hf (rotate-half with
// start_pos) and et_vk.select_as_symint.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "format/named_data.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"
#include "single_op.h"
#include "vk00_generated.h"
#include "webgpu/graph.h"
#include "webgpu/wgsl_shaders.h"

namespace wick {
namespace {

// A VK00 graph built once and executed several times (test::VkGraphBuilder runs a fresh
// graph per call, which cannot show state kept across executions, e.g. the KV cache).
class StatefulGraph {
 public:
  int input(ScalarType dtype, std::vector<int64_t> shape) {
    int id = tensor(dtype, std::move(shape));
    inputs_.push_back(id);
    return id;
  }
  int tensor(ScalarType dtype, std::vector<int64_t> shape) {
    V v;
    v.kind = V::kTensor;
    v.dtype = dtype;
    v.shape = std::move(shape);
    return add(v);
  }
  // A float32 zero constant (as the exporter serializes the KV caches).
  int zeros(std::vector<int64_t> shape) {
    V v;
    v.kind = V::kTensor;
    v.shape = std::move(shape);
    v.constant_id = static_cast<int>(named_.size());
    v.key = "const_" + std::to_string(named_.size());
    named_[v.key] = std::vector<uint8_t>(static_cast<size_t>(shape_numel(v.shape)) * 4, 0);
    return add(v);
  }
  int int_value(int64_t x) { V v; v.kind = V::kInt; v.i = x; return add(v); }
  int double_value(double x) { V v; v.kind = V::kDouble; v.d = x; return add(v); }
  int bool_value(bool x) { V v; v.kind = V::kBool; v.i = x; return add(v); }
  int none() { V v; v.kind = V::kNone; return add(v); }
  int symint() { V v; v.kind = V::kSymInt; return add(v); }
  int value_list(std::vector<int> ids) { V v; v.kind = V::kValueList; v.items = std::move(ids); return add(v); }
  void op(const std::string& name, std::vector<int> args) { ops_.emplace_back(name, std::move(args)); }
  void output(int id) { outputs_.push_back(id); }

  Status build() {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<flatbuffers::Offset<vk::VkValue>> values;
    std::vector<flatbuffers::Offset<vk::VkBytes>> constants(named_.size());
    for (const V& v : values_) {
      switch (v.kind) {
        case V::kTensor: {
          std::vector<uint32_t> dims(v.shape.begin(), v.shape.end());
          vk::VkDataType dt = v.dtype == ScalarType::kFloat ? vk::VkDataType::FLOAT32 : vk::VkDataType::INT32;
          auto t = vk::CreateVkTensorDirect(fbb, dt, &dims, v.constant_id, -1);
          values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::VkTensor, t.Union()));
          if (v.constant_id >= 0)
            constants[static_cast<size_t>(v.constant_id)] =
                vk::CreateVkBytesDirect(fbb, UINT64_MAX, named_[v.key].size(), v.key.c_str());
          break;
        }
        case V::kInt: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::Int, vk::CreateInt(fbb, v.i).Union())); break;
        case V::kDouble: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::Double, vk::CreateDouble(fbb, v.d).Union())); break;
        case V::kBool: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::Bool, vk::CreateBool(fbb, v.i != 0).Union())); break;
        case V::kNone: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::Null, vk::CreateNull(fbb).Union())); break;
        case V::kSymInt: values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::SymInt, vk::CreateSymInt(fbb, 0).Union())); break;
        case V::kValueList: {
          std::vector<int32_t> items(v.items.begin(), v.items.end());
          values.push_back(vk::CreateVkValue(fbb, vk::GraphTypes::ValueList, vk::CreateValueListDirect(fbb, &items).Union()));
          break;
        }
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
    WICK_ASSIGN_OR_RETURN(AlignedBuffer aligned, AlignedBuffer::allocate(blob.size(), "the test's VK00 blob"));
    aligned_ = std::make_unique<AlignedBuffer>(std::move(aligned));
    std::memcpy(aligned_->data(), blob.data(), blob.size());
    // Leaked on purpose (see single_op.cpp): no device teardown from static destructors.
    static auto& device = *new std::shared_ptr<gpu::Device>();
    static auto& cache = *new std::shared_ptr<gpu::PipelineCache>();
    if (!device || device->is_lost()) {
      WICK_ASSIGN_OR_RETURN(device, gpu::Device::create());
      cache = std::make_shared<gpu::PipelineCache>(device, webgpu::find_wgsl);
    }
    WICK_ASSIGN_OR_RETURN(vkgraph::VkBlob parsed, vkgraph::parse_vk_blob(aligned_->bytes()));
    MapData named(named_);
    WICK_ASSIGN_OR_RETURN(graph_, webgpu::Graph::build(device, cache.get(), parsed, &named, {}));
    return {};
  }

  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs) {
    ValueTable table;
    std::vector<int32_t> args;
    for (const Tensor& in : inputs) {
      table.values.push_back(Value::make_tensor(in));
      args.push_back(static_cast<int32_t>(table.values.size()) - 1);
    }
    for (int id : outputs_) {
      const V& v = values_[static_cast<size_t>(id)];
      Tensor t = Tensor::make_owned(v.dtype, v.shape);
      t.dynamism = ShapeDynamism::kDynamicBound;
      table.values.push_back(Value::make_tensor(std::move(t)));
      args.push_back(static_cast<int32_t>(table.values.size()) - 1);
    }
    WICK_RETURN_IF_ERROR(graph_->execute(table, args));
    std::vector<Tensor> outs;
    for (size_t i = inputs.size(); i < table.values.size(); ++i) outs.push_back(table.values[i].tensor);
    return outs;
  }

 private:
  struct V {
    enum Kind { kTensor, kInt, kDouble, kBool, kNone, kSymInt, kValueList } kind = kNone;
    ScalarType dtype = ScalarType::kFloat;
    std::vector<int64_t> shape;
    int constant_id = -1;
    std::string key;
    int64_t i = 0;
    double d = 0;
    std::vector<int> items;
  };
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
  int add(V v) {
    values_.push_back(std::move(v));
    return static_cast<int>(values_.size()) - 1;
  }
  std::vector<V> values_;
  std::vector<std::pair<std::string, std::vector<int>>> ops_;
  std::vector<int> inputs_, outputs_;
  std::map<std::string, std::vector<uint8_t>> named_;
  std::unique_ptr<AlignedBuffer> aligned_;
  std::unique_ptr<webgpu::Graph> graph_;
};

Tensor int_tensor(std::vector<int64_t> shape, std::vector<int64_t> v) {
  Tensor t = Tensor::make_owned(ScalarType::kLong, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

// CPU reference of sdpa_with_kv_cache; updates the reference caches like the op does.
std::vector<float> ref_sdpa(const Tensor& q, const Tensor& k, const Tensor& v, std::vector<float>& kc,
                            std::vector<float>& vc, int64_t start_pos, int64_t hq, int64_t hkv, int64_t d,
                            float scale, bool causal) {
  const int64_t s_len = q.sizes[1];
  for (int64_t i = 0; i < s_len * hkv * d; ++i) {
    kc[static_cast<size_t>(start_pos * hkv * d + i)] = k.data_as<float>()[i];
    vc[static_cast<size_t>(start_pos * hkv * d + i)] = v.data_as<float>()[i];
  }
  std::vector<float> out(static_cast<size_t>(s_len * hq * d));
  for (int64_t s = 0; s < s_len; ++s)
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t kvh = h / (hq / hkv);
      const int64_t len = causal ? start_pos + s + 1 : start_pos + s_len;
      std::vector<double> w(static_cast<size_t>(len));
      double mx = -1e300;
      for (int64_t j = 0; j < len; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < d; ++e)
          dot += double(q.data_as<float>()[(s * hq + h) * d + e]) * kc[static_cast<size_t>((j * hkv + kvh) * d + e)];
        w[static_cast<size_t>(j)] = dot * scale;
        mx = std::max(mx, w[static_cast<size_t>(j)]);
      }
      double sum = 0;
      for (double& x : w) sum += (x = std::exp(x - mx));
      for (int64_t e = 0; e < d; ++e) {
        double acc = 0;
        for (int64_t j = 0; j < len; ++j) acc += w[static_cast<size_t>(j)] * vc[static_cast<size_t>((j * hkv + kvh) * d + e)];
        out[static_cast<size_t>((s * hq + h) * d + e)] = static_cast<float>(acc / sum);
      }
    }
  return out;
}

struct SdpaCase {
  int64_t hq, hkv, d, cmax, smax;
  std::vector<std::pair<int64_t, int64_t>> steps;  // (start_pos, S) per execution
  bool explicit_scale;
  bool rank3_out;
};

TEST(WebGpuAttentionOp, SdpaWithKvCacheGqaAcrossExecutions) {
  std::mt19937 rng(11);
  const std::vector<SdpaCase> cases = {
      {4, 2, 16, 32, 8, {{0, 5}, {5, 1}, {6, 1}, {7, 3}}, false, false},  // qwen3-like prefill + decode
      {8, 2, 72, 160, 70, {{0, 70}, {70, 1}, {71, 2}, {73, 64}}, true, true},  // multi-tile, D > 64
      {3, 3, 8, 16, 4, {{2, 1}, {3, 4}}, false, false},                      // MHA, first step at pos 2
  };
  for (const SdpaCase& c : cases) {
    StatefulGraph g;
    int pos = g.input(ScalarType::kInt, {1});
    int q = g.input(ScalarType::kFloat, {1, c.smax, c.hq, c.d});
    int k = g.input(ScalarType::kFloat, {1, c.smax, c.hkv, c.d});
    int v = g.input(ScalarType::kFloat, {1, c.smax, c.hkv, c.d});
    int kc = g.zeros({1, c.cmax, c.hkv, c.d});
    int vc = g.zeros({1, c.cmax, c.hkv, c.d});
    int zero = g.int_value(0);
    int start = g.symint();
    g.op("et_vk.select_as_symint.default", {pos, zero, zero, start});
    int out = c.rank3_out ? g.tensor(ScalarType::kFloat, {1, c.smax, c.hq * c.d})
                          : g.tensor(ScalarType::kFloat, {1, c.smax, c.hq, c.d});
    const float scale = c.explicit_scale ? 0.3f : static_cast<float>(1.0 / std::sqrt(double(c.d)));
    g.op("sdpa_with_kv_cache.default", {q, k, v, kc, vc, start, g.int_value(1), g.none(), zero, g.bool_value(true),
                                        c.explicit_scale ? g.double_value(0.3) : g.none(), out});
    g.output(out);
    Status st = g.build();
    ASSERT_TRUE(st.ok()) << st.to_string();
    std::vector<float> ref_kc(static_cast<size_t>(c.cmax * c.hkv * c.d), 0), ref_vc = ref_kc;
    for (auto [start_pos, s] : c.steps) {
      Tensor tq = test::random_tensor(ScalarType::kFloat, {1, s, c.hq, c.d}, rng);
      Tensor tk = test::random_tensor(ScalarType::kFloat, {1, s, c.hkv, c.d}, rng);
      Tensor tv = test::random_tensor(ScalarType::kFloat, {1, s, c.hkv, c.d}, rng);
      auto r = g.run({int_tensor({1}, {start_pos}), tq, tk, tv});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      std::vector<float> want = ref_sdpa(tq, tk, tv, ref_kc, ref_vc, start_pos, c.hq, c.hkv, c.d, scale, true);
      const Tensor& got = (*r)[0];
      if (c.rank3_out) ASSERT_EQ(got.sizes, (std::vector<int64_t>{1, s, c.hq * c.d}));
      else ASSERT_EQ(got.sizes, (std::vector<int64_t>{1, s, c.hq, c.d}));
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got.data_as<float>()[i], want[i], 1e-4 + 1e-4 * std::fabs(want[i]))
            << "start_pos " << start_pos << " S " << s << " at " << i;
    }
  }
}

TEST(WebGpuAttentionOp, SdpaRejectsPositionsPastTheCache) {
  StatefulGraph g;
  int pos = g.input(ScalarType::kInt, {1});
  int q = g.input(ScalarType::kFloat, {1, 2, 2, 4});
  int k = g.input(ScalarType::kFloat, {1, 2, 1, 4});
  int v = g.input(ScalarType::kFloat, {1, 2, 1, 4});
  int kc = g.zeros({1, 4, 1, 4});
  int vc = g.zeros({1, 4, 1, 4});
  int zero = g.int_value(0);
  int start = g.symint();
  g.op("et_vk.select_as_symint.default", {pos, zero, zero, start});
  int out = g.tensor(ScalarType::kFloat, {1, 2, 2, 4});
  g.op("sdpa_with_kv_cache.default",
       {q, k, v, kc, vc, start, g.int_value(1), g.none(), zero, g.bool_value(true), g.none(), out});
  g.output(out);
  ASSERT_TRUE(g.build().ok());
  std::mt19937 rng(1);
  auto r = g.run({int_tensor({1}, {3}), test::random_tensor(ScalarType::kFloat, {1, 2, 2, 4}, rng),
                  test::random_tensor(ScalarType::kFloat, {1, 2, 1, 4}, rng),
                  test::random_tensor(ScalarType::kFloat, {1, 2, 1, 4}, rng)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cache length"), std::string::npos) << r.status().message();
}

// update_cache writes value [1,S,H,D] into the cache at start_pos (a SymInt from the input),
// and the cache keeps earlier rows across executions: checked exactly after each step
// through a clone of the cache.
TEST(WebGpuAttentionOp, UpdateCacheAcrossExecutions) {
  std::mt19937 rng(3);
  const int64_t cmax = 8, h = 2, d = 4, smax = 3;
  StatefulGraph g;
  int pos = g.input(ScalarType::kInt, {1});
  int value = g.input(ScalarType::kFloat, {1, smax, h, d});
  int cache = g.zeros({1, cmax, h, d});
  int zero = g.int_value(0);
  int start = g.symint();
  g.op("et_vk.select_as_symint.default", {pos, zero, zero, start});
  int placeholder = g.tensor(ScalarType::kFloat, {1});
  g.op("update_cache.default", {value, cache, start, placeholder});
  int copy = g.tensor(ScalarType::kFloat, {1, cmax, h, d});
  g.op("aten.clone.default", {cache, g.none(), copy});
  g.output(copy);
  ASSERT_TRUE(g.build().ok());
  std::vector<float> ref(static_cast<size_t>(cmax * h * d), 0);
  for (auto [start_pos, s] : std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {3, 1}, {4, 2}, {1, 1}}) {
    Tensor tv = test::random_tensor(ScalarType::kFloat, {1, s, h, d}, rng);
    auto r = g.run({int_tensor({1}, {start_pos}), tv});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int64_t i = 0; i < s * h * d; ++i) ref[static_cast<size_t>(start_pos * h * d + i)] = tv.data_as<float>()[i];
    const Tensor& got = (*r)[0];
    ASSERT_EQ(got.numel(), cmax * h * d);
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(got.data_as<float>()[i], ref[i]) << "start_pos " << start_pos << " at " << i;
  }
  Tensor tv = test::random_tensor(ScalarType::kFloat, {1, 2, h, d}, rng);
  auto r = g.run({int_tensor({1}, {7}), tv});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cache length"), std::string::npos) << r.status().message();
}

TEST(WebGpuAttentionOp, RotaryLlamaInterleaved) {
  std::mt19937 rng(5);
  struct C { int64_t b, s, hq, hk, d; };
  for (C c : {C{1, 1, 4, 2, 16}, C{1, 7, 3, 1, 8}, C{2, 5, 8, 4, 64}}) {
    test::VkGraphBuilder b;
    int xq = b.input(ScalarType::kFloat, {c.b, c.s, c.hq, c.d});
    int xk = b.input(ScalarType::kFloat, {c.b, c.s, c.hk, c.d});
    int fc = b.input(ScalarType::kFloat, {c.s, c.d / 2});
    int fs = b.input(ScalarType::kFloat, {c.s, c.d / 2});
    int oq = b.tensor(ScalarType::kFloat, {c.b, c.s, c.hq, c.d});
    int ok = b.tensor(ScalarType::kFloat, {c.b, c.s, c.hk, c.d});
    b.op("et_vk.apply_rotary_emb.default", {xq, xk, fc, fs, b.value_list({oq, ok})});
    b.output(oq);
    b.output(ok);
    Tensor tq = test::random_tensor(ScalarType::kFloat, {c.b, c.s, c.hq, c.d}, rng);
    Tensor tk = test::random_tensor(ScalarType::kFloat, {c.b, c.s, c.hk, c.d}, rng);
    Tensor tc = test::random_tensor(ScalarType::kFloat, {c.s, c.d / 2}, rng, -1, 1);
    Tensor ts = test::random_tensor(ScalarType::kFloat, {c.s, c.d / 2}, rng, -1, 1);
    auto r = b.run({Value::make_tensor(tq), Value::make_tensor(tk), Value::make_tensor(tc), Value::make_tensor(ts)});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int which = 0; which < 2; ++which) {
      const Tensor& x = which == 0 ? tq : tk;
      const Tensor& got = (*r)[static_cast<size_t>(which)].tensor;
      ASSERT_EQ(got.sizes, x.sizes);
      const int64_t h = x.sizes[2];
      for (int64_t i = 0; i < x.numel(); i += 2) {
        const int64_t d = i % c.d, s = (i / (c.d * h)) % c.s;
        const float cs = tc.data_as<float>()[s * c.d / 2 + d / 2], sn = ts.data_as<float>()[s * c.d / 2 + d / 2];
        const float xr = x.data_as<float>()[i], xi = x.data_as<float>()[i + 1];
        ASSERT_NEAR(got.data_as<float>()[i], xr * cs - xi * sn, 1e-5) << which << " at " << i;
        ASSERT_NEAR(got.data_as<float>()[i + 1], xr * sn + xi * cs, 1e-5) << which << " at " << i + 1;
      }
    }
  }
}

TEST(WebGpuAttentionOp, RotaryHfWithStartPosAndDynamicLength) {
  std::mt19937 rng(9);
  const int64_t smax = 6, hq = 4, hk = 2, d = 16, rows = 32;
  StatefulGraph g;
  // input_pos [2]: select_as_symint takes the last element (index -1), as in qwen3.
  int pos = g.input(ScalarType::kInt, {2});
  int xq = g.input(ScalarType::kFloat, {1, smax, hq, d});
  int xk = g.input(ScalarType::kFloat, {1, smax, hk, d});
  int fc = g.input(ScalarType::kFloat, {rows, d});
  int fs = g.input(ScalarType::kFloat, {rows, d});
  int start = g.symint();
  g.op("et_vk.select_as_symint.default", {pos, g.int_value(0), g.int_value(-1), start});
  int oq = g.tensor(ScalarType::kFloat, {1, smax, hq, d});
  int ok = g.tensor(ScalarType::kFloat, {1, smax, hk, d});
  g.op("et_vk.apply_rotary_emb_hf.default", {xq, xk, fc, fs, start, g.value_list({oq, ok})});
  g.output(oq);
  g.output(ok);
  Status st = g.build();
  ASSERT_TRUE(st.ok()) << st.to_string();
  Tensor tc = test::random_tensor(ScalarType::kFloat, {rows, d}, rng, -1, 1);
  Tensor ts = test::random_tensor(ScalarType::kFloat, {rows, d}, rng, -1, 1);
  for (auto [start_pos, s] : std::vector<std::pair<int64_t, int64_t>>{{0, 5}, {5, 1}, {20, 6}, {31, 1}}) {
    Tensor tq = test::random_tensor(ScalarType::kFloat, {1, s, hq, d}, rng);
    Tensor tk = test::random_tensor(ScalarType::kFloat, {1, s, hk, d}, rng);
    auto r = g.run({int_tensor({2}, {99, start_pos}), tq, tk, tc, ts});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int which = 0; which < 2; ++which) {
      const Tensor& x = which == 0 ? tq : tk;
      const Tensor& got = (*r)[static_cast<size_t>(which)];
      ASSERT_EQ(got.sizes, x.sizes);
      const int64_t h = x.sizes[2], half = d / 2;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t e = i % d, pos_row = start_pos + (i / (d * h)) % s;
        const float cs = tc.data_as<float>()[pos_row * d + e], sn = ts.data_as<float>()[pos_row * d + e];
        const float rot = e < half ? -x.data_as<float>()[i + half] : x.data_as<float>()[i - half];
        const float want = x.data_as<float>()[i] * cs + rot * sn;
        ASSERT_NEAR(got.data_as<float>()[i], want, 1e-5) << "pos " << start_pos << " tensor " << which << " at " << i;
      }
    }
  }
}

TEST(WebGpuAttentionOp, SelectAsSymIntFollowsEachExecution) {
  // The SymInt drives the rotary table row, so a stale value would show in the output.
  StatefulGraph g;
  int pos = g.input(ScalarType::kInt, {1, 3});
  int xq = g.input(ScalarType::kFloat, {1, 1, 1, 2});
  int fc = g.input(ScalarType::kFloat, {8, 2});
  int fs = g.input(ScalarType::kFloat, {8, 2});
  int start = g.symint();
  g.op("et_vk.select_as_symint.default", {pos, g.int_value(1), g.int_value(2), start});
  int oq = g.tensor(ScalarType::kFloat, {1, 1, 1, 2});
  int ok = g.tensor(ScalarType::kFloat, {1, 1, 1, 2});
  g.op("et_vk.apply_rotary_emb_hf.default", {xq, xq, fc, fs, start, g.value_list({oq, ok})});
  g.output(oq);
  ASSERT_TRUE(g.build().ok());
  Tensor x = Tensor::make_owned(ScalarType::kFloat, {1, 1, 1, 2});
  x.data_as<float>()[0] = 1;
  x.data_as<float>()[1] = 0;
  Tensor tc = Tensor::make_owned(ScalarType::kFloat, {8, 2}), ts = Tensor::make_owned(ScalarType::kFloat, {8, 2});
  for (int i = 0; i < 16; ++i) {
    tc.data_as<float>()[i] = static_cast<float>(i / 2);  // cos row r = r
    ts.data_as<float>()[i] = 0;
  }
  for (int64_t p : {3, 0, 7, 5}) {
    auto r = g.run({int_tensor({1, 3}, {-1, -1, p}), x, tc, ts});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ((*r)[0].data_as<float>()[0], static_cast<float>(p));
  }
}

}  // namespace
}  // namespace wick
