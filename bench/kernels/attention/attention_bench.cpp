// Flash-style attention variants (bench/kernels/attention/v*.wgsl) at ViT-S (6 heads x
// 1,370 tokens x 64) and Whisper-base encoder (8 heads x 1,500 x 64) sizes, plus odd and
// masked cases: out = softmax(q k^T * scale + mask) v per (batch, head). Checked against a
// CPU reference in double (a sample of query rows of the first and last head), then timed
// (GPU timestamps per dispatch, median of reps x 10 dispatches).
//
//   . scripts/env.sh; build/wick_kernel_bench_attention [--reps N] [--quick] [variant...]
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct Params {
  uint32_t bh, sq, skv, mask_mode;
  float scale;
  uint32_t pad0, pad1, pad2;
};

struct Case {
  const char* name;
  uint32_t bh, sq, skv, d;
  bool mask;
  bool large;
};

struct Variant {
  int id;
  const char* file;
  uint32_t bq, bkv;
};

const Case kCases[] = {
    {"odd      [2,77,64] x 77 keys", 2, 77, 77, 64, false, false},
    {"cross    [2,100,64] x 333 keys + mask", 2, 100, 333, 64, true, false},
    {"vit-s    [6,1370,64]", 6, 1370, 1370, 64, false, true},
    {"whisper  [8,1500,64]", 8, 1500, 1500, 64, false, true},
    {"whisper  [8,1500,64] + mask", 8, 1500, 1500, 64, true, true},
};

const Variant kVariants[] = {
    {1, "v1_flash_sg4.wgsl", 64, 32},
    {2, "v1_flash_sg4.wgsl", 32, 32},
    {3, "v1_flash_sg4.wgsl", 16, 32},
    {4, "v1_flash_sg4.wgsl", 32, 16},
};

std::vector<uint32_t> rows_to_check(const Case& c) {
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < c.sq; ++i)
    if (!c.large || i % 17 == 0 || i + 20 >= c.sq) rows.push_back(i);
  return rows;
}

std::vector<float> cpu_attention(const Case& c, const std::vector<float>& q, const std::vector<float>& k,
                                 const std::vector<float>& v, const std::vector<float>& mask, float scale) {
  std::vector<float> out(size_t{c.bh} * c.sq * c.d, NAN);
  std::vector<double> s(c.skv);
  for (uint32_t h = 0; h < c.bh; ++h) {
    if (c.large && h != 0 && h + 1 != c.bh) continue;
    for (uint32_t i : rows_to_check(c)) {
      const float* qr = &q[(size_t{h} * c.sq + i) * c.d];
      double mx = -1e300;
      for (uint32_t j = 0; j < c.skv; ++j) {
        const float* kr = &k[(size_t{h} * c.skv + j) * c.d];
        double acc = 0;
        for (uint32_t e = 0; e < c.d; ++e) acc += double(qr[e]) * kr[e];
        s[j] = acc * scale + (c.mask ? mask[size_t{i} * c.skv + j] : 0.0);
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (uint32_t j = 0; j < c.skv; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (uint32_t e = 0; e < c.d; ++e) {
        double acc = 0;
        for (uint32_t j = 0; j < c.skv; ++j) acc += s[j] * v[(size_t{h} * c.skv + j) * c.d + e];
        out[(size_t{h} * c.sq + i) * c.d + e] = static_cast<float>(acc / sum);
      }
    }
  }
  return out;
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x.empty() ? 0 : x[x.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool quick = false;
  std::vector<int> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else only.push_back(std::atoi(argv[i]));
  }
  auto dev = take(gpu::Device::create(), "device");
  const bool has_ts = dev->has_feature(gpu::Feature::kTimestampQuery);
  std::printf("adapter: %s  subgroups: %s\n", dev->adapter_info().summary().c_str(),
              dev->has_feature(gpu::Feature::kSubgroups) ? "yes" : "no");
  if (!dev->has_feature(gpu::Feature::kSubgroups)) {
    std::printf("no subgroups: every variant needs them\n");
    return 1;
  }
  gpu::PipelineCache cache(dev);
  int failures = 0;
  for (const Case& c : kCases) {
    if (quick && c.large) continue;
    const size_t qn = size_t{c.bh} * c.sq * c.d, kn = size_t{c.bh} * c.skv * c.d;
    const auto hq = random_floats(qn, 1), hk = random_floats(kn, 2), hv = random_floats(kn, 3);
    const auto hm = random_floats(size_t{c.sq} * c.skv, 4, -3.f, 0.f);
    const float scale = 1.f / std::sqrt(float(c.d));
    const auto ref = cpu_attention(c, hq, hk, hv, hm, scale);
    auto dq = storage(dev, hq, "q"), dk = storage(dev, hk, "k"), dv = storage(dev, hv, "v"), dm = storage(dev, hm, "mask");
    auto dout = storage(dev, std::vector<float>(qn), "out");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    Params p{c.bh, c.sq, c.skv, c.mask ? 1u : 0u, scale, 0, 0, 0};
    check(dp.write(&p, sizeof p), "params");
    // Scores and weighted sums: 4 * BH * Sq * Skv * D FLOP (the exponentials not counted).
    const double gflop = 4.0 * c.bh * c.sq * c.skv * c.d / 1e9;
    std::printf("\n%s  (%.3f GFLOP)\n", c.name, gflop);
    for (const Variant& v : kVariants) {
      if (!only.empty() && std::find(only.begin(), only.end(), v.id) == only.end()) continue;
      gpu::PipelineKey key(std::string("bench_attention_") + v.file);
      key.set("D", c.d).set("BQ", v.bq).set("BKV", v.bkv);
      auto pl = take(cache.get(key, read_variant("attention", v.file)), v.file);
      gpu::CommandList list(dev);
      gpu::Dispatch d;
      d.pipeline = pl;
      d.bindings = {{0, &dq}, {1, &dk}, {2, &dv}, {3, &dm}, {4, &dout}, {5, &dp}};
      d.x = (c.sq + v.bq - 1) / v.bq, d.y = c.bh;
      take(list.add(d), "add");
      check(dout.write(std::vector<float>(qn, NAN).data(), qn * 4), "clear");
      check(list.submit().status(), "run");
      const auto got = read_back(dout, qn);
      double err = 0;
      bool all_written = true;
      for (size_t i = 0; i < qn; ++i) {
        if (std::isnan(got[i])) all_written = false;
        if (!std::isnan(ref[i])) err = std::max(err, std::fabs(double(got[i]) - ref[i]));
      }
      const bool ok = all_written && err < 1e-4;
      failures += !ok;
      for (int i = 1; i < 10; ++i) take(list.add(d), "add");
      check(list.submit().status(), "warm-up");
      std::vector<double> gpu_us, wall_us;
      for (int r = 0; r < reps; ++r) {
        auto stats = take(list.submit({.timestamps = has_ts}), "submit");
        for (uint64_t ns : stats.gpu_ns) gpu_us.push_back(ns / 1e3);
        auto start = Clock::now();
        check(list.submit().status(), "submit");
        wall_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() / 10);
      }
      const double t = has_ts ? median(gpu_us) : median(wall_us);
      std::printf("  v%d %-18s BQ %2u BKV %2u  max|err| %.1e %s  gpu %9.1f us  wall %9.1f us  %6.2f TFLOP/s\n", v.id,
                  v.file, v.bq, v.bkv, err, ok ? "ok  " : (all_written ? "FAIL" : "FAIL(unwritten)"),
                  has_ts ? median(gpu_us) : 0.0, median(wall_us), gflop / t * 1e3);
    }
  }
  std::printf("\n%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
