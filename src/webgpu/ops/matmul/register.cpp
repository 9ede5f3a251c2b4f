// aten.linear / mm / bmm / addmm. All dispatches are recorded; the prepare step picks one by
// the live shape and gives the others a zero grid. Which kernels compete depends on the
// adapter (Graph::gpu_kernel_choice), as measured in bench/kernels/matmul/README.md:
//   GPUs: matmul_large_vec4.wgsl (K % 4 == 0 and N % 4 == 0) at 128x128, 64x64 (BK 8),
//         128x64 or 64x64 (BK 16) tiles by how many tiles the output has; else
//         matmul_large.wgsl (64x64, scalar loads) for K >= 128 and matmul_tiled.wgsl below that;
//   CPU adapters (SwiftShader): matmul_direct.wgsl (no shared memory) for N <= 16 or
//         K <= 64, else matmul_tiled.wgsl (64x64 tiles through shared memory);
//   both: matmul_gemv.wgsl for live M == 1 (LLM decode; matmul_gemv_sg.wgsl with
//         GraphOptions::subgroups).
// Split-K: where the 64x64 vec4 kernel's grid is too small to fill a GPU (a 1,500-token
// Whisper linear: 192 tiles on 132 multiprocessors), that kernel runs again with KS splits
// of K, each storing raw sums to a scratch buffer, and matmul_splitk_reduce.wgsl adds them up
// and applies bias and epilogue (GraphOptions::matmul_splitk, on by default since the H100
// A/B of 2026-12-05; the rule, splitk.h, is modeled on conv2d_igemm's split-K in
// ops/conv/register.cpp).
// A linear whose weight the graph stores as f16 (GraphOptions::f16_weights, Elem::kF16) runs
// matmul_large_vec4_f16w.wgsl at the same three tiles on every adapter, or, where the device
// has shader-f16 (and GraphOptions::f16_arith), matmul_large_vec4_f16math.wgsl (f16
// arithmetic) at those tiles; live M == 1 matmul_gemv_f16w.wgsl either way: no other kernel
// reads f16 weights.
// Every kernel stores through the epilogue of matmul_epilogue.inc.wgsl: the elementwise ops
// after the product that webgpu/matmul_fusion.cpp folded into it (Graph::matmul_epilogue).
#include <algorithm>

#include "webgpu/graph.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/matmul/build_linear.h"
#include "webgpu/ops/matmul/splitk.h"
#include "webgpu/ops/matmul/tile_staging.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

struct MatmulParams {
  uint32_t m, n, k, batch;
  uint32_t a_bs, b_bs, c_bs, bias_mode;
  uint32_t bias_rs, bias_cs, epi, res_mode;
  float alpha, beta, pad2, pad3;
  float epi_a[4];
};
static_assert(sizeof(MatmulParams) == 80);
// The WGSL Params of the family's module has the same size (generated at configure time).
static_assert(sizeof(MatmulParams) == gpu::wgsl_size::matmul_params_Params);

enum class Kind { kLinear, kMm, kBmm, kAddmm };

constexpr uint32_t kTile = 64;
// matmul_direct: 4x4 outputs per thread; 8x8 threads (32x32 tile) or, for N <= 16, 4x16
// threads (64 rows by 16 columns, so no column of the tile is wasted).
constexpr uint32_t kDirectSquare = 32;
constexpr uint32_t kNarrowN = 16;
constexpr uint32_t kNarrowRows = 64;
// Up to this K the direct kernel wins on CPU adapters (no reuse across K tiles to pay for
// the barriers).
constexpr int64_t kDirectMaxK = 64;
constexpr uint32_t kGemvColsTrans = 4;
constexpr uint32_t kGemvColsPlain = 64;

// The large-shape kernels' tiles (pipeline overrides), each within WebGPU's default limits
// (16 KiB of workgroup storage, 256 invocations). On the H200 128x128 wins from about 4
// tiles per multiprocessor and 64x64 (4x4 per thread, 256 threads) below. 128x64 from 3:
// on the H100 (2026-12-05, matmul bench v33 / v34 of the shipped kernel) 64x64 was as fast
// or faster at 264 and 288 tiles of 128x64 (ViT-S fc1 75.6 against 78.3 us; Whisper base's
// joint q/k/v [1500, 1536] 115 against 135 us) and equal at 384 (Whisper fc1, 135 us).
struct LargeTile {
  uint32_t bm, bn, bk, rm, rn;
};
constexpr LargeTile kTile128 = {128, 128, 8, 8, 8};    // bench v8
constexpr LargeTile kTile128x64 = {128, 64, 8, 8, 8};  // bench v15
constexpr LargeTile kTile64 = {64, 64, 16, 4, 4};      // bench v12
// 64x64 at BK 8, 8x4 a thread: 128 threads and 8 KiB, so six workgroups a multiprocessor
// where the 16 KiB tiles run three (bench/kernels/occupancy). On the H100 (2026-12-06, bench
// v41) it beat the 64x64 / BK 16 and 128x64 tiles on every large unsplit grid: Whisper base's
// joint q/k/v 108 against 120-125 us, its fc1 126 against 135, ViT-S's fc1 69 against 75;
// on small grids (ViT-S proj, 132 tiles: 39 against 31) and under split-K it lost.
constexpr LargeTile kTile64k8 = {64, 64, 8, 8, 4};
constexpr LargeTile kTile64Scalar = {64, 64, 16, 8, 4};  // bench v14 (matmul_large.wgsl)
// The staging of global loads holds these tiles (tile_staging.h).
static_assert(vec4_staging_fits(kTile128) && vec4_staging_fits(kTile128x64) && vec4_staging_fits(kTile64) &&
              vec4_staging_fits(kTile64k8));
static_assert(scalar_staging_fits(kTile64Scalar));
constexpr uint32_t kSplitReduceWorkgroup = 256;  // matmul_splitk_reduce
static_assert(kSplitBk == kTile64.bk);  // splitk.h counts K steps of the 64x64 tile
constexpr uint64_t kSplitMaxPartialBytes = uint64_t{64} << 20;
constexpr uint64_t kMinTiles128 = 512;    // 128x128 tiles for kTile128
constexpr uint64_t kMinTiles128x64 = 384;  // 128x64 tiles for kTile128x64
constexpr uint64_t kMinTiles64k8 = 384;    // 64x64 tiles for kTile64k8 (GraphOptions::matmul_tile_k8)
// Unaligned shapes: matmul_large.wgsl from this K, matmul_tiled.wgsl below it.
constexpr int64_t kLargeScalarMinK = 128;

gpu::PipelineKey tile_key(gpu::ShaderName shader, const LargeTile& t) {
  return gpu::PipelineKey(shader).set("BM", t.bm).set("BN", t.bn).set("BK", t.bk).set("RM", t.rm).set("RN", t.rn);
}
gpu::PipelineKey large_key(gpu::ShaderName shader, bool trans_b, const LargeTile& t) {
  return tile_key(shader, t).set("trans_b", trans_b ? 1 : 0);
}

// M, N, K and batch of the shape bounds (max_dims), for which kernels to build.
struct MaxDims {
  uint64_t m = 1, n = 1, k = 1, batch = 1;
};
MaxDims max_dims(Kind kind, const std::vector<int64_t>& ad, const std::vector<int64_t>& bd) {
  auto u = [](int64_t v) { return static_cast<uint64_t>(std::max<int64_t>(v, 1)); };
  MaxDims d;
  switch (kind) {
    case Kind::kLinear:
      d.k = u(ad.back()), d.n = u(bd[0]);
      for (size_t i = 0; i + 1 < ad.size(); ++i) d.m *= u(ad[i]);
      break;
    case Kind::kMm: case Kind::kAddmm:
      d.m = u(ad[0]), d.k = u(ad[1]), d.n = u(bd[1]);
      break;
    case Kind::kBmm:
      d.batch = u(ad[0]), d.m = u(ad[1]), d.k = u(ad[2]), d.n = u(bd[2]);
      break;
  }
  return d;
}

Status invalid(const char* name, const std::string& what) {
  return Status(ErrorCode::kInvalidArgument, std::string(name) + ": " + what);
}

// matmul_params.inc.wgsl's p.res_mode: where the epilogue's residual comes from.
enum ResMode : uint32_t { kNoResidual = 0, kResidualBinding = 1, kResidualInOutput = 2 };

// a @ op(b) (+ bias), op(b) = b^T for linear. `bias` may be null. With the graph's epilogue
// for this op (Graph::matmul_epilogue, matmul_fusion.h) the result goes through its steps
// into the epilogue's output instead of `out`.
Status build_matmul(Graph& g, const char* name, Kind kind, GpuTensor* a, GpuTensor* b, GpuTensor* bias,
                    GpuTensor* out, float alpha, float beta) {
  const MatmulEpilogue* epi = g.matmul_epilogue();
  GpuTensor *residual = nullptr, *column = nullptr;
  uint32_t epi_codes = 0, res_mode = kNoResidual;
  float epi_a[4] = {0, 0, 0, 0};
  bool reshaped = false;
  if (epi) {
    if (epi->steps.empty() || epi->steps.size() > kMaxMatmulSteps) return invalid(name, "bad epilogue");
    WICK_ASSIGN_OR_RETURN(out, g.tensor(epi->out_id, name));
    if (epi->residual_id >= 0) { WICK_ASSIGN_OR_RETURN(residual, g.tensor(epi->residual_id, name)); }
    if (epi->column_id >= 0) { WICK_ASSIGN_OR_RETURN(column, g.tensor(epi->column_id, name)); }
    for (size_t s = 0; s < epi->steps.size(); ++s) {
      epi_codes |= static_cast<uint32_t>(epi->steps[s].code) << (4 * s);
      epi_a[s] = epi->steps[s].a;
    }
    if (residual) {
      // The memory plan may have put the output in the residual's words (matmul_fusion.h):
      // one buffer cannot be bound both read-only and writable, so the shader reads it
      // from the output binding then.
      const bool same = residual->buffer->handle() == out->buffer->handle();
      if (same && residual->buffer->offset() != out->buffer->offset())
        return invalid(name, "epilogue residual overlaps the output");
      res_mode = same ? kResidualInOutput : kResidualBinding;
    }
    reshaped = epi->reshaped;
  }
  // f16w: the linear's weight is stored as f16 (f16_weights.h: [N, K], N and K multiples of 4).
  const bool f16w = kind == Kind::kLinear && b->elem == Elem::kF16;
  for (GpuTensor* t : {a, b, bias, out, residual, column})
    if (t && !t->is_float() && !(t == b && f16w))
      return Status(ErrorCode::kNotSupported, std::string(name) + ": float tensors only");
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

  const bool gpu_choice = g.gpu_kernel_choice();
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(MatmulParams), name));
  // GraphOptions::specialize_matmul_epilogue: the step codes as the shaders' EPI constant
  // (matmul_epilogue.inc.wgsl), so each pipeline holds only its own epilogue.
  const bool specialize = g.options().specialize_matmul_epilogue;
  // `tile`, if given, goes into the dispatch's label after the shader (profiles and tests
  // tell the tiles of one shader apart by it).
  auto add = [&](const gpu::PipelineKey& base_key, const char* tile = nullptr) -> Result<size_t> {
    gpu::PipelineKey key = base_key;
    if (specialize) key.set("EPI", epi_codes);
    WICK_ASSIGN_OR_RETURN(auto pl, g.pipeline(key));
    gpu::Dispatch d;
    if (tile) d.label = g.current_op() + " " + key.shader + ":" + tile;
    d.pipeline = std::move(pl);
    // Bindings 2, 5 and 6 unused: b again (read-only, like them).
    d.bindings = {{0, a->buffer.get()}, {1, b->buffer.get()}, {2, bias ? bias->buffer.get() : b->buffer.get()},
                  {3, out->buffer.get()}, {4, params->buffer()},
                  {5, res_mode == kResidualBinding ? residual->buffer.get() : b->buffer.get()},
                  {6, column ? column->buffer.get() : b->buffer.get()}};
    return g.add_dispatch(std::move(d));
  };
  constexpr size_t kNone = SIZE_MAX;
  const int tb = trans_b ? 1 : 0;
  size_t tiled_index = kNone, gemv_index = kNone;
  if (!f16w) {
    WICK_ASSIGN_OR_RETURN(tiled_index, add(gpu::PipelineKey(gpu::shaders::matmul_tiled).set("trans_b", tb)));
    const auto gemv = g.use_subgroups() ? gpu::shaders::matmul_gemv_sg : gpu::shaders::matmul_gemv;  // GraphOptions::subgroups
    WICK_ASSIGN_OR_RETURN(gemv_index, add(gpu::PipelineKey(gemv).set("trans_b", tb)));
  }
  size_t direct_index = kNone, narrow_index = kNone;
  size_t large128_index = kNone, large128x64_index = kNone, large64_index = kNone, large_scalar_index = kNone;
  size_t large64k8_index = kNone;
  size_t split_index = kNone, reduce_index = kNone;  // split-K of the 64x64 vec4 kernel
  std::vector<gpu::BufferBinding> reduce_bindings;
  uint32_t splits = 1;
  const bool cpu_adapter = g.device().adapter_info().adapter_type == "CPU";
  const int splitk_option = g.options().matmul_splitk;
  // A vec4 binding needs at least 16 bytes; smaller tensors never reach the large kernels.
  const bool vec4_ok = a->buffer->size() >= 16 && b->buffer->size() >= 16 && out->buffer->size() >= 16;
  if (f16w) {
    if (!vec4_ok) return Status(ErrorCode::kInvalidProgram, std::string(name) + ": f16 weight smaller than a vec4");
    // The large kernel's three tiles, chosen as on GPUs; the 64x64 one also takes M == 1.
    const MaxDims mx = max_dims(kind, a->max_dims, b->max_dims);
    const uint64_t rows128 = ceil_div(mx.m, uint64_t{128}) * mx.batch;
    // f16 arithmetic where the device has shader-f16 (its kernel has no trans_b: linears only).
    const bool f16_math = g.options().f16_arith && g.device().has_feature(gpu::Feature::kShaderF16);
    auto key = [&](const LargeTile& t) {
      return f16_math ? tile_key(gpu::shaders::matmul_large_vec4_f16math, t)
                      : large_key(gpu::shaders::matmul_large_vec4_f16w, trans_b, t);
    };
    if (rows128 * ceil_div(mx.n, uint64_t{128}) >= kMinTiles128) {
      WICK_ASSIGN_OR_RETURN(large128_index, add(key(kTile128)));
    }
    if (rows128 * ceil_div(mx.n, uint64_t{64}) >= kMinTiles128x64) {
      WICK_ASSIGN_OR_RETURN(large128x64_index, add(key(kTile128x64)));
    }
    WICK_ASSIGN_OR_RETURN(large64_index, add(key(kTile64)));
    WICK_ASSIGN_OR_RETURN(gemv_index, add(gpu::PipelineKey(gpu::shaders::matmul_gemv_f16w)));
  } else if (gpu_choice) {
    // Only the kernels the shape bounds can reach (live dims never exceed them): each
    // pipeline costs a shader compile at build time.
    const MaxDims mx = max_dims(kind, a->max_dims, b->max_dims);
    const uint64_t rows128 = ceil_div(mx.m, uint64_t{128}) * mx.batch;
    if (vec4_ok) {
      if (rows128 * ceil_div(mx.n, uint64_t{128}) >= kMinTiles128) {
        WICK_ASSIGN_OR_RETURN(large128_index, add(large_key(gpu::shaders::matmul_large_vec4, trans_b, kTile128)));
      }
      if (rows128 * ceil_div(mx.n, uint64_t{64}) >= kMinTiles128x64) {
        WICK_ASSIGN_OR_RETURN(large128x64_index, add(large_key(gpu::shaders::matmul_large_vec4, trans_b, kTile128x64)));
      }
      WICK_ASSIGN_OR_RETURN(large64_index, add(large_key(gpu::shaders::matmul_large_vec4, trans_b, kTile64)));
      const uint64_t tiles64 = ceil_div(mx.m, uint64_t{64}) * ceil_div(mx.n, uint64_t{64}) * mx.batch;
      if (g.options().matmul_tile_k8 && tiles64 >= kMinTiles64k8) {
        WICK_ASSIGN_OR_RETURN(large64k8_index, add(large_key(gpu::shaders::matmul_large_vec4, trans_b, kTile64k8), "64x64x8"));
      }
      // Split-K for the 64x64 tile, at the splits the shape bounds call for: the same kernel
      // storing raw sums into the partial buffer, then the reduce (same params, same epilogue).
      const uint64_t ks = splitk_factor(splitk_option, cpu_adapter, tiles64, mx.k);
      const uint64_t partial_bytes = mx.batch * ks * mx.m * mx.n * 4;
      if (ks > 1 && mx.k % 4 == 0 && mx.n % 4 == 0 && partial_bytes <= kSplitMaxPartialBytes &&
          partial_bytes <= g.device().limits().max_storage_buffer_binding_size) {
        splits = static_cast<uint32_t>(ks);
        WICK_ASSIGN_OR_RETURN(gpu::Buffer * partial, g.shared_scratch("matmul split-K partial sums", partial_bytes));
        gpu::PipelineKey key = large_key(gpu::shaders::matmul_large_vec4, trans_b, kTile64).set("KS", splits);
        WICK_ASSIGN_OR_RETURN(auto pl, g.pipeline(key));
        gpu::Dispatch d;
        d.pipeline = std::move(pl);
        d.bindings = {{0, a->buffer.get()}, {1, b->buffer.get()}, {2, b->buffer.get()}, {3, partial},
                      {4, params->buffer()}, {5, b->buffer.get()}, {6, b->buffer.get()}};
        WICK_ASSIGN_OR_RETURN(split_index, g.add_dispatch(std::move(d)));
        gpu::PipelineKey rkey(gpu::shaders::matmul_splitk_reduce);
        rkey.set("KS", splits).set("wg_size", kSplitReduceWorkgroup);
        if (specialize) rkey.set("EPI", epi_codes);
        WICK_ASSIGN_OR_RETURN(auto rpl, g.pipeline(rkey));
        gpu::Dispatch r;
        r.pipeline = std::move(rpl);
        // No binding 1: the reduce never reads b.
        r.bindings = {{0, partial}, {2, bias ? bias->buffer.get() : b->buffer.get()},
                      {3, out->buffer.get()}, {4, params->buffer()},
                      {5, res_mode == kResidualBinding ? residual->buffer.get() : b->buffer.get()},
                      {6, column ? column->buffer.get() : b->buffer.get()}};
        reduce_bindings = r.bindings;
        WICK_ASSIGN_OR_RETURN(reduce_index, g.add_dispatch(std::move(r)));
      }
    }
    if (mx.k >= static_cast<uint64_t>(kLargeScalarMinK)) {
      WICK_ASSIGN_OR_RETURN(large_scalar_index, add(large_key(gpu::shaders::matmul_large, trans_b, kTile64Scalar)));
    }
  } else {
    WICK_ASSIGN_OR_RETURN(direct_index, add(gpu::PipelineKey(gpu::shaders::matmul_direct).set("trans_b", tb)
                                                .set("wg_x", 8).set("wg_y", 8)));
    WICK_ASSIGN_OR_RETURN(narrow_index, add(gpu::PipelineKey(gpu::shaders::matmul_direct).set("trans_b", tb)
                                                .set("wg_x", 4).set("wg_y", 16)));
  }
  // A layer norm that reads the output next may take the reduce over (ops/norm/norm_into_splitk.h).
  if (reduce_index != kNone)
    g.note_split_reduce({out, reduce_index, reduce_bindings, splits, epi_codes, specialize, b, trans_b});
  const std::vector<size_t> all = {tiled_index, gemv_index, direct_index, narrow_index,
                                   large128_index, large128x64_index, large64_index, large_scalar_index,
                                   large64k8_index, split_index, reduce_index};

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
    if (reshaped) {
      // A view on the way to the epilogue's output (only in graphs without symbolic sizes:
      // matmul_fusion.h): the output has its upper-bound shape, which the live result must fill.
      if (shape_numel(shape) != out->max_numel())
        return invalid(name, "result " + shape_to_string(shape) + " does not fill the fused output " +
                                 shape_to_string(out->max_dims));
      shape = out->max_dims;
    }
    if (shape.size() != out->max_dims.size() || shape_numel(shape) > out->max_numel())
      return invalid(name, "result " + shape_to_string(shape) + " does not fit the output " + shape_to_string(out->max_dims));
    out->dims = shape;
    if (residual && residual->dims != shape)
      return invalid(name, "epilogue residual " + shape_to_string(residual->dims) + " is not shaped as the result " +
                               shape_to_string(shape));
    if (column && column->numel() != n)
      return invalid(name, "epilogue column operand " + shape_to_string(column->dims) + " has not N = " +
                               std::to_string(n) + " values");

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
    p.epi = epi_codes;
    p.res_mode = res_mode;
    for (int s = 0; s < 4; ++s) p.epi_a[s] = epi_a[s];
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
      for (size_t i : all)
        if (i != kNone && i != chosen) WICK_RETURN_IF_ERROR(g.set_workgroups(i, 0, 0, 0));
      return g.set_workgroups(chosen, x, y, z);
    };
    if (m == 0 || n == 0 || batch == 0) return only(f16w ? large64_index : tiled_index, 0, 0);
    if (f16w && k % 4 != 0) return invalid(name, "f16 weight with K = " + std::to_string(k) + " (needs K % 4 == 0)");
    if (m == 1) {
      const uint64_t groups = ceil_div(static_cast<uint64_t>(n), trans_b ? kGemvColsTrans : kGemvColsPlain);
      const uint64_t y = (groups + max_dim - 1) / max_dim;
      const uint64_t x = (groups + y - 1) / y;
      if (y > max_dim) return Status(ErrorCode::kNotSupported, std::string(name) + ": N too large");
      return only(gemv_index, static_cast<uint32_t>(x), static_cast<uint32_t>(y));
    }
    const uint64_t um = static_cast<uint64_t>(m), un = static_cast<uint64_t>(n);
    size_t chosen = tiled_index;
    uint64_t tm = kTile, tn = kTile;
    if (gpu_choice || f16w) {
      if (vec4_ok && k % 4 == 0 && n % 4 == 0) {
        const uint64_t rows128 = ceil_div(um, uint64_t{128}) * static_cast<uint64_t>(batch);
        LargeTile t = kTile64;
        chosen = large64_index;
        const uint64_t tiles64 = ceil_div(um, uint64_t{64}) * ceil_div(un, uint64_t{64}) * static_cast<uint64_t>(batch);
        if (rows128 * ceil_div(un, uint64_t{128}) >= kMinTiles128 && large128_index != kNone) {
          t = kTile128, chosen = large128_index;
        } else if (tiles64 >= kMinTiles64k8 && large64k8_index != kNone) {
          t = kTile64k8, chosen = large64k8_index;
        } else if (rows128 * ceil_div(un, uint64_t{64}) >= kMinTiles128x64 && large128x64_index != kNone) {
          t = kTile128x64, chosen = large128x64_index;
        }
        tm = t.bm, tn = t.bn;
      } else if (k >= kLargeScalarMinK && large_scalar_index != kNone) {
        chosen = large_scalar_index, tm = kTile64Scalar.bm, tn = kTile64Scalar.bn;
      }
    } else if (n <= kNarrowN) {
      chosen = narrow_index, tm = kNarrowRows, tn = kNarrowN;
    } else if (k <= kDirectMaxK) {
      chosen = direct_index, tm = kDirectSquare, tn = kDirectSquare;
    }
    const uint64_t gx = ceil_div(un, tn), gy = ceil_div(um, tm);
    if (gx > max_dim || gy > max_dim) return Status(ErrorCode::kNotSupported, std::string(name) + ": matrix too large");
    // Split-K where the live grid calls for it (the splits are the pipeline's, from the bounds).
    if (chosen == large64_index && split_index != kNone &&
        splitk_factor(splitk_option, cpu_adapter, gx * gy * static_cast<uint64_t>(batch), static_cast<uint64_t>(k)) > 1 &&
        static_cast<uint64_t>(batch) * splits <= max_dim) {
      for (size_t i : all)
        if (i != kNone && i != split_index && i != reduce_index) WICK_RETURN_IF_ERROR(g.set_workgroups(i, 0, 0, 0));
      WICK_RETURN_IF_ERROR(g.set_workgroups(split_index, static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), z * splits));
      return g.set_grid(reduce_index, static_cast<uint64_t>(batch) * um * un / 4, kSplitReduceWorkgroup);
    }
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

Status build_linear(Graph& g, const char* name, GpuTensor* x, GpuTensor* w, GpuTensor* bias, GpuTensor* out) {
  return build_matmul(g, name, Kind::kLinear, x, w, bias, out, 1.f, 1.f);
}

void append_matmul_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.linear.default", "T T T? -> T", matmul, Kind::kLinear},
      {"aten.mm.default", "T T -> T", matmul, Kind::kMm},
      {"aten.bmm.default", "T T -> T", matmul, Kind::kBmm},
      {"aten.addmm.default", "T T T F? F? -> T", matmul, Kind::kAddmm},
  });
}

}  // namespace wick::webgpu
