// Softmax over the last dim of contiguous rows (attention scores): variants in
// bench/kernels/softmax/v*.wgsl against a CPU reference, then timed.
//
//   . scripts/env.sh; build/wick_kernel_bench_softmax [--reps N]
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

// reduce.wgsl's Params (v1).
struct ReduceParams {
  uint32_t out_n, red_n, kept_rank, red_rank;
  uint32_t op, flags, tpr, pad0;
  float scale;
  uint32_t pad1, pad2, pad3;
  uint32_t kept_dims[8], kept_strides[8], red_dims[8], red_strides[8];
};
struct RowParams {
  uint32_t rows, len, pad0, pad1;
};

struct Case {
  const char* name;
  uint32_t rows, len;
};
const Case kCases[] = {
    {"whisper scores [1,4,1500,1500]", 6000, 1500},
    {"odd [3,5,77]", 15, 77},
};

std::vector<float> cpu_softmax(const std::vector<float>& x, uint32_t rows, uint32_t len) {
  std::vector<float> out(x.size());
  for (uint32_t r = 0; r < rows; ++r) {
    const float* v = x.data() + size_t{r} * len;
    double m = v[0], s = 0;
    for (uint32_t i = 0; i < len; ++i) m = std::max<double>(m, v[i]);
    for (uint32_t i = 0; i < len; ++i) s += std::exp(v[i] - m);
    for (uint32_t i = 0; i < len; ++i) out[size_t{r} * len + i] = static_cast<float>(std::exp(v[i] - m) / s);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  gpu::PipelineCache cache(dev);
  for (const Case& c : kCases) {
    const size_t n = size_t{c.rows} * c.len;
    // Scores of a scale like q.k / sqrt(d): spread over a few units.
    const auto hx = random_floats(n, 3, -8.f, 8.f);
    const auto ref = cpu_softmax(hx, c.rows, c.len);
    auto dx = storage(dev, hx, "x"), dout = storage(dev, std::vector<float>(n), "out");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(ReduceParams), "params"), "params");
    std::printf("\n%s\n", c.name);
    auto run = [&](const char* label, const std::string& file, uint32_t wg, uint64_t threads) {
      auto pl = take(cache.get(gpu::PipelineKey("bench_softmax_" + file).set("wg_size", wg), read_variant("softmax", file)),
                     file.c_str());
      gpu::CommandList list(dev);
      gpu::Dispatch d;
      d.pipeline = pl;
      d.bindings = {{0, &dx}, {1, &dout}, {2, &dp}};
      const uint64_t groups = (threads + wg - 1) / wg;
      d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
      d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
      take(list.add(d), "add");
      check(dout.write(std::vector<float>(n, NAN).data(), n * 4), "clear");
      check(list.submit().status(), "run");
      const double err = max_abs_diff(read_back(dout, n), ref);
      const double ms = time_list(list, reps);
      std::printf("  %-34s max|err| %.2e %s %9.2f ms\n", label, err, err < 1e-5 ? "ok  " : "FAIL", ms);
    };
    for (uint32_t tpr : {32u, 8u, 1u}) {
      ReduceParams p{};
      p.out_n = c.rows, p.red_n = c.len, p.kept_rank = 1, p.red_rank = 1, p.op = 6, p.tpr = tpr, p.scale = 1;
      p.kept_dims[0] = c.rows, p.kept_strides[0] = c.len, p.red_dims[0] = c.len, p.red_strides[0] = 1;
      check(dp.write(&p, sizeof p), "params");
      const std::string label = "v1 reduce.wgsl tpr " + std::to_string(tpr);
      run(label.c_str(), "v1_reduce.wgsl", 256, uint64_t{c.rows} * tpr);
    }
    RowParams rp{c.rows, c.len, 0, 0};
    check(dp.write(&rp, sizeof rp), "params");
    run("v2 row per thread, 3 passes", "v2_row_per_thread.wgsl", 64, c.rows);
    run("v3 row per thread, online", "v3_row_online.wgsl", 64, c.rows);
  }
  return 0;
}
