// build_flash_attention and the kernel's tiles (attention_fusion.h): one
// ops/attention/flash_attention.wgsl dispatch for a planned AttentionFusion, or, where the
// keys are split (ops/attention/flash_splitkv.h), the split dispatch into a scratch buffer
// and flash_attention_combine.wgsl.
#include <algorithm>
#include <optional>
#include <string>

#include "webgpu/attention_fusion.h"
#include "webgpu/gpu_multiprocessors.h"
#include "webgpu/graph.h"
#include "webgpu/ops/attention/flash_splitkv.h"
#include "wgsl/wick_gpu_shaders.h"

namespace wick::webgpu {

namespace {

struct Tile {
  uint32_t bq, bkv;
};
constexpr Tile kTiles[] = {{64, 32}, {64, 24}, {48, 32}, {32, 32}, {32, 24}, {32, 16}, {16, 16}, {16, 24}, {16, 32}, {64, 16}};
constexpr uint32_t kMaxRows = 16;
constexpr uint32_t kCombineWorkgroup = 256;               // flash_attention_combine
constexpr uint64_t kMaxPartialBytes = 64ull << 20;        // the splits' scratch, at most

// flash_attention.wgsl's constraints for a tile (RS = 4) and head dim d, and its shared memory.
// The kernel's workgroup storage at a tile, in bytes: q's tile (rows padded by a vec4), the
// K tile (padded) and the P tile, either sharing one region (P over the dead K tile) or side
// by side (P_AT, flash_attention_sg.wgsl), V's tile, then `red` and `corr_s`.
uint32_t tile_storage_bytes(const Tile& t, uint32_t d4, bool p_beside_k) {
  const uint32_t k_tile = t.bkv * (d4 + 1), p_tile = t.bq * t.bkv / 4;
  const uint32_t vec4s = t.bq * (d4 + 1) + (p_beside_k ? k_tile + p_tile : std::max(k_tile, p_tile)) + t.bkv * d4;
  return (vec4s * 4 + t.bq * t.bkv / 4 + t.bq) * 4;
}

// Whether the kernel's invocations hold the tile at head dim d (a multiple of 4) with rs
// score rows each (its RS): (bq / rs) * (bkv / 4) invocations within the device's limit,
// which the output phase's d / 4 columns divide, leaving at most kMaxRows output rows each.
// The workgroup is (bkv / 4, d / bkv, invocations / (d / 4)) (the kernel's TXS, WY, NG: its
// indices from lid's components, which Tint's range analysis bounds, so robustness adds no
// clamp in the hot loops), so bkv / 4 must divide d / 4, and NG stay within WebGPU's
// guaranteed 64 in z. Head dims where no tile does (4, 8) run unfused.
bool invocations_ok(const Tile& t, int64_t d, uint32_t rs, uint32_t max_invocations) {
  const uint32_t d4 = static_cast<uint32_t>(d / 4), nt = t.bq / rs * (t.bkv / 4);
  return t.bq % rs == 0 && nt <= max_invocations && nt % d4 == 0 && t.bq % (nt / d4) == 0 &&
         t.bq / (nt / d4) <= kMaxRows && d4 % (t.bkv / 4) == 0 && nt / d4 <= 64;
}

bool tile_ok(const Tile& t, int64_t d, uint32_t max_storage, uint32_t max_invocations) {
  if (d <= 0 || d % 4 || d > 1024) return false;
  return invocations_ok(t, d, 4, max_invocations) && tile_storage_bytes(t, static_cast<uint32_t>(d / 4), false) <= max_storage;
}

// The kernel's RS at a tile that fits: 2 where asked (GraphOptions::flash_score_rows) and the
// invocations hold the tile with two rows each, else 4.
uint32_t score_rows(const Tile& t, int64_t d, uint32_t asked, uint32_t max_invocations) {
  return asked == 2 && invocations_ok(t, d, 2, max_invocations) ? 2 : 4;
}

// flash_attention_sg.wgsl's conditions at a tile: the device's subgroups hold whole rows
// (TXS = bkv / 4 consecutive invocations: a power of two no larger than the smallest
// subgroup), and the P tile fits beside the K tile (P_AT) in the shared memory.
bool subgroup_tile_ok(const Tile& t, int64_t d, uint32_t max_storage, uint32_t subgroup_min) {
  const uint32_t txs = t.bkv / 4;
  if (txs == 0 || (txs & (txs - 1)) != 0 || subgroup_min < txs) return false;
  return tile_storage_bytes(t, static_cast<uint32_t>(d / 4), true) <= max_storage;
}

// The asked-for tile (GraphOptions::flash_tile_*) where it is one of kTiles and fits, else
// the first of kTiles that fits.
std::optional<Tile> pick_tile(int64_t d, uint32_t max_storage, uint32_t max_invocations, Tile asked = {0, 0}) {
  for (const Tile& t : kTiles)
    if (t.bq == asked.bq && t.bkv == asked.bkv && tile_ok(t, d, max_storage, max_invocations)) return t;
  for (const Tile& t : kTiles)
    if (tile_ok(t, d, max_storage, max_invocations)) return t;
  return std::nullopt;
}

struct FlashParams {
  uint32_t heads, sq, skv, mask_mode;
  float scale;
  uint32_t pad0, pad1, pad2;
  uint32_t q[4], k[4], v[4], o[4], m[4];  // offset, batch, head, row strides
  uint32_t q_sd, k_sd, v_sd, o_sd;
  uint32_t m_sj, pad3, pad4, pad5;
};
static_assert(sizeof(FlashParams) == 144);

}  // namespace

bool attention_tile_fits(int64_t d, uint32_t max_workgroup_storage, uint32_t max_invocations) {
  return pick_tile(d, max_workgroup_storage, max_invocations).has_value();
}

std::pair<uint32_t, uint32_t> flash_attention_tile(int64_t d, uint32_t max_workgroup_storage, uint32_t max_invocations,
                                                   uint32_t asked_bq, uint32_t asked_bkv) {
  const auto t = pick_tile(d, max_workgroup_storage, max_invocations, {asked_bq, asked_bkv});
  return t ? std::pair{t->bq, t->bkv} : std::pair{0u, 0u};
}

uint32_t flash_attention_score_rows(int64_t d, uint32_t max_workgroup_storage, uint32_t max_invocations,
                                    uint32_t asked_rows) {
  const auto t = pick_tile(d, max_workgroup_storage, max_invocations);
  return t ? score_rows(*t, d, asked_rows, max_invocations) : 4;
}

Status build_flash_attention(Graph& g, const AttentionFusion& f) {
  const char* name = "flash_attention (fused bmm, softmax, bmm)";
  const auto& lim = g.device().limits();
  auto tile = pick_tile(f.d, lim.max_compute_workgroup_storage_size, lim.max_compute_invocations_per_workgroup,
                        {g.options().flash_tile_bq, g.options().flash_tile_bkv});
  if (!tile) return Status(ErrorCode::kNotSupported, std::string(name) + ": no tile fits head dim " + std::to_string(f.d));
  std::vector<GpuTensor*> ts;
  for (int32_t id : f.uses) {
    WICK_ASSIGN_OR_RETURN(GpuTensor * t, g.tensor(id, name));
    if (!t->is_float()) return Status(ErrorCode::kInternal, std::string(name) + ": float tensors only");
    ts.push_back(t);
  }
  GpuTensor *q = ts[0], *k = ts[1], *v = ts[2], *out = ts[3], *mask = f.mask.id >= 0 ? ts[4] : nullptr;
  for (GpuTensor* in : ts)
    if (in != out && in->buffer == out->buffer)
      return Status(ErrorCode::kInternal, std::string(name) + ": the result shares a buffer with an input");
  FlashParams p{};
  auto fits32 = [](int64_t x) { return x >= 0 && x <= static_cast<int64_t>(UINT32_MAX); };
  auto set = [&](uint32_t (&dst)[4], uint32_t& sd, const AttentionView& a) {
    const bool ok = fits32(a.offset) && fits32(a.sb) && fits32(a.sh) && fits32(a.ss) && fits32(a.sd);
    dst[0] = static_cast<uint32_t>(a.offset), dst[1] = static_cast<uint32_t>(a.sb), dst[2] = static_cast<uint32_t>(a.sh);
    dst[3] = static_cast<uint32_t>(a.ss), sd = static_cast<uint32_t>(a.sd);
    return ok;
  };
  bool ok = set(p.q, p.q_sd, f.q) && set(p.k, p.k_sd, f.k) && set(p.v, p.v_sd, f.v) && set(p.o, p.o_sd, f.out);
  if (mask) ok = ok && set(p.m, p.m_sj, f.mask);
  if (!ok) return Status(ErrorCode::kNotSupported, std::string(name) + ": strides beyond 32 bits");
  p.heads = static_cast<uint32_t>(f.heads);
  p.sq = static_cast<uint32_t>(f.sq);
  p.skv = static_cast<uint32_t>(f.skv);
  p.mask_mode = mask ? 1u : 0u;
  p.scale = static_cast<float>(f.scale);
  const uint32_t gx = static_cast<uint32_t>((f.sq + tile->bq - 1) / tile->bq);
  const uint32_t gy = static_cast<uint32_t>(f.batch * f.heads);
  // Key splits: the option's (or the rule's) count, if the partial rows fit the scratch bound.
  const uint32_t mps = multiprocessors(g.options().gpu_multiprocessors, g.device().adapter_info());
  uint64_t splits = flash_splits(g.options().flash_splitkv, mps, static_cast<uint64_t>(gx) * gy,
                                 static_cast<uint64_t>((f.skv + tile->bkv - 1) / tile->bkv));
  // Rounded up to whole vec4s: the combine reads the (max, sum) pairs as vec4s, and a pair in
  // a partial last vec4 would be out of the array (robustness clamps it: wrong values).
  const uint64_t partial_bytes = (splits * gy * static_cast<uint64_t>(f.sq) * static_cast<uint64_t>(f.d + 2) * 4 + 15) / 16 * 16;
  if (partial_bytes > kMaxPartialBytes || partial_bytes > lim.max_storage_buffer_binding_size ||
      splits > lim.max_compute_workgroups_per_dimension)
    splits = 1;
  // GraphOptions::flash_subgroups: the row maxima by subgroup shuffles, P beside K.
  const bool sg = g.options().flash_subgroups && g.device().has_feature(gpu::Feature::kSubgroups) &&
                  subgroup_tile_ok(*tile, f.d, lim.max_compute_workgroup_storage_size,
                                   g.device().adapter_info().subgroup_min_size);
  gpu::PipelineKey key(sg ? gpu::shaders::flash_attention_sg : gpu::shaders::flash_attention);
  key.set("D", static_cast<uint32_t>(f.d)).set("BQ", tile->bq).set("BKV", tile->bkv);
  if (sg) key.set("P_AT", tile->bkv * static_cast<uint32_t>(f.d / 4 + 1));
  if (splits > 1) key.set("KVS", static_cast<uint32_t>(splits));
  if (!g.options().flash_prefetch) key.set("PREFETCH", 0u);
  if (g.options().flash_score_chain) key.set("SCORE_CHAIN", 1u);
  const uint32_t rs = score_rows(*tile, f.d, g.options().flash_score_rows, lim.max_compute_invocations_per_workgroup);
  if (rs != 4) key.set("RS", rs);
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(key));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(FlashParams), name));
  gpu::Buffer* partial = nullptr;
  if (splits > 1) {
    WICK_ASSIGN_OR_RETURN(partial, g.shared_scratch("flash attention key-split partials", partial_bytes));
  }
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, q->buffer.get()}, {1, k->buffer.get()}, {2, v->buffer.get()}, {3, (mask ? mask : q)->buffer.get()},
                {4, partial ? partial : out->buffer.get()}, {5, params->buffer()}};
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));
  size_t combine_index = 0;
  const uint32_t combine_x = static_cast<uint32_t>((f.sq * (f.d / 4) + kCombineWorkgroup - 1) / kCombineWorkgroup);
  if (partial) {
    WICK_ASSIGN_OR_RETURN(auto cpl, g.pipeline(gpu::PipelineKey(gpu::shaders::flash_attention_combine)
                                                   .set("D", static_cast<uint32_t>(f.d))
                                                   .set("KVS", static_cast<uint32_t>(splits))
                                                   .set("wg_size", kCombineWorkgroup)));
    gpu::Dispatch c;
    c.pipeline = std::move(cpl);
    c.bindings = {{0, partial}, {1, out->buffer.get()}, {2, params->buffer()}};
    WICK_ASSIGN_OR_RETURN(combine_index, g.add_dispatch(std::move(c)));
  }
  const uint32_t gz = static_cast<uint32_t>(splits);
  return g.add_step([=, &g]() -> Status {
    // Planned on fixed shapes (no SymInt in the graph): the inputs keep their upper bounds.
    for (GpuTensor* t : ts)
      if (t != out && t->dims != t->max_dims)
        return Status(ErrorCode::kInvalidArgument, std::string(name) + ": an input's shape " + shape_to_string(t->dims) +
                                                       " differs from the planned " + shape_to_string(t->max_dims));
    out->dims = out->max_dims;
    WICK_RETURN_IF_ERROR(params->write(p));
    WICK_RETURN_IF_ERROR(g.set_workgroups(index, gx, gy, gz));
    return partial ? g.set_workgroups(combine_index, combine_x, gy) : Status();
  });
}

}  // namespace wick::webgpu
