// Layout copies (permute, slice) at SAM 2.1 Hiera-tiny's and Depth Anything V2 S's real
// shapes: variants in bench/kernels/shape_copy/v*.wgsl against a CPU reference, then
// timed (GPU timestamps where the device has them, else wall time).
//
//   . scripts/env.sh; build/wick_kernel_bench_shape_copy [--reps N] [case numbers...]
#include <cstring>
#include <numeric>
#include <set>

#include "../harness.h"

using namespace wick;
using namespace wick::bench;

namespace {

using Arr = std::array<uint32_t, 8>;
// src/webgpu/ops/shape/copy.cpp's CopyParams (pad0 / pad1: v3's tile grid).
struct Params {
  uint32_t n, rank, in_base, out_base;
  uint32_t mode, fill, pad0, pad1;
  Arr dims, in_strides, out_strides, mods, offs, lims;
};

using Dims = std::vector<int64_t>;

struct Case {
  const char* name;
  Dims shape;   // the input
  Dims perm;    // permute by this, or (empty) slice:
  int dim = 0;  // slice dim, start and length (step 1)
  int64_t start = 0, len = 0;
};
const Case kCases[] = {
    {"SAM window partition [1,32,8,32,8,96] (0,1,3,2,4,5)", {1, 32, 8, 32, 8, 96}, {0, 1, 3, 2, 4, 5}},
    {"SAM unpartition [1,32,32,8,8,96] (0,1,3,2,4,5)", {1, 32, 32, 8, 8, 96}, {0, 1, 3, 2, 4, 5}},
    {"SAM patch embed NCHW->NHWC [1,96,256,256]", {1, 96, 256, 256}, {0, 2, 3, 1}},
    {"SAM stage 2 NHWC->NCHW [1,128,128,192]", {1, 128, 128, 192}, {0, 3, 1, 2}},
    {"SAM q/k/v unbind [1024,64,3,1,96] dim 2 [1:2]", {1024, 64, 3, 1, 96}, {}, 2, 1, 1},
    {"SAM k^T [1024,1,64,96] (0,1,3,2)", {1024, 1, 64, 96}, {0, 1, 3, 2}},
    {"DA heads [1,1370,6,64] (0,2,1,3)", {1, 1370, 6, 64}, {0, 2, 1, 3}},
    {"DA k^T [1,6,1370,64] (0,1,3,2)", {1, 6, 1370, 64}, {0, 1, 3, 2}},
};

Dims contiguous(const Dims& s) {
  Dims st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

// The plain plan (iteration = output dims, output contiguous), dims both sides walk
// contiguously merged, as copy.cpp's encode.
Params plan(const Case& c) {
  const Dims cs = contiguous(c.shape);
  Dims dims, in_st;
  int64_t in_base = 0;
  if (!c.perm.empty()) {
    for (int64_t d : c.perm) dims.push_back(c.shape[d]), in_st.push_back(cs[d]);
  } else {
    dims = c.shape, in_st = cs;
    dims[c.dim] = c.len;
    in_base = c.start * cs[c.dim];
  }
  const Dims out_st = contiguous(dims);
  Params p{};
  p.in_base = static_cast<uint32_t>(in_base);
  uint32_t n = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (n > 0 && p.in_strides[n - 1] == dims[d] * in_st[d] && p.out_strides[n - 1] == dims[d] * out_st[d]) {
      p.dims[n - 1] *= static_cast<uint32_t>(dims[d]);
      p.in_strides[n - 1] = static_cast<uint32_t>(in_st[d]);
      p.out_strides[n - 1] = static_cast<uint32_t>(out_st[d]);
    } else {
      p.dims[n] = static_cast<uint32_t>(dims[d]);
      p.in_strides[n] = static_cast<uint32_t>(in_st[d]);
      p.out_strides[n] = static_cast<uint32_t>(out_st[d]);
      ++n;
    }
  }
  p.rank = n;
  p.n = 1;
  for (uint32_t d = 0; d < n; ++d) p.n *= p.dims[d];
  return p;
}

std::vector<float> reference(const Case& c, const std::vector<float>& x, const Params& p) {
  std::vector<float> out(p.n);
  for (uint32_t i = 0; i < p.n; ++i) {
    uint32_t rem = i, si = p.in_base, di = 0;
    for (int d = static_cast<int>(p.rank) - 1; d >= 0; --d) {
      const uint32_t k = rem % p.dims[d];
      rem /= p.dims[d];
      si += k * p.in_strides[d];
      di += k * p.out_strides[d];
    }
    out[di] = x[si];
  }
  (void)c;
  return out;
}

bool to_vec4(Params& p) {
  const uint32_t last = p.rank - 1;
  if (p.in_strides[last] != 1 || p.out_strides[last] != 1 || p.dims[last] % 4 || p.in_base % 4) return false;
  for (uint32_t d = 0; d < last; ++d)
    if (p.in_strides[d] % 4 || p.out_strides[d] % 4) return false;
  p.n /= 4, p.dims[last] /= 4, p.in_base /= 4;
  for (uint32_t d = 0; d < last; ++d) p.in_strides[d] /= 4, p.out_strides[d] /= 4;
  return true;
}

// v3's layout: the source's contiguous dim next to the last, tile grid in pad0 / pad1.
void to_tiled(Params& p) {
  const uint32_t a = p.rank - 2;
  for (uint32_t d = 0; d < a; ++d) {
    if (p.in_strides[d] != 1) continue;
    for (Arr* v : {&p.dims, &p.in_strides, &p.out_strides}) {
      const uint32_t keep = (*v)[d];
      for (uint32_t k = d; k < a; ++k) (*v)[k] = (*v)[k + 1];
      (*v)[a] = keep;
    }
    break;
  }
  uint32_t batch = 1;
  for (uint32_t d = 0; d < a; ++d) batch *= p.dims[d];
  p.pad0 = (p.dims[a] + 31) / 32, p.pad1 = (p.dims[a + 1] + 31) / 32;
  p.n = batch * p.pad0 * p.pad1;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::set<int> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else only.insert(std::atoi(argv[i]));
  }
  auto dev = take(gpu::Device::create(), "device");
  std::printf("adapter: %s\n", dev->adapter_info().summary().c_str());
  gpu::PipelineCache cache(dev);
  int index = 0;
  for (const Case& c : kCases) {
    if (++index, !only.empty() && !only.count(index)) continue;
    const size_t in_n = static_cast<size_t>(std::accumulate(c.shape.begin(), c.shape.end(), int64_t{1}, std::multiplies<>()));
    const Params base = plan(c);
    const auto hx = random_floats(in_n, 5);
    const auto ref = reference(c, hx, base);
    auto dx = storage(dev, hx, "x"), dout = storage(dev, std::vector<float>(base.n), "out");
    auto dp = take(gpu::Buffer::create_uniform(dev, sizeof(Params), "params"), "params");
    const double mb = 2.0 * base.n * 4 / 1e6;
    std::printf("\n%d. %s: %u elements, rank %u after merging, %.1f MB moved\n", index, c.name, base.n, base.rank, mb);
    // wg: v1 / v2's workgroup size (their wg_size override), 0 for v3 (fixed 256).
    auto run = [&](const char* label, const char* file, const Params& p, uint64_t groups, uint32_t wg) {
      check(dp.write(&p, sizeof p), "params");
      gpu::PipelineKey key(std::string("bench_shape_copy_") + file);
      if (wg) key.set("wg_size", wg);
      auto pl = take(cache.get(key, read_variant("shape_copy", file)), file);
      gpu::CommandList list(dev);
      gpu::Dispatch d;
      d.pipeline = pl;
      d.bindings = {{0, &dx}, {1, &dout}, {2, &dp}};
      d.x = static_cast<uint32_t>(std::min<uint64_t>(groups, 32768));
      d.y = static_cast<uint32_t>((groups + d.x - 1) / d.x);
      take(list.add(d), "add");
      check(dout.write(std::vector<float>(base.n, NAN).data(), base.n * 4), "clear");
      check(list.submit().status(), "run");
      const double err = max_abs_diff(read_back(dout, base.n), ref);
      double ms = time_list_gpu(list, reps);
      const char* clock = "gpu";
      if (ms == 0) ms = time_list(list, reps), clock = "wall";
      std::printf("  %-22s %s %9.3f ms %s  %7.0f GB/s\n", label, err == 0 ? "ok  " : "FAIL", ms, clock, mb / ms);
    };
    run("v1 generic", "v1_generic.wgsl", base, (base.n + 255) / 256, 256);
    Params v = base;
    if (to_vec4(v)) run("v2 vec4", "v2_vec4.wgsl", v, (v.n + 255) / 256, 256);
    if (base.rank >= 2) {
      Params t = base;
      to_tiled(t);
      run("v3 tiled 32x32", "v3_tiled.wgsl", t, t.n, 0);
    }
  }
  return 0;
}
