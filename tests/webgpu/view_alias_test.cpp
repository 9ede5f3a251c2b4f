// Views that share their input's buffer (GraphOptions::alias_views, webgpu/memory_plan.h):
// the edge cases of the plan, each checked for the values (against the same graph with
// every view copied, and against direct CPU computations) and for the dispatches the views
// no longer cost. The exporter-style mem_obj_ids below are chosen so that aliasing on top
// of them would go wrong: a view's input memory reused while the view is still read.
// Whole programs from the real toolchain (demos/ fixtures with convolutions and many
// views) are built with aliasing off and on at the end.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/program.h"
#include "single_op.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick {
namespace {

Tensor iota_tensor(std::vector<int64_t> shape, float base = 0) {
  Tensor t = Tensor::make_owned(ScalarType::kFloat, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = base + 0.25f * static_cast<float>(i) - 3.f;
  return t;
}

// Runs `b` with and without aliasing; both must give `want` (per output, elementwise
// exact: views move no arithmetic). Returns the recorded command counts {aliased, copied}
// (dispatches and the outputs' readback copies).
std::pair<size_t, size_t> run_both(test::VkGraphBuilder& b, const std::vector<Value>& inputs,
                                   const std::vector<std::vector<float>>& want) {
  size_t counts[2] = {0, 0};
  for (int alias = 1; alias >= 0; --alias) {
    b.alias_views = alias != 0;
    auto r = b.run(inputs);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return {0, 0};
    counts[alias ? 0 : 1] = b.dispatches;
    EXPECT_EQ(r->size(), want.size());
    for (size_t o = 0; o < want.size() && o < r->size(); ++o) {
      const Tensor& got = (*r)[o].tensor;
      EXPECT_EQ(got.numel(), static_cast<int64_t>(want[o].size())) << "output " << o;
      for (int64_t i = 0; i < got.numel() && i < static_cast<int64_t>(want[o].size()); ++i)
        if (got.data_as<float>()[i] != want[o][static_cast<size_t>(i)]) {
          ADD_FAILURE() << "alias " << alias << " output " << o << " at " << i << ": " << got.data_as<float>()[i]
                        << ", want " << want[o][static_cast<size_t>(i)];
          break;
        }
    }
  }
  return {counts[0], counts[1]};
}

std::vector<float> map(const Tensor& t, float (*f)(float)) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = f(t.data_as<float>()[i]);
  return v;
}
float relu(float x) { return x > 0 ? x : 0; }
float neg(float x) { return -x; }
float same(float x) { return x; }

// y = relu(x); out = view(y), a graph output: the view is no dispatch, the readback reads
// y's buffer.
TEST(WebGpuViewAlias, AliasIsAGraphOutput) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {2, 3, 4}, 0);
  int y = b.tensor(ScalarType::kFloat, {2, 3, 4}, 1);
  int v = b.tensor(ScalarType::kFloat, {6, 4}, 2);
  b.op("aten.relu.default", {x, y});
  b.op("aten.view_copy.default", {y, b.int_list({6, 4}), v});
  b.output(v);
  Tensor t = iota_tensor({2, 3, 4});
  auto [aliased, copied] = run_both(b, {Value::make_tensor(t)}, {map(t, relu)});
  EXPECT_EQ(copied - aliased, 1u);  // the view
}

// Views of a graph input: one read by an op, one a graph output itself (no dispatch at all).
TEST(WebGpuViewAlias, AliasOfAGraphInput) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {1, 3, 4}, 0);
  int sq = b.tensor(ScalarType::kFloat, {3, 4}, 1);
  int y = b.tensor(ScalarType::kFloat, {3, 4}, 2);
  int un = b.tensor(ScalarType::kFloat, {1, 1, 3, 4}, 3);
  b.op("aten.squeeze_copy.dims", {x, b.int_list({0}), sq});
  b.op("aten.neg.default", {sq, y});
  b.op("aten.unsqueeze_copy.default", {x, b.int_value(0), un});
  b.output(y);
  b.output(un);
  Tensor t = iota_tensor({1, 3, 4});
  auto [aliased, copied] = run_both(b, {Value::make_tensor(t)}, {map(t, neg), map(t, same)});
  EXPECT_EQ(copied - aliased, 2u);  // squeeze, unsqueeze
}

// The exporter gave z (produced after the view) the view's input memory (mem_obj 1): it
// saw y dead after the view. With y and v one buffer, z must go elsewhere, or v (read by
// the add after z is written) would read z.
TEST(WebGpuViewAlias, AliasReadAfterItsSourceIsDead) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {4, 5}, 0);
  int y = b.tensor(ScalarType::kFloat, {4, 5}, 1);
  int v = b.tensor(ScalarType::kFloat, {20}, 2);
  int z = b.tensor(ScalarType::kFloat, {20}, 1);  // the exporter's reuse of y's memory
  int xf = b.tensor(ScalarType::kFloat, {20}, 3);
  int out = b.tensor(ScalarType::kFloat, {20}, 4);
  b.fuse_chains = false;  // neg + add would be one chain in one plan and not the other
  b.op("aten.relu.default", {x, y});
  b.op("aten.view_copy.default", {y, b.int_list({20}), v});
  b.op("aten.view_copy.default", {x, b.int_list({20}), xf});
  b.op("aten.neg.default", {xf, z});
  b.op("aten.add.Tensor", {v, z, b.int_value(1), out});
  b.output(out);
  Tensor t = iota_tensor({4, 5});
  std::vector<float> want(20);
  for (size_t i = 0; i < 20; ++i) want[i] = relu(t.data_as<float>()[i]) - t.data_as<float>()[i];
  auto [aliased, copied] = run_both(b, {Value::make_tensor(t)}, {want});
  EXPECT_EQ(copied - aliased, 2u);  // the two views
}

// A chain of views (view, unsqueeze, squeeze, clone, a permute that only moves a size-1
// dim) between two ops, and a real permute that must stay a copy.
TEST(WebGpuViewAlias, ChainsOfViews) {
  test::VkGraphBuilder b;
  int x = b.input(ScalarType::kFloat, {2, 6}, 0);
  int y = b.tensor(ScalarType::kFloat, {2, 6}, 1);
  int a = b.tensor(ScalarType::kFloat, {3, 4}, 2);
  int c = b.tensor(ScalarType::kFloat, {3, 1, 4}, 3);
  int d = b.tensor(ScalarType::kFloat, {1, 3, 4}, 2);
  int e = b.tensor(ScalarType::kFloat, {3, 4}, 3);
  int f = b.tensor(ScalarType::kFloat, {3, 4}, 2);
  int out = b.tensor(ScalarType::kFloat, {3, 4}, 3);
  int tr = b.tensor(ScalarType::kFloat, {4, 3}, 4);
  b.op("aten.relu.default", {x, y});
  b.op("aten.view_copy.default", {y, b.int_list({3, 4}), a});
  b.op("aten.unsqueeze_copy.default", {a, b.int_value(1), c});
  b.op("aten.permute_copy.default", {c, b.int_list({1, 0, 2}), d});
  b.op("aten.squeeze_copy.dims", {d, b.int_list({0}), e});
  b.op("aten.clone.default", {e, b.none(), f});
  b.op("aten.neg.default", {f, out});
  b.op("aten.permute_copy.default", {f, b.int_list({1, 0}), tr});
  b.output(out);
  b.output(tr);
  Tensor t = iota_tensor({2, 6});
  std::vector<float> transposed(12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) transposed[static_cast<size_t>(j * 3 + i)] = relu(t.data_as<float>()[i * 4 + j]);
  std::vector<float> negrelu = map(t, relu);
  for (float& v : negrelu) v = -v;
  auto [aliased, copied] = run_both(b, {Value::make_tensor(t)}, {negrelu, transposed});
  EXPECT_EQ(copied - aliased, 5u);  // all but the transpose
}

// A tensor written in place (update_cache's cache, a graph input here) aliases nothing: the
// clone taken before the update must keep the old rows.
TEST(WebGpuViewAlias, TensorWrittenInPlaceIsNeverAliased) {
  const int64_t cmax = 4, h = 2, d = 3;
  test::VkGraphBuilder b;
  int pos = b.input(ScalarType::kInt, {1}, 0);
  int value = b.input(ScalarType::kFloat, {1, 1, h, d}, 1);
  int cache = b.input(ScalarType::kFloat, {1, cmax, h, d}, 2);
  int start = b.symint();
  int zero = b.int_value(0);
  int before = b.tensor(ScalarType::kFloat, {1, cmax, h, d}, 3);
  int placeholder = b.tensor(ScalarType::kFloat, {1}, 4);
  int after = b.tensor(ScalarType::kFloat, {1, cmax, h, d}, 5);
  b.op("et_vk.select_as_symint.default", {pos, zero, zero, start});
  b.op("aten.clone.default", {cache, b.none(), before});
  b.op("update_cache.default", {value, cache, start, placeholder});
  b.op("aten.clone.default", {cache, b.none(), after});
  b.output(before);
  b.output(after);
  Tensor p = Tensor::make_owned(ScalarType::kInt, {1});
  p.data_as<int32_t>()[0] = 2;
  Tensor v = iota_tensor({1, 1, h, d}, 100);
  Tensor c = iota_tensor({1, cmax, h, d});
  std::vector<float> old = map(c, same), updated = old;
  for (int64_t i = 0; i < h * d; ++i) updated[static_cast<size_t>(2 * h * d + i)] = v.data_as<float>()[i];
  run_both(b, {Value::make_tensor(p), Value::make_tensor(v), Value::make_tensor(c)}, {old, updated});
}

// Real programs (ExecuTorch 1.5 exports with VulkanPartitioner): the dispatches their graphs
// record with every view copied and with views aliased (their outputs with aliasing, the
// default, are checked against PyTorch by delegate_fixtures_test.cpp). Only built, not run:
// a run costs minutes on SwiftShader.
size_t recorded_dispatches(const std::string& rel, bool alias) {
  webgpu::BackendOptions o;
  o.alias_views = alias;
  Status s = webgpu::register_webgpu_backend(o);
  EXPECT_TRUE(s.ok()) << "no WebGPU device: " << s.to_string();
  if (!s.ok()) return 0;
  test::Fixture f;
  EXPECT_TRUE(test::load_fixture(rel, &f));
  auto program = Program::load_file(f.pte());
  EXPECT_TRUE(program.ok()) << program.status().to_string();
  if (!program.ok()) return 0;
  auto method = (*program)->load_method(f.method);
  EXPECT_TRUE(method.ok()) << method.status().to_string();
  std::FILE* tmp = std::tmpfile();
  webgpu::print_last_graph_summary(tmp);
  std::rewind(tmp);
  char line[512] = {0};
  size_t graphs = 0, dispatches = 0;
  if (std::fgets(line, sizeof line, tmp) == nullptr || std::sscanf(line, "webgpu: %zu graph(s), %zu dispatches", &graphs, &dispatches) != 2)
    ADD_FAILURE() << "no graph summary: " << line;
  std::fclose(tmp);
  return dispatches;
}

TEST(WebGpuViewAlias, DemoProgramsRecordFewerDispatches) {
  // Convolutions, views, squeezes and permutes: the tiny Whisper encoder (5 delegates fused
  // into one call; 156 -> 123). demos/depth_anything_v2_tiny (382 -> 312) takes a minute more.
  for (const char* rel : {"demos/whisper_tiny_encoder"}) {
    const size_t copied = recorded_dispatches(rel, false);
    const size_t aliased = recorded_dispatches(rel, true);
    std::printf("%s: %zu dispatches recorded with every view copied, %zu with views aliased\n", rel, copied, aliased);
    EXPECT_GT(copied, 0u) << rel;
    EXPECT_LT(aliased + 20, copied) << rel;
  }
  Status s = webgpu::register_webgpu_backend();  // the default backend for later tests
  EXPECT_TRUE(s.ok()) << s.to_string();
}

}  // namespace
}  // namespace wick
