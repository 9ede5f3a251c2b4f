// gpu/buffer, gpu/pipeline, gpu/command: a WGSL kernel end to end, checked against the CPU.
// Shaders: tests/gpu/wgsl/axpb.wgsl, tests/gpu/wgsl/broken_syntax.wgsl,
// tests/gpu/wgsl/workgroup_zero.wgsl.
#include <gtest/gtest.h>

#ifdef WICK_HAVE_WEBGPU

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/command.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"
#include "gpu/wgsl_registry.h"
#include "gpu_test_util.h"
#include "webgpu/wgsl_shaders.h"

namespace wick::gpu {
namespace {

struct AxpbParams {
  uint32_t n;
  float a;
  float b;
  uint32_t pad;
};
static_assert(sizeof(AxpbParams) == 16);

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;
  return v;
}

// y = a*x + b: bindings 0 = x, 1 = y, 2 = params.
Dispatch axpb(std::shared_ptr<const ComputePipeline> pipeline, const Buffer& x, const Buffer& y,
              const Buffer& params, uint32_t groups, std::string label = "") {
  Dispatch d;
  d.pipeline = std::move(pipeline);
  d.bindings = {{.binding = 0, .buffer = &x}, {.binding = 1, .buffer = &y},
                {.binding = 2, .buffer = &params}};
  d.x = groups;
  d.label = std::move(label);
  return d;
}

PipelineCache test_cache(std::shared_ptr<Device> device) {
  return PipelineCache(std::move(device), [](std::string_view name) { return test::find_wgsl(name); });
}

TEST(GpuDispatch, TestShadersAreEmbedded) {
  EXPECT_FALSE(test::find_wgsl("axpb").empty());
  EXPECT_NE(test::find_wgsl("axpb").find("params.a * x[i] + params.b"), std::string_view::npos);
  EXPECT_TRUE(test::find_wgsl("no_such_shader").empty());
  // The delegate's registry is separate: test shaders never reach it.
  EXPECT_TRUE(webgpu::find_wgsl("axpb").empty());
  for (std::string_view name : webgpu::wgsl_names()) EXPECT_FALSE(webgpu::find_wgsl(name).empty()) << name;
}

TEST(GpuBuffer, RoundTripsOddSizesAndOffsets) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  const size_t bytes = 1001;  // not a multiple of 4
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(i * 7 + 3);
  Result<Buffer> buffer = Buffer::create_storage(device, bytes, "odd");
  ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
  EXPECT_EQ(buffer.value().size(), bytes);
  EXPECT_EQ(buffer.value().allocated_size(), 1004u);
  ASSERT_TRUE(buffer.value().write(data.data(), bytes).ok());

  std::vector<uint8_t> back(bytes);
  ASSERT_TRUE(buffer.value().read(back.data(), bytes).ok());
  EXPECT_EQ(back, data);
  uint8_t middle[5];
  ASSERT_TRUE(buffer.value().read(middle, 5, 13).ok());  // unaligned offset and size
  EXPECT_EQ(std::memcmp(middle, data.data() + 13, 5), 0);

  // Misuse is an error value, not a crash.
  EXPECT_EQ(buffer.value().read(back.data(), 8, 1000).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(buffer.value().write(data.data(), 3, 0).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(buffer.value().write(data.data(), 4, 2).code(), ErrorCode::kInvalidArgument);
  Result<Buffer> huge = Buffer::create_storage(device, device->limits().max_buffer_size + 4, "huge");
  EXPECT_EQ(huge.status().code(), ErrorCode::kOutOfResources) << huge.status().to_string();
  EXPECT_TRUE(device->check().ok());
}

TEST(GpuDispatch, AxpbMatchesCpuOnOddSize) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  const uint32_t n = 100003;  // odd, > 100k
  const float a = 1.5f, b = -0.75f;
  const uint32_t wg = 64;
  std::vector<float> x = ramp(n);

  auto xb = Buffer::create_storage(device, n * sizeof(float), "x");
  auto yb = Buffer::create_storage(device, n * sizeof(float), "y");
  auto pb = Buffer::create_uniform(device, sizeof(AxpbParams), "params");
  ASSERT_TRUE(xb.ok() && yb.ok() && pb.ok());
  ASSERT_TRUE(xb.value().write(std::span<const float>(x)).ok());
  AxpbParams params{n, a, b, 0};
  ASSERT_TRUE(pb.value().write(&params, sizeof params).ok());

  PipelineCache cache = test_cache(device);
  auto pipeline = cache.get(PipelineKey("axpb").set("wg_size", wg));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();

  CommandList list(device);
  auto index = list.add(axpb(pipeline.value(), xb.value(), yb.value(), pb.value(), (n + wg - 1) / wg));
  ASSERT_TRUE(index.ok()) << index.status().to_string();
  auto stats = list.submit();
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_EQ(stats.value().dispatches, 1u);

  std::vector<float> y(n);
  ASSERT_TRUE(yb.value().read(std::span<float>(y)).ok());
  size_t mismatches = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const float want = a * x[i] + b;
    if (std::fabs(y[i] - want) > 1e-5f * (1.0f + std::fabs(want))) {
      if (mismatches++ < 5) ADD_FAILURE() << "y[" << i << "] = " << y[i] << ", want " << want;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

// Workgroup memory reads as zero before a workgroup writes it, in every one of 256
// workgroups (workgroup_zero.wgsl: each then fills it with nonzero values). On the CPU
// adapters the device zeroes it through Tint's loop rather than Vulkan's extension (faster
// to compile on SwiftShader); with Dawn's disable_workgroup_init instead, SwiftShader gave
// 15,360 of these 16,384 sums nonzero.
TEST(GpuDispatch, WorkgroupMemoryStartsZeroed) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  const uint32_t groups = 256, n = groups * 64;
  auto out = Buffer::create_storage(device, n * 4, "sums");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  PipelineCache cache = test_cache(device);
  auto pipeline = cache.get(PipelineKey("workgroup_zero"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  Dispatch d;
  d.pipeline = pipeline.value();
  d.bindings = {{.binding = 0, .buffer = &out.value()}};
  d.x = groups;
  CommandList list(device);
  ASSERT_TRUE(list.add(std::move(d)).ok());
  auto stats = list.submit();
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  std::vector<float> sums(n);
  ASSERT_TRUE(out.value().read(std::span<float>(sums)).ok());
  size_t nonzero = 0;
  for (float v : sums) nonzero += v != 0.0f;
  EXPECT_EQ(nonzero, 0u) << "workgroups that read nonzero workgroup memory before writing it";
}

TEST(GpuDispatch, ChainedDispatchesCopiesAndResize) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  const uint32_t n = 4099;
  const uint32_t wg = 128;
  std::vector<float> x = ramp(n);
  auto xb = Buffer::create_storage(device, n * 4, "x");
  auto yb = Buffer::create_storage(device, n * 4, "y");
  auto zb = Buffer::create_storage(device, n * 4, "z");
  auto cb = Buffer::create_storage(device, n * 4, "copy");
  auto p1 = Buffer::create_uniform(device, 16, "p1");
  auto p2 = Buffer::create_uniform(device, 16, "p2");
  ASSERT_TRUE(xb.ok() && yb.ok() && zb.ok() && cb.ok() && p1.ok() && p2.ok());
  ASSERT_TRUE(xb.value().write(std::span<const float>(x)).ok());
  AxpbParams a1{n, 2.0f, 1.0f, 0}, a2{n, -0.5f, 3.0f, 0};
  ASSERT_TRUE(p1.value().write(&a1, 16).ok());
  ASSERT_TRUE(p2.value().write(&a2, 16).ok());

  PipelineCache cache = test_cache(device);
  auto pipeline = cache.get(PipelineKey("axpb").set("wg_size", wg));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  const uint32_t groups = (n + wg - 1) / wg;
  CommandList list(device);
  // y = 2x + 1; z = -0.5y + 3 (reads what the previous dispatch wrote); copy z.
  ASSERT_TRUE(list.add(axpb(pipeline.value(), xb.value(), yb.value(), p1.value(), groups, "first")).ok());
  auto second = list.add(axpb(pipeline.value(), yb.value(), zb.value(), p2.value(), groups, "second"));
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(list.add_copy(zb.value(), 0, cb.value(), 0, n * 4).ok());
  auto stats = list.submit();
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_EQ(stats.value().dispatches, 2u);

  std::vector<float> out(n);
  ASSERT_TRUE(cb.value().read(std::span<float>(out)).ok());
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_FLOAT_EQ(out[i], -0.5f * (2.0f * x[i] + 1.0f) + 3.0f) << i;
  }

  // A zero workgroup count skips the dispatch (dynamic shapes switch routes this way).
  ASSERT_TRUE(list.set_workgroups(*second, 0).ok());
  std::vector<float> zeros(n, 0.0f);
  ASSERT_TRUE(zb.value().write(std::span<const float>(zeros)).ok());
  stats = list.submit();
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_EQ(stats.value().dispatches, 1u);
  ASSERT_TRUE(cb.value().read(std::span<float>(out)).ok());
  EXPECT_EQ(out, zeros);

  EXPECT_EQ(list.set_workgroups(*second, device->limits().max_compute_workgroups_per_dimension + 1)
                .code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(list.set_workgroups(99, 1).code(), ErrorCode::kInvalidArgument);
}

TEST(GpuDispatch, BadBindingIsAnErrorNamingTheDispatch) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  auto xb = Buffer::create_storage(device, 64, "x");
  auto pb = Buffer::create_uniform(device, 16, "params");
  ASSERT_TRUE(xb.ok() && pb.ok());
  PipelineCache cache = test_cache(device);
  auto pipeline = cache.get(PipelineKey("axpb"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  CommandList list(device);
  Dispatch half_bound = axpb(pipeline.value(), xb.value(), xb.value(), pb.value(), 1, "half_bound");
  half_bound.bindings.erase(half_bound.bindings.begin() + 1);  // binding 1 missing
  auto r = list.add(half_bound);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("half_bound"), std::string::npos) << r.status().message();
  Dispatch null_buffer_dispatch = axpb(pipeline.value(), xb.value(), xb.value(), pb.value(), 1);
  null_buffer_dispatch.bindings[1].buffer = nullptr;
  auto null_buffer = list.add(null_buffer_dispatch);
  EXPECT_EQ(null_buffer.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(device->check().ok());
}

TEST(GpuPipeline, SyntaxErrorNamesShaderAndCarriesDawnMessage) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  PipelineCache cache = test_cache(device);
  auto pipeline = cache.get(PipelineKey("broken_syntax"));
  ASSERT_FALSE(pipeline.ok());
  const std::string& msg = pipeline.status().message();
  std::printf("[ message  ] %s\n", msg.c_str());
  EXPECT_NE(msg.find("broken_syntax"), std::string::npos) << msg;
  EXPECT_NE(msg.find("error"), std::string::npos) << msg;
  EXPECT_NE(msg.find("';'"), std::string::npos) << msg;  // Tint: expected ';'
  EXPECT_NE(msg.find("broken_syntax.wgsl:7:"), std::string::npos) << msg;  // line of `y[i] = ...`
  EXPECT_EQ(cache.pipeline_count(), 0u);
  EXPECT_TRUE(device->check().ok());  // nothing left behind as an uncaptured error
}

TEST(GpuPipeline, BadEntryPointOrConstantIsAnError) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  PipelineCache cache = test_cache(device);
  auto bad_entry = cache.get(PipelineKey("axpb", "nope"));
  ASSERT_FALSE(bad_entry.ok());
  EXPECT_NE(bad_entry.status().message().find("axpb:nope"), std::string::npos)
      << bad_entry.status().message();
  auto bad_constant = cache.get(PipelineKey("axpb").set("no_such_constant", 1));
  ASSERT_FALSE(bad_constant.ok());
  EXPECT_NE(bad_constant.status().message().find("no_such_constant"), std::string::npos)
      << bad_constant.status().message();
  auto missing = cache.get(PipelineKey("not_a_shader"));
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(device->check().ok());
}

TEST(GpuPipeline, CacheReturnsSamePipelineForSameKey) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  PipelineCache cache = test_cache(device);
  PipelineKey k64 = PipelineKey("axpb").set("wg_size", 64);
  auto first = cache.get(k64);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  auto again = cache.get(PipelineKey("axpb").set("wg_size", 64));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first.value().get(), again.value().get());
  EXPECT_EQ(first.value()->handle(), again.value()->handle());

  auto k128 = cache.get(PipelineKey("axpb").set("wg_size", 128));
  ASSERT_TRUE(k128.ok());
  EXPECT_NE(k128.value().get(), first.value().get());
  EXPECT_EQ(cache.pipeline_count(), 2u);
  EXPECT_EQ(cache.shader_module_count(), 1u);  // one module serves both variants

  // Keys: constant order does not matter; values compare bit-exactly; hashing agrees.
  PipelineKey ab = PipelineKey("s").set("a", 1).set("b", 2);
  PipelineKey ba = PipelineKey("s").set("b", 2).set("a", 1);
  EXPECT_EQ(ab, ba);
  EXPECT_EQ(PipelineKeyHash{}(ab), PipelineKeyHash{}(ba));
  EXPECT_FALSE(ab == PipelineKey("s").set("a", 1).set("b", 2.0000001));
  EXPECT_EQ(ab.to_string(), "s:main{a=1,b=2}");

  // A name is bound to one source text.
  auto other_text = cache.get(PipelineKey("axpb").set("wg_size", 32), "@compute @workgroup_size(1) fn main() {}");
  EXPECT_EQ(other_text.status().code(), ErrorCode::kInvalidArgument);
}

TEST(GpuDispatch, TimestampsAreNonNegative) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  const uint32_t n = 65536, wg = 64;
  auto xb = Buffer::create_storage(device, n * 4, "x");
  auto yb = Buffer::create_storage(device, n * 4, "y");
  auto pb = Buffer::create_uniform(device, 16, "params");
  ASSERT_TRUE(xb.ok() && yb.ok() && pb.ok());
  AxpbParams params{n, 1.0f, 1.0f, 0};
  ASSERT_TRUE(pb.value().write(&params, 16).ok());
  PipelineCache cache = test_cache(device);
  auto pipeline = cache.get(PipelineKey("axpb").set("wg_size", wg));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  CommandList list(device);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(list.add(axpb(pipeline.value(), xb.value(), yb.value(), pb.value(), n / wg,
                              "axpb_" + std::to_string(i))).ok());
  }
  auto stats = list.submit({.timestamps = true});
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  const SubmitStats& s = stats.value();
  EXPECT_GT(s.total_ns, 0u);
  EXPECT_GE(s.total_ns, s.wait_ns);
  if (!device->has_feature(Feature::kTimestampQuery)) {
    EXPECT_FALSE(s.has_gpu_times);
    GTEST_SKIP() << "device has no timestamp-query; host timings only";
  }
  ASSERT_TRUE(s.has_gpu_times);
  ASSERT_EQ(s.gpu_ns.size(), 3u);
  ASSERT_EQ(s.labels.size(), 3u);
  EXPECT_EQ(s.labels[2], "axpb_2");
  for (size_t i = 0; i < s.gpu_ns.size(); ++i) {
    std::printf("[ gpu time ] %s: %llu ns\n", s.labels[i].c_str(),
                static_cast<unsigned long long>(s.gpu_ns[i]));
  }
  // Durations are unsigned and clamped at zero; their sum cannot exceed the host's wait.
  EXPECT_LE(s.gpu_total_ns(), s.total_ns);
}

}  // namespace
// More timed dispatches than one query set holds (WebGPU: 4096 queries, 2 per dispatch):
// the list spreads them over several sets and still reports every dispatch.
TEST(GpuDispatch, TimestampsPastOneQuerySet) {
  WICK_GPU_DEVICE_OR_FAIL(device);
  const uint32_t n = 64, wg = 64, count = 2100;
  auto xb = Buffer::create_storage(device, n * 4, "x");
  auto yb = Buffer::create_storage(device, n * 4, "y");
  auto pb = Buffer::create_uniform(device, 16, "params");
  ASSERT_TRUE(xb.ok() && yb.ok() && pb.ok());
  AxpbParams params{n, 1.0f, 1.0f, 0};
  ASSERT_TRUE(pb.value().write(&params, 16).ok());
  PipelineCache cache = test_cache(device);
  auto pipeline = cache.get(PipelineKey("axpb").set("wg_size", wg));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  CommandList list(device);
  for (uint32_t i = 0; i < count; ++i)
    ASSERT_TRUE(list.add(axpb(pipeline.value(), xb.value(), yb.value(), pb.value(), 1, "axpb")).ok());
  auto stats = list.submit({.timestamps = true});
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_EQ(stats->dispatches, count);
  if (!device->has_feature(Feature::kTimestampQuery)) GTEST_SKIP() << "device has no timestamp-query";
  ASSERT_TRUE(stats->has_gpu_times);
  EXPECT_EQ(stats->gpu_ns.size(), count);
  EXPECT_EQ(stats->labels.size(), count);
}

// Timestamps inside the passes (the profiler's default where the device has them): a
// device that asks for the feature gets it on the CPU Vulkan drivers CI runs, every dispatch
// is timed across chunks, copies (each ends a pass) and more queries than one set holds,
// and a dispatch's time is its own: the one large dispatch among small ones takes 20 times
// the small ones' median and more than all but a few of them. (On a CPU driver the "GPU"
// is threads of this machine: with other tests beside it on two cores, one of the 2,099
// small dispatches once read 103 ms against the large one's 48.)
TEST(GpuDispatch, TimestampsInsidePasses) {
  DeviceOptions options;
  options.request_timestamps_inside_passes = true;
  auto created = Device::create(options);
  ASSERT_TRUE(created.ok()) << created.status().to_string();
  std::shared_ptr<Device> device = created.value();
  ASSERT_TRUE(device->has_feature(Feature::kTimestampInsidePasses))
      << "the adapter offers no timestamps inside passes under allow_unsafe_apis";
  const uint32_t big = 1u << 21, small = 64, wg = 64, count = 2100, heavy = 1000;
  auto xb = Buffer::create_storage(device, big * 4, "x");
  auto yb = Buffer::create_storage(device, big * 4, "y");
  auto small_params = Buffer::create_uniform(device, 16, "small params");
  auto big_params = Buffer::create_uniform(device, 16, "big params");
  ASSERT_TRUE(xb.ok() && yb.ok() && small_params.ok() && big_params.ok());
  AxpbParams sp{small, 1.0f, 1.0f, 0}, bp{big, 1.0f, 1.0f, 0};
  ASSERT_TRUE(small_params->write(&sp, 16).ok() && big_params->write(&bp, 16).ok());
  PipelineCache cache = test_cache(device);
  auto pipeline = cache.get(PipelineKey("axpb").set("wg_size", wg));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  CommandList list(device);
  for (uint32_t i = 0; i < count; ++i) {
    if (i == heavy) {
      ASSERT_TRUE(list.add(axpb(pipeline.value(), xb.value(), yb.value(), big_params.value(), big / wg, "big")).ok());
    } else {
      ASSERT_TRUE(list.add(axpb(pipeline.value(), xb.value(), yb.value(), small_params.value(), 1, "small")).ok());
    }
    if (i % 700 == 350) {
      ASSERT_TRUE(list.add_copy(yb.value(), 0, xb.value(), 0, 256).ok());
    }
  }
  // Untimed first: lavapipe compiles a pipeline at its first dispatch, which the first
  // timed dispatch would otherwise hold.
  ASSERT_TRUE(list.submit().ok());
  for (bool inside : {true, false}) {
    auto stats = list.submit({.timestamps = true, .timestamps_inside_pass = inside, .first_chunk = 4});
    ASSERT_TRUE(stats.ok()) << stats.status().to_string();
    const SubmitStats& s = stats.value();
    ASSERT_TRUE(s.has_gpu_times);
    EXPECT_EQ(s.gpu_times_inside_pass, inside);
    ASSERT_EQ(s.gpu_ns.size(), count);
    EXPECT_EQ(s.labels[heavy], "big");
    std::vector<uint64_t> small_ns;
    for (uint32_t i = 0; i < count; ++i)
      if (i != heavy) small_ns.push_back(s.gpu_ns[i]);
    const size_t above = std::count_if(small_ns.begin(), small_ns.end(), [&](uint64_t t) { return t >= s.gpu_ns[heavy]; });
    std::nth_element(small_ns.begin(), small_ns.begin() + small_ns.size() / 2, small_ns.end());
    const uint64_t median = small_ns[small_ns.size() / 2];
    const char* mode = inside ? "inside" : "per pass";
    EXPECT_GT(s.gpu_ns[heavy], 20 * median) << mode << ": the large dispatch against the small ones' median";
    EXPECT_LE(above, count / 200) << mode << ": small dispatches that took as long as the large one";
    EXPECT_LE(s.gpu_total_ns(), s.total_ns);
  }
}

}  // namespace wick::gpu

#endif  // WICK_HAVE_WEBGPU
