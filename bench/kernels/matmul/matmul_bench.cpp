// Matmul variants (bench/kernels/matmul/v*.wgsl) on the attention and linear shapes of the
// demo fixtures: c[b] = a[b] @ op(b[b]), op = transpose for linear weights. Each variant is
// checked against a CPU reference, then timed (median wall time of submit+wait).
//
//   . scripts/env.sh; build/wick_kernel_bench_matmul [--reps N] [variant-number...]
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct Params {
  uint32_t m, n, k, batch;
  uint32_t a_bs, b_bs, c_bs, bias_mode;
  uint32_t bias_rs, bias_cs, pad0, pad1;
  float alpha, beta, pad2, pad3;
};

struct Case {
  const char* name;
  uint32_t batch, m, k, n;
  bool trans_b;
};

struct Variant {
  int id;
  const char* file;
  uint32_t wg_x, wg_y;  // 0: the shader's own workgroup size (no override)
  uint32_t tm, tn;      // output tile per workgroup
  uint32_t max_n;       // 0: any N; else only cases with N <= max_n
};

// The attention products of demos/whisper_tiny_encoder (4 heads of 16), demos/sam2_tiny_encoder
// and demos/depth_anything_v2_tiny, a Whisper-base-size head (64), a linear, and odd sizes.
const Case kCases[] = {
    {"whisper qk^T [4,1500,16]x[4,16,1500]", 4, 1500, 16, 1500, false},
    {"whisper pv   [4,1500,1500]x[4,1500,16]", 4, 1500, 1500, 16, false},
    {"base qk^T    [8,1500,64]x[8,64,1500]", 1, 1500, 64, 1500, false},
    {"base pv      [1,1500,1500]x[1,1500,64]", 1, 1500, 1500, 64, false},
    {"linear       [1500,64]x[256,64]^T", 1, 1500, 64, 256, true},
    {"odd          [3,77,33]x[3,33,45]", 3, 77, 33, 45, false},
    {"odd linear   [77,33]x[45,33]^T", 1, 77, 33, 45, true},
};

const Variant kVariants[] = {
    {1, "v1_tiled64_smem.wgsl", 0, 0, 64, 64, 0},
    {2, "v2_direct.wgsl", 8, 8, 32, 32, 0},
    {3, "v3_tiled64_rb8.wgsl", 0, 0, 64, 64, 0},
    {4, "v2_direct.wgsl", 4, 16, 64, 16, 16},
    {5, "v5_direct_unrolled.wgsl", 8, 8, 32, 32, 0},
    {6, "v5_direct_unrolled.wgsl", 4, 16, 64, 16, 16},
    {7, "v5_direct_unrolled.wgsl", 16, 16, 64, 64, 0},
};

std::vector<float> cpu_matmul(const Case& c, const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(size_t{c.batch} * c.m * c.n);
  std::vector<double> row(c.n);
  for (uint32_t bi = 0; bi < c.batch; ++bi) {
    const float* A = a.data() + size_t{bi} * c.m * c.k;
    const float* B = b.data() + (c.trans_b ? 0 : size_t{bi} * c.k * c.n);
    for (uint32_t i = 0; i < c.m; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (uint32_t kk = 0; kk < c.k; ++kk) {
        const double av = A[size_t{i} * c.k + kk];
        for (uint32_t j = 0; j < c.n; ++j)
          row[j] += av * (c.trans_b ? B[size_t{j} * c.k + kk] : B[size_t{kk} * c.n + j]);
      }
      for (uint32_t j = 0; j < c.n; ++j) out[(size_t{bi} * c.m + i) * c.n + j] = static_cast<float>(row[j]);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  std::vector<int> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else only.push_back(std::atoi(argv[i]));
  }
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  gpu::PipelineCache cache(dev);
  for (const Case& c : kCases) {
    const size_t an = size_t{c.batch} * c.m * c.k, bn = size_t{c.trans_b ? 1 : c.batch} * c.k * c.n;
    const auto ha = random_floats(an, 1), hb = random_floats(bn, 2);
    const auto ref = cpu_matmul(c, ha, hb);
    auto da = storage(dev, ha, "a"), db = storage(dev, hb, "b");
    auto dc = storage(dev, std::vector<float>(ref.size()), "c");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    Params p{};
    p.m = c.m, p.n = c.n, p.k = c.k, p.batch = c.batch;
    p.a_bs = c.m * c.k, p.b_bs = c.trans_b ? 0 : c.k * c.n, p.c_bs = c.m * c.n;
    p.alpha = 1, p.beta = 1;
    check(dp.write(&p, sizeof p), "params");
    const double gflop = 2.0 * c.batch * c.m * c.n * c.k / 1e9;
    std::printf("\n%s  (%.3f GFLOP)\n", c.name, gflop);
    for (const Variant& v : kVariants) {
      if (!only.empty() && std::find(only.begin(), only.end(), v.id) == only.end()) continue;
      if (v.max_n && c.n > v.max_n) continue;
      gpu::PipelineKey key(std::string("bench_matmul_") + v.file);
      key.set("trans_b", c.trans_b ? 1 : 0);
      if (v.wg_x) key.set("wg_x", v.wg_x).set("wg_y", v.wg_y);
      auto pl = take(cache.get(key, read_variant("matmul", v.file)), v.file);
      gpu::CommandList list(dev);
      gpu::Dispatch d;
      d.pipeline = pl;
      d.bindings = {{0, &da}, {1, &db}, {2, &db}, {3, &dc}, {4, &dp}};
      d.x = (c.n + v.tn - 1) / v.tn, d.y = (c.m + v.tm - 1) / v.tm, d.z = c.batch;
      take(list.add(d), "add");
      check(dc.write(std::vector<float>(ref.size(), NAN).data(), ref.size() * 4), "clear");
      check(list.submit().status(), "run");
      const double err = max_abs_diff(read_back(dc, ref.size()), ref);
      const double ms = time_list(list, reps);
      std::printf("  v%d %-22s wg %ux%u tile %ux%u  max|err| %.2e %s  %9.2f ms  %7.2f GFLOP/s\n", v.id, v.file,
                  v.wg_x, v.wg_y, v.tm, v.tn, err, err < 1e-3 ? "ok  " : "FAIL", ms, gflop / ms * 1e3);
    }
  }
  return 0;
}
