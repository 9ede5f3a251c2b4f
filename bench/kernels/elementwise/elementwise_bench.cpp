// Elementwise variants (bench/kernels/elementwise/v*.wgsl) on a [1,4,1500,1500] tensor (the
// Whisper attention mask ops): logical_not and exp against a CPU reference, then timed.
//
//   . scripts/env.sh; build/wick_kernel_bench_elementwise [--reps N]
#include <cstring>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {
struct UnaryParams {
  uint32_t n, op, flags, pad0;
  float lo, hi, s;
  uint32_t pad1;
};
}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  gpu::PipelineCache cache(dev);
  for (uint32_t n : {4u * 1500u * 1500u, 1001u}) {
    auto hx = random_floats(n, 4, -2.f, 2.f);
    for (size_t i = 0; i < n; i += 7) hx[i] = 0.f;
    auto dx = storage(dev, hx, "x"), dout = storage(dev, std::vector<float>(n), "out");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(UnaryParams), "params"), "params");
    std::printf("\nn = %u\n", n);
    for (uint32_t op : {16u, 3u}) {  // logical_not, exp
      std::vector<float> ref(n);
      for (uint32_t i = 0; i < n; ++i) ref[i] = op == 16 ? (hx[i] == 0.f ? 1.f : 0.f) : std::exp(hx[i]);
      UnaryParams p{n, op, 0, 0, 0, 0, 0, 0};
      check(dp.write(&p, sizeof p), "params");
      const std::pair<const char*, uint32_t> variants[] = {{"v1_unary.wgsl", 1},         {"v2_unary_per.wgsl", 4},
                                                           {"v2_unary_per.wgsl", 16},    {"v3_unary_const_op.wgsl", 4},
                                                           {"v3_unary_const_op.wgsl", 16}};
      for (const auto& [vfile, per] : variants) {
        const std::string file = vfile;
        if (op != 16 && file == "v3_unary_const_op.wgsl") continue;  // v3 is logical_not only
        gpu::PipelineKey key("bench_ew_" + file);
        key.set("wg_size", 256);
        if (per > 1) key.set("per", per);
        auto pl = take(cache.get(key, read_variant("elementwise", file)), file.c_str());
        gpu::CommandList list(dev);
        gpu::Dispatch d;
        d.pipeline = pl;
        d.bindings = {{0, &dx}, {1, &dout}, {2, &dp}};
        const uint64_t threads = (uint64_t{n} + per - 1) / per, groups = (threads + 255) / 256;
        d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
        d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
        // The grid may hold more threads than `threads`: the kernel's stride is the grid's.
        take(list.add(d), "add");
        check(dout.write(std::vector<float>(n, NAN).data(), uint64_t{n} * 4), "clear");
        check(list.submit().status(), "run");
        const double err = max_abs_diff(read_back(dout, n), ref);
        const double ms = time_list(list, reps);
        std::printf("  op %2u %-20s per %2u  max|err| %.2e %s %9.2f ms\n", op, file.c_str(), per, err,
                    err <= 1e-6 * 8 ? "ok  " : "FAIL", ms);
      }
    }
  }
  // where(cond[4*1500, 1], a, b) over [4*1500, 1500] (Whisper's masked softmax), and
  // eq(x, -inf) over the same words: the shipped shaders with per = 1 and per = 4.
  {
    const uint32_t rows = 6000, len = 1500, n = rows * len;
    auto hx = random_floats(n, 5), hy = random_floats(n, 6), hc = random_floats(rows, 7, 0.f, 2.f);
    std::vector<uint32_t> cw(rows);
    for (uint32_t r = 0; r < rows; ++r) cw[r] = hc[r] >= 1.f ? 1u : 0u;
    std::vector<float> ref_where(n), ref_eq(n);
    for (uint32_t i = 0; i < n; ++i) {
      ref_where[i] = cw[i / len] ? hx[i] : hy[i];
      ref_eq[i] = 0.f;  // no -inf in the data
    }
    std::vector<float> cf(rows);
    std::memcpy(cf.data(), cw.data(), rows * 4);
    auto dc = storage(dev, cf, "cond"), dx = storage(dev, hx, "a"), dy = storage(dev, hy, "b");
    auto dout = storage(dev, std::vector<float>(n), "out");
    auto dp = take(gpu::Buffer::create_uniform(dev, 256, "params"), "params");
    std::printf("\n[6000,1500] where with a [6000,1] condition; eq(x, -inf)\n");
    for (const char* file : {"v4_where_shipped.wgsl", "v5_binary_shipped.wgsl"}) {
      const bool is_where = file[1] == '4';
      std::vector<uint32_t> params(64, 0);
      params[0] = n, params[1] = 2;
      if (is_where) {
        params[2] = 1;  // cond is int (bool words)
        params[4] = rows, params[5] = len;        // out_dims
        params[12] = 1, params[13] = 0;           // c_strides
        params[20] = len, params[21] = 1;         // a_strides
        params[28] = len, params[29] = 1;         // b_strides
      } else {
        params[1] = 1, params[2] = 7, params[3] = 4 | 8;  // rank 1, eq, out_int, scalar b
        const float ninf = -INFINITY;
        std::memcpy(&params[5], &ninf, 4);
        params[8] = n;                  // out_dims
        params[16] = 1;                 // a_strides
      }
      check(dp.write(params.data(), params.size() * 4), "params");
      for (uint32_t per : {1u, 4u}) {
        gpu::PipelineKey key(std::string("bench_ew_") + file);
        key.set("wg_size", 256).set("per", per);
        if (!is_where) key.set("op_code", 7);
        auto pl = take(cache.get(key, read_variant("elementwise", file)), file);
        gpu::CommandList list(dev);
        gpu::Dispatch d;
        d.pipeline = pl;
        if (is_where) d.bindings = {{0, &dc}, {1, &dx}, {2, &dy}, {3, &dout}, {4, &dp}};
        else d.bindings = {{0, &dx}, {1, &dx}, {2, &dout}, {3, &dp}};
        const uint64_t threads = (uint64_t{n} + per - 1) / per, groups = (threads + 255) / 256;
        d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
        d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
        take(list.add(d), "add");
        check(dout.write(std::vector<float>(n, NAN).data(), uint64_t{n} * 4), "clear");
        check(list.submit().status(), "run");
        std::vector<float> got = read_back(dout, n);
        if (!is_where)  // bool words: compare as integers
          for (auto& v : got) { uint32_t w; std::memcpy(&w, &v, 4); v = static_cast<float>(w); }
        const double err = max_abs_diff(got, is_where ? ref_where : ref_eq);
        const double ms = time_list(list, reps);
        std::printf("  %-24s per %2u  max|err| %.2e %s %9.2f ms\n", file, per, err, err == 0 ? "ok  " : "FAIL", ms);
      }
    }
  }
  return 0;
}
