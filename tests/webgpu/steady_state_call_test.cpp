// A delegate call in steady state creates no WebGPU objects: bind groups, buffers and
// pipelines are made when the graph is built (and staging buffers on the first call), so a
// loop of calls (`wick bench`) only uploads, records, submits and reads back (issue 11's
// host cost per call). Checked on exported programs, plain and profiled: transformers'
// attention pattern (ops/sdpa: matmuls, softmax, masks, with its host ops fused into the
// delegate call; plain) and a convolution (the implicit-GEMM kernel with its repacked
// weights; profiled).
// (The demos' models are too slow on SwiftShader for CI; the same holds there.)
#include <gtest/gtest.h>

#include <string>

#include "gpu/object_counts.h"
#include "runtime/program.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick {
namespace {

void expect_steady(const std::string& fixture, bool profile) {
  webgpu::BackendOptions options;
  options.profile = profile;
  ASSERT_TRUE(webgpu::register_webgpu_backend(options).ok()) << "no WebGPU device";
  test::Fixture f;
  ASSERT_TRUE(test::load_fixture(fixture, &f));
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  const gpu::ObjectCounts before = gpu::object_counts();
  auto method = (*program)->load_method(f.method);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  if (profile) (*method)->set_profiling(true);
  gpu::ObjectCounts after[3];
  for (int call = 0; call < 3; ++call) {
    auto out = (*method)->forward(f.cases[0].inputs);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    after[call] = gpu::object_counts();
  }
  if (profile) (void)webgpu::take_last_profile_rows();  // the rows are kept until taken
  EXPECT_EQ(after[2].buffers, after[1].buffers) << fixture << ": buffers created by a steady-state call";
  EXPECT_EQ(after[2].bind_groups, after[1].bind_groups) << fixture << ": bind groups created by a steady-state call";
  EXPECT_EQ(after[2].pipelines, after[1].pipelines) << fixture << ": pipelines created by a steady-state call";
  EXPECT_GT(after[0].bind_groups, before.bind_groups) << fixture;  // the counters count: building the graph made some
}

// Plain calls as `wick bench` makes them; profiled ones add timestamp queries, made once.
TEST(SteadyStateCall, CreatesNoWebGpuObjects) {
  expect_steady("ops/sdpa", false);
  expect_steady("ops/conv2d_3x3_s1_p1", true);
}

}  // namespace
}  // namespace wick
