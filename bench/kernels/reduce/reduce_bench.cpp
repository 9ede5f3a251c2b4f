// Row reductions of contiguous rows: softmax over attention scores (Depth Anything V2 small
// at 518, Whisper base) and means over H*W (MODNet's channel means), variants against a CPU
// reference in double, then timed (GPU timestamps where the device has them, else wall).
//
//   . scripts/env.sh; build/wick_kernel_bench_reduce [--reps N] [--only SUBSTRING]
//
// v1: the shipped generic reduce.wgsl (bench/kernels/softmax/v1_reduce.wgsl), with the
//     threads per row register.cpp picks, and for means over H*W the two reduced dims it is
//     given (a div/mod per element); v2: reduce_rows.wgsl, one workgroup per row or chunk.
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct ReduceParams {  // reduce.wgsl's
  uint32_t out_n, red_n, kept_rank, red_rank;
  uint32_t op, flags, tpr, pad0;
  float scale;
  uint32_t pad1, pad2, pad3;
  uint32_t kept_dims[8], kept_strides[8], red_dims[8], red_strides[8];
};
struct RowParams {  // reduce_rows.wgsl's
  uint32_t rows, len, op, nchunks, chunk;
  float scale;
  uint32_t pad0, pad1;
};

struct Case {
  const char* name;
  bool softmax;
  uint32_t rows, h, w;  // a row is h * w words (softmax: h = 1)
};
const Case kCases[] = {
    {"softmax DA-v2-small 518 [1,6,1370,1370]", true, 6 * 1370, 1, 1370},
    {"softmax whisper base [1,8,1500,1500]", true, 8 * 1500, 1, 1500},
    {"softmax odd [3,5,77]", true, 15, 1, 77},
    {"softmax long rows [64,5003]", true, 64, 1, 5003},
    {"mean HW [1,32,256,256]", false, 32, 256, 256},
    {"mean HW [1,96,128,128]", false, 96, 128, 128},
    {"mean HW [1,1280,16,16]", false, 1280, 16, 16},
    {"mean HW odd [1,13,97,101]", false, 13, 97, 101},
    // Many short rows: D-FINE S's deformable-attention sum over 12 sampling points (8 heads x
    // 32 dims x 300 queries; 162 us a sum on the H100 with v2), and a softmax of the same shape.
    {"mean short rows [76800,12]", false, 76800, 1, 12},
    {"softmax short rows [76800,12]", true, 76800, 1, 12},
};

// register.cpp's choice of threads per row for reduce.wgsl.
uint32_t pick_tpr(uint32_t rows, uint32_t len) {
  uint32_t tpr = 1;
  while (tpr < len && tpr < 256) tpr *= 2;
  while (tpr > 32 && uint64_t{rows} * (tpr / 2) >= 65536) tpr /= 2;
  return tpr;
}

// register.cpp's chunks per row for reduce_rows.wgsl.
uint32_t pick_chunks(uint64_t rows, uint64_t len) {
  if (rows == 0 || rows >= 1024 || len <= 2048) return 1;
  return static_cast<uint32_t>(std::min((1024 + rows - 1) / rows, (len + 2047) / 2048));
}

std::vector<float> cpu_reference(const std::vector<float>& x, const Case& c) {
  const uint32_t len = c.h * c.w;
  std::vector<float> out(c.softmax ? x.size() : c.rows);
  for (uint32_t r = 0; r < c.rows; ++r) {
    const float* v = x.data() + size_t{r} * len;
    if (!c.softmax) {
      double s = 0;
      for (uint32_t i = 0; i < len; ++i) s += v[i];
      out[r] = static_cast<float>(s / len);
      continue;
    }
    double m = v[0], s = 0;
    for (uint32_t i = 0; i < len; ++i) m = std::max<double>(m, v[i]);
    for (uint32_t i = 0; i < len; ++i) s += std::exp(v[i] - m);
    for (uint32_t i = 0; i < len; ++i) out[size_t{r} * len + i] = static_cast<float>(std::exp(v[i] - m) / s);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
  }
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  gpu::PipelineCache cache(dev);
  for (const Case& c : kCases) {
    if (!only.empty() && std::string(c.name).find(only) == std::string::npos) continue;
    const uint32_t len = c.h * c.w;
    const size_t n = size_t{c.rows} * len;
    const auto hx = random_floats(n, 3, c.softmax ? -8.f : -1.f, c.softmax ? 8.f : 3.f);
    const auto ref = cpu_reference(hx, c);
    const size_t n_out = ref.size();
    // Means are compared relative to the row's magnitude (a float sum of 65k terms).
    const double tol = c.softmax ? 1e-5 : 1e-5 * 3;
    auto dx = storage(dev, hx, "x"), dout = storage(dev, std::vector<float>(n_out), "out");
    auto dpart = storage(dev, std::vector<float>(2048 + c.rows), "partials");
    auto dp = take(gpu::Buffer::create_uniform(dev, 256, "params"), "params");
    auto dp2 = take(gpu::Buffer::create_uniform(dev, 256, "params2"), "params2");
    std::printf("\n%s\n", c.name);
    struct Pass {
      const gpu::Buffer* in;
      const gpu::Buffer* out;
      const gpu::Buffer* params;
      uint64_t groups;
      uint32_t wg;
    };
    auto run = [&](const std::string& label, const std::string& family, const std::string& file, std::vector<Pass> passes) {
      auto pl = take(cache.get(gpu::PipelineKey("bench_reduce_" + file).set("wg_size", passes[0].wg), read_variant(family, file)),
                     file.c_str());
      gpu::CommandList list(dev);
      for (const Pass& p : passes) {
        gpu::Dispatch d;
        d.pipeline = pl;
        d.bindings = {{0, p.in}, {1, p.out}, {2, p.params}};
        d.x = static_cast<uint32_t>(std::min<uint64_t>(p.groups, 32768));
        d.y = static_cast<uint32_t>((p.groups + d.x - 1) / d.x);
        take(list.add(d), "add");
      }
      check(dout.write(std::vector<float>(n_out, NAN).data(), n_out * 4), "clear");
      check(list.submit().status(), "run");
      const double err = max_abs_diff(read_back(dout, n_out), ref);
      double ms = time_list_gpu(list, reps);
      const char* clock = "gpu";
      if (ms == 0) { ms = time_list(list, reps); clock = "wall"; }
      std::printf("  %-44s max|err| %.2e %s %9.4f ms (%s)\n", label.c_str(), err, err < tol ? "ok  " : "FAIL", ms, clock);
    };
    {
      ReduceParams p{};
      const uint32_t tpr = pick_tpr(c.rows, len);
      p.out_n = c.rows, p.red_n = len, p.kept_rank = 1, p.op = c.softmax ? 6 : 1, p.tpr = tpr;
      p.scale = c.softmax ? 1.f : 1.f / static_cast<float>(len);
      p.kept_dims[0] = c.rows, p.kept_strides[0] = len;
      if (c.h == 1) {
        p.red_rank = 1, p.red_dims[0] = len, p.red_strides[0] = 1;
      } else {
        p.red_rank = 2, p.red_dims[0] = c.h, p.red_strides[0] = c.w, p.red_dims[1] = c.w, p.red_strides[1] = 1;
      }
      check(dp.write(&p, sizeof p), "params");
      const uint64_t groups = (uint64_t{c.rows} + 256 / tpr - 1) / (256 / tpr);
      run("v1 reduce.wgsl tpr " + std::to_string(tpr) + (c.h > 1 ? ", 2 reduced dims" : ""), "softmax", "v1_reduce.wgsl",
          {{&dx, &dout, &dp, groups, 256}});
    }
    for (bool split : {false, true}) {
      if (split && (c.softmax || pick_chunks(c.rows, len) == 1)) continue;
      RowParams p{};
      p.rows = c.rows, p.len = len, p.op = c.softmax ? 3 : 0;
      p.nchunks = split ? pick_chunks(c.rows, len) : 1;
      p.chunk = (len + p.nchunks - 1) / p.nchunks;
      p.scale = c.softmax || split ? 1.f : 1.f / static_cast<float>(len);
      check(dp.write(&p, sizeof p), "params");
      if (!split) {
        run("v2 rows, one workgroup per row", "reduce", "v2_rows.wgsl", {{&dx, &dout, &dp, c.rows, 256}});
        continue;
      }
      RowParams p2{};
      p2.rows = c.rows, p2.len = p.nchunks, p2.op = 0, p2.nchunks = 1, p2.chunk = p.nchunks;
      p2.scale = 1.f / static_cast<float>(len);
      check(dp2.write(&p2, sizeof p2), "params2");
      run("v2 rows, " + std::to_string(p.nchunks) + " chunks per row + combine", "reduce", "v2_rows.wgsl",
          {{&dx, &dpart, &dp, uint64_t{c.rows} * p.nchunks, 256}, {&dpart, &dout, &dp2, c.rows, 256}});
    }
  }
  return 0;
}
