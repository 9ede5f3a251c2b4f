// Row reductions through subgroup operations (GraphOptions::subgroups) against the tree
// reductions they replace, on the shipped shaders (the delegate's embedded registry, so the
// bench always measures what ships): CPU reference in double, max |err| check, then GPU
// timestamps (wall time where the adapter has none).
//
//   . scripts/env.sh; build/wick_kernel_bench_subgroups [--reps N] [--rounds R] [--only TEXT]
//   (each variant timed R times in alternation with the other, `reps` submits each, the
//   best median printed)
//   VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.json build/wick_kernel_bench_subgroups
//
// v1 tree: row_norm_rows / row_norm / reduce_rows / matmul_gemv .wgsl, partials combined through
//    shared memory in log2(threads) barrier steps (plus one to publish, one to free);
// v2 subgroups: their *_sg twins (subgroup_reduce.inc.wgsl):
//    subgroupAdd / Max in registers, one barrier across subgroups, or for a row's segment of
//    at most one subgroup a subgroupShuffleXor butterfly and no barrier at all.
// The README next to this file has the results and what they mean for the H200.
#include <cmath>
#include <cstring>

#include "../harness.h"
#include "webgpu/wgsl_shaders.h"

using namespace wick;
using namespace wick::bench;

namespace {

struct NormParams {  // row_norm_params.inc.wgsl
  uint32_t rows, inner, mode, flags;
  uint32_t groups, cpg, hw, nchunks;
  float eps;
  uint32_t chunk, pad2, pad3;
};
struct RowParams {  // reduce_rows_body.inc.wgsl
  uint32_t rows, len, op, nchunks;
  uint32_t chunk;
  float scale;
  uint32_t pad0, pad1;
};
struct MatmulParams {  // matmul_params.inc.wgsl
  uint32_t m, n, k, batch;
  uint32_t a_bs, b_bs, c_bs, bias_mode;
  uint32_t bias_rs, bias_cs, pad0, pad1;
  float alpha, beta, pad2, pad3;
};

enum class Kind { kLayerNorm, kLongNorm, kSoftmax, kGemv };  // kLongNorm: row_norm, a workgroup a row
struct Case {
  const char* name;
  Kind kind;
  uint32_t rows, len;  // norm / softmax: rows x len; GEMV: N x K
};
const Case kCases[] = {
    {"layer norm DA-v2-S [1370, 384] (TPR 128)", Kind::kLayerNorm, 1370, 384},
    {"layer norm Hiera [8192, 96] (TPR 32)", Kind::kLayerNorm, 8192, 96},
    {"layer norm [16384, 17] (TPR 8)", Kind::kLayerNorm, 16384, 17},
    {"layer norm long rows [64, 8192] (a workgroup a row)", Kind::kLongNorm, 64, 8192},
    {"softmax DA head [1370, 1370]", Kind::kSoftmax, 1370, 1370},
    {"softmax odd [4096, 77]", Kind::kSoftmax, 4096, 77},
    {"gemv linear N 2048 K 2048", Kind::kGemv, 2048, 2048},
    {"gemv linear N 512 K 8192", Kind::kGemv, 512, 8192},
};

// What a case's kernel computes, in double.
std::vector<float> reference(const Case& c, const std::vector<float>& x, const std::vector<float>& w) {
  std::vector<float> out;
  if (c.kind == Kind::kGemv) {
    for (uint32_t j = 0; j < c.rows; ++j) {
      double s = 0;
      for (uint32_t i = 0; i < c.len; ++i) s += double(x[i]) * w[size_t{j} * c.len + i];
      out.push_back(static_cast<float>(s));
    }
    return out;
  }
  for (uint32_t r = 0; r < c.rows; ++r) {
    const float* v = x.data() + size_t{r} * c.len;
    double a = 0, b = 0;
    if (c.kind != Kind::kSoftmax) {
      for (uint32_t i = 0; i < c.len; ++i) a += v[i];
      a /= c.len;
      for (uint32_t i = 0; i < c.len; ++i) b += (v[i] - a) * (v[i] - a);
      const double rstd = 1 / std::sqrt(b / c.len + 1e-5);
      for (uint32_t i = 0; i < c.len; ++i) out.push_back(static_cast<float>((v[i] - a) * rstd));
    } else {
      a = v[0];
      for (uint32_t i = 0; i < c.len; ++i) a = std::max<double>(a, v[i]);
      for (uint32_t i = 0; i < c.len; ++i) b += std::exp(v[i] - a);
      for (uint32_t i = 0; i < c.len; ++i) out.push_back(static_cast<float>(std::exp(v[i] - a) / b));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10, rounds = 3;
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
  }
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s, subgroups %s (sizes %u..%u)\n", dev->adapter_info().summary().c_str(),
              dev->has_feature(gpu::Feature::kSubgroups) ? "yes" : "NO", dev->adapter_info().subgroup_min_size,
              dev->adapter_info().subgroup_max_size);
  if (!dev->has_feature(gpu::Feature::kSubgroups)) {
    std::fprintf(stderr, "error: the adapter has no subgroups: nothing to compare\n");
    return 1;
  }
  gpu::PipelineCache cache(dev, webgpu::find_wgsl);
  for (const Case& c : kCases) {
    if (only && !std::strstr(c.name, only)) continue;
    const bool gemv = c.kind == Kind::kGemv;
    const size_t in_n = gemv ? c.len : size_t{c.rows} * c.len, out_n = gemv ? c.rows : in_n;
    const auto hx = random_floats(in_n, 11, -4.f, 4.f);
    const auto hw = gemv ? random_floats(size_t{c.rows} * c.len, 12) : std::vector<float>(1, 1.f);
    const auto ref = reference(c, hx, hw);
    auto dx = storage(dev, hx, "x"), dw = storage(dev, hw, "w"), dout = storage(dev, std::vector<float>(out_n), "out");
    auto dspare1 = storage(dev, std::vector<float>(4), "spare1"), dspare2 = storage(dev, std::vector<float>(4), "spare2");
    auto dp = take(gpu::Buffer::create_uniform(dev, 64, "params"), "params");
    uint32_t tpr = 1;
    while (tpr * 4 < c.len && tpr < 256) tpr *= 2;  // ops/norm/register.cpp's rule
    const bool norm = c.kind == Kind::kLayerNorm || c.kind == Kind::kLongNorm;
    if (norm) {
      NormParams p{};
      p.rows = c.rows, p.inner = c.len, p.mode = 0, p.flags = 0, p.nchunks = 1, p.eps = 1e-5f;
      check(dp.write(&p, sizeof p), "params");
    } else if (c.kind == Kind::kSoftmax) {
      RowParams p{};
      p.rows = c.rows, p.len = c.len, p.op = 3, p.nchunks = 1, p.chunk = c.len, p.scale = 1;
      check(dp.write(&p, sizeof p), "params");
    } else {
      MatmulParams p{};
      p.m = 1, p.n = c.rows, p.k = c.len, p.batch = 1, p.a_bs = c.len, p.c_bs = c.rows, p.alpha = 1;
      check(dp.write(&p, sizeof p), "params");
    }
    std::printf("\n%s (%.1f MiB read)\n", c.name, (in_n + hw.size()) * 4.0 / (1 << 20));
    // Both variants' command lists, checked, then timed in alternation (`rounds` times, the
    // best median kept): on a loaded shared CPU one back-to-back pair is mostly noise.
    std::vector<std::unique_ptr<gpu::CommandList>> lists;
    std::vector<std::string> labels;
    for (int variant : {1, 2}) {
      const bool sg = variant == 2;
      std::string shader = c.kind == Kind::kLayerNorm ? "row_norm_rows"
                           : c.kind == Kind::kLongNorm ? "row_norm"
                           : c.kind == Kind::kSoftmax  ? "reduce_rows"
                                                       : "matmul_gemv";
      if (sg) shader += "_sg";
      gpu::PipelineKey key(shader);
      uint64_t groups = c.rows;
      if (c.kind == Kind::kLayerNorm) {
        key.set("WG", 256).set("TPR", tpr);
        groups = (c.rows + 256 / tpr - 1) / (256 / tpr);
      } else if (c.kind == Kind::kSoftmax || c.kind == Kind::kLongNorm) {
        key.set("WG", 256);
      } else {
        key.set("trans_b", 1);
        groups = (c.rows + 3) / 4;
      }
      auto pl = take(cache.get(key), shader.c_str());
      gpu::Dispatch d;
      d.pipeline = pl;
      if (norm) {
        d.bindings = {{0, &dx}, {1, &dx}, {2, &dx}, {3, &dout}, {4, &dspare1}, {5, &dspare2}, {6, &dp}};
      } else if (c.kind == Kind::kSoftmax) {
        d.bindings = {{0, &dx}, {1, &dout}, {2, &dp}};
      } else {
        d.bindings = {{0, &dx}, {1, &dw}, {2, &dw}, {3, &dout}, {4, &dp}};
      }
      d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
      d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
      auto list = std::make_unique<gpu::CommandList>(dev);
      take(list->add(d), "add");
      check(dout.write(std::vector<float>(out_n, NAN).data(), out_n * 4), "clear");
      check(list->submit().status(), "run");
      const double err = max_abs_diff(read_back(dout, out_n), ref);
      const double limit = gemv ? 1e-3 : 1e-4;
      char label[128];
      std::snprintf(label, sizeof label, "  v%d %-22s max|err| %.2e %s", variant, shader.c_str(), err, err < limit ? "ok  " : "FAIL");
      labels.push_back(label);
      lists.push_back(std::move(list));
    }
    std::vector<double> best(lists.size(), INFINITY);
    const char* clock = "gpu";
    for (int round = 0; round < rounds; ++round) {
      for (size_t v = 0; v < lists.size(); ++v) {
        double ms = time_list_gpu(*lists[v], reps);
        if (ms == 0) {
          ms = time_list(*lists[v], reps);
          clock = "wall";
        }
        best[v] = std::min(best[v], ms);
      }
    }
    for (size_t v = 0; v < lists.size(); ++v) std::printf("%s %9.4f ms (%s)\n", labels[v].c_str(), best[v], clock);
  }
  return 0;
}
