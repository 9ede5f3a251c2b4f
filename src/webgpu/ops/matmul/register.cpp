// aten.linear / mm / bmm / addmm -> matmul_tiled.wgsl (64x64 register-blocked tiles through
// shared memory, for long K), matmul_direct.wgsl (no shared memory: short K, e.g. attention
// scores q @ k^T with K = head dim, or narrow N, e.g. probs @ v) and matmul_gemv.wgsl (live
// M == 1: LLM decode). All dispatches are recorded; the prepare step picks one by the live
// shape and gives the others a zero grid. Measurements: bench/kernels/matmul/README.md.
#include <algorithm>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

struct MatmulParams {
  uint32_t m, n, k, batch;
  uint32_t a_bs, b_bs, c_bs, bias_mode;
  uint32_t bias_rs, bias_cs, pad0, pad1;
  float alpha, beta, pad2, pad3;
};
static_assert(sizeof(MatmulParams) == 64);
// The WGSL Params of the family's module has the same size (generated at configure time).
static_assert(sizeof(MatmulParams) == gpu::wgsl_size::matmul_params_Params);

enum class Kind { kLinear, kMm, kBmm, kAddmm };

constexpr uint32_t kTile = 64;
// matmul_direct: 4x4 outputs per thread; 8x8 threads (32x32 tile) or, for N <= 16, 4x16
// threads (64 rows by 16 columns, so no column of the tile is wasted).
constexpr uint32_t kDirectSquare = 32;
constexpr uint32_t kNarrowN = 16;
constexpr uint32_t kNarrowRows = 64;
// Up to this K the direct kernel wins (no reuse across K tiles to pay for the barriers).
constexpr int64_t kDirectMaxK = 64;
constexpr uint32_t kGemvColsTrans = 4;
constexpr uint32_t kGemvColsPlain = 64;

Status invalid(const char* name, const std::string& what) {
  return Status(ErrorCode::kInvalidArgument, std::string(name) + ": " + what);
}

// a @ op(b) (+ bias), op(b) = b^T for linear. `bias` may be null.
Status build_matmul(Graph& g, const char* name, Kind kind, GpuTensor* a, GpuTensor* b, GpuTensor* bias,
                    GpuTensor* out, float alpha, float beta) {
  for (GpuTensor* t : {a, b, bias, out})
    if (t && !t->is_float()) return Status(ErrorCode::kNotSupported, std::string(name) + ": float tensors only");
  const bool trans_b = kind == Kind::kLinear;
  switch (kind) {
    case Kind::kLinear:
      if (a->rank() < 1 || b->rank() != 2)
        return Status(ErrorCode::kInvalidProgram, std::string(name) + ": input rank " + std::to_string(a->rank()) +
                                                      ", weight rank " + std::to_string(b->rank()) + " (need [N, K])");
      break;
    case Kind::kMm: case Kind::kAddmm:
      if (a->rank() != 2 || b->rank() != 2)
        return Status(ErrorCode::kInvalidProgram, std::string(name) + ": operands must be 2-D");
      break;
    case Kind::kBmm:
      if (a->rank() != 3 || b->rank() != 3)
        return Status(ErrorCode::kInvalidProgram, std::string(name) + ": operands must be 3-D");
      break;
  }
  if (bias && bias->rank() > 2) return Status(ErrorCode::kNotSupported, std::string(name) + ": bias rank above 2");

  WICK_ASSIGN_OR_RETURN(auto tiled, g.pipeline(gpu::PipelineKey(gpu::shaders::matmul_tiled).set("trans_b", trans_b ? 1 : 0)));
  WICK_ASSIGN_OR_RETURN(auto gemv, g.pipeline(gpu::PipelineKey(gpu::shaders::matmul_gemv).set("trans_b", trans_b ? 1 : 0)));
  WICK_ASSIGN_OR_RETURN(auto direct, g.pipeline(gpu::PipelineKey(gpu::shaders::matmul_direct).set("trans_b", trans_b ? 1 : 0)
                                                    .set("wg_x", 8).set("wg_y", 8)));
  WICK_ASSIGN_OR_RETURN(auto narrow, g.pipeline(gpu::PipelineKey(gpu::shaders::matmul_direct).set("trans_b", trans_b ? 1 : 0)
                                                    .set("wg_x", 4).set("wg_y", 16)));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(MatmulParams), name));
  auto bindings = [&](std::shared_ptr<const gpu::ComputePipeline> pl) {
    gpu::Dispatch d;
    d.pipeline = std::move(pl);
    d.bindings = {{0, a->buffer.get()}, {1, b->buffer.get()}, {2, bias ? bias->buffer.get() : b->buffer.get()},
                  {3, out->buffer.get()}, {4, params->buffer()}};
    return d;
  };
  WICK_ASSIGN_OR_RETURN(size_t tiled_index, g.add_dispatch(bindings(tiled)));
  WICK_ASSIGN_OR_RETURN(size_t gemv_index, g.add_dispatch(bindings(gemv)));
  WICK_ASSIGN_OR_RETURN(size_t direct_index, g.add_dispatch(bindings(direct)));
  WICK_ASSIGN_OR_RETURN(size_t narrow_index, g.add_dispatch(bindings(narrow)));

  return g.add_step([=, &g]() -> Status {
    int64_t m = 0, n = 0, k = 0, batch = 1;
    std::vector<int64_t> shape;
    const auto& ad = a->dims;
    const auto& bd = b->dims;
    switch (kind) {
      case Kind::kLinear: {
        k = ad.back();
        n = bd[0];
        if (bd[1] != k)
          return invalid(name, "input " + shape_to_string(ad) + " and weight " + shape_to_string(bd) + " disagree on K");
        m = 1;
        for (size_t i = 0; i + 1 < ad.size(); ++i) m *= ad[i];
        shape = ad;
        shape.back() = n;
        break;
      }
      case Kind::kMm: case Kind::kAddmm:
        m = ad[0], k = ad[1], n = bd[1];
        if (bd[0] != k) return invalid(name, "shapes " + shape_to_string(ad) + " and " + shape_to_string(bd) + " cannot be multiplied");
        shape = {m, n};
        break;
      case Kind::kBmm:
        batch = ad[0], m = ad[1], k = ad[2], n = bd[2];
        if (bd[0] != batch || bd[1] != k)
          return invalid(name, "shapes " + shape_to_string(ad) + " and " + shape_to_string(bd) + " cannot be multiplied");
        shape = {batch, m, n};
        break;
    }
    if (shape.size() != out->max_dims.size() || shape_numel(shape) > out->max_numel())
      return invalid(name, "result " + shape_to_string(shape) + " does not fit the output " + shape_to_string(out->max_dims));
    out->dims = shape;

    MatmulParams p{};
    p.m = static_cast<uint32_t>(m);
    p.n = static_cast<uint32_t>(n);
    p.k = static_cast<uint32_t>(k);
    p.batch = static_cast<uint32_t>(batch);
    p.a_bs = static_cast<uint32_t>(m * k);
    p.b_bs = kind == Kind::kBmm ? static_cast<uint32_t>(k * n) : 0;
    p.c_bs = static_cast<uint32_t>(m * n);
    p.alpha = alpha;
    p.beta = beta;
    if (bias) {
      // Broadcast bias to [M, N]: a size-1 (or missing) dim gets stride 0.
      const auto& bb = bias->dims;
      const int64_t bn = bb.empty() ? 1 : bb.back();
      const int64_t bm = bb.size() == 2 ? bb[0] : 1;
      if ((bn != 1 && bn != n) || (bm != 1 && bm != m))
        return invalid(name, "bias " + shape_to_string(bb) + " does not broadcast to [" + std::to_string(m) + ", " +
                                 std::to_string(n) + "]");
      p.bias_mode = 1;
      p.bias_cs = bn == 1 ? 0 : 1;
      p.bias_rs = bm == 1 ? 0 : static_cast<uint32_t>(bn);
    }
    WICK_RETURN_IF_ERROR(params->write(p));

    const uint32_t max_dim = g.device().limits().max_compute_workgroups_per_dimension
                                 ? g.device().limits().max_compute_workgroups_per_dimension
                                 : 65535;
    if (batch > max_dim) return Status(ErrorCode::kNotSupported, std::string(name) + ": batch too large");
    const uint32_t z = static_cast<uint32_t>(batch);
    // One kernel gets the grid, the others none.
    auto only = [&](size_t chosen, uint32_t x, uint32_t y) -> Status {
      for (size_t i : {tiled_index, gemv_index, direct_index, narrow_index})
        if (i != chosen) WICK_RETURN_IF_ERROR(g.set_workgroups(i, 0, 0, 0));
      return g.set_workgroups(chosen, x, y, z);
    };
    if (m == 0 || n == 0 || batch == 0) return only(tiled_index, 0, 0);
    if (m == 1) {
      const uint64_t groups = ceil_div(static_cast<uint64_t>(n), trans_b ? kGemvColsTrans : kGemvColsPlain);
      const uint64_t y = (groups + max_dim - 1) / max_dim;
      const uint64_t x = (groups + y - 1) / y;
      if (y > max_dim) return Status(ErrorCode::kNotSupported, std::string(name) + ": N too large");
      return only(gemv_index, static_cast<uint32_t>(x), static_cast<uint32_t>(y));
    }
    size_t chosen = tiled_index;
    uint64_t tm = kTile, tn = kTile;
    if (n <= kNarrowN) {
      chosen = narrow_index, tm = kNarrowRows, tn = kNarrowN;
    } else if (k <= kDirectMaxK) {
      chosen = direct_index, tm = kDirectSquare, tn = kDirectSquare;
    }
    const uint64_t gx = ceil_div(static_cast<uint64_t>(n), tn), gy = ceil_div(static_cast<uint64_t>(m), tm);
    if (gx > max_dim || gy > max_dim) return Status(ErrorCode::kNotSupported, std::string(name) + ": matrix too large");
    return only(chosen, static_cast<uint32_t>(gx), static_cast<uint32_t>(gy));
  });
}

// variant = Kind. linear [x, weight, bias?, out]; mm / bmm [a, b, out];
// addmm [self, mat1, mat2, beta?, alpha?, out]: beta * self + alpha * (mat1 @ mat2).
Status matmul(Graph& g, const OpArgs& a) {
  const Kind kind = a.variant_as<Kind>();
  switch (kind) {
    case Kind::kLinear: return build_matmul(g, a.name(), kind, a.tensor(0), a.tensor(1), a.tensor(2), a.out(), 1.f, 1.f);
    case Kind::kAddmm:
      return build_matmul(g, a.name(), kind, a.tensor(1), a.tensor(2), a.tensor(0), a.out(),
                          static_cast<float>(a.scalar_or(4, 1)), static_cast<float>(a.scalar_or(3, 1)));
    default: return build_matmul(g, a.name(), kind, a.tensor(0), a.tensor(1), nullptr, a.out(), 1.f, 1.f);
  }
}

}  // namespace

void append_matmul_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.linear.default", "T T T? -> T", matmul, Kind::kLinear},
      {"aten.mm.default", "T T -> T", matmul, Kind::kMm},
      {"aten.bmm.default", "T T -> T", matmul, Kind::kBmm},
      {"aten.addmm.default", "T T T F? F? -> T", matmul, Kind::kAddmm},
  });
}

}  // namespace wick::webgpu
