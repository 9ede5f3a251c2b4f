// aten.convolution (1-D and 2-D, grouped/depthwise, transposed) and
// et_vk.conv_with_clamp (the same with a fused output clamp, e.g. ReLU/ReLU6). Elementwise
// ops that follow a conv, and the per-channel multiply before a pointwise one, can be
// fused in at graph build (webgpu/fusion.cpp): Graph::conv_fusion() says which.
#include <array>
#include <limits>

#include <cstring>

#include "webgpu/gpu_multiprocessors.h"
#include "webgpu/graph.h"
#include "webgpu/ops/conv/split_waves.h"
#include "webgpu/ops/families.h"
#include "webgpu/ops/matmul/tile_staging.h"
#include "webgpu/ops/op_kit.h"
#include "wgsl/wick_gpu_shaders.h"
#include "wgsl/wick_gpu_struct_sizes.h"

namespace wick::webgpu {

namespace {

struct ConvParams {
  uint32_t n, in_c, in_h, in_w;
  uint32_t out_c, out_h, out_w, groups;
  uint32_t k_h, k_w, stride_h, stride_w;
  uint32_t pad_h, pad_w, dil_h, dil_w;
  uint32_t total, has_bias;
  float clamp_min, clamp_max;
  uint32_t epi_n, has_scale, scale_bstride, pad0;
  std::array<std::array<uint32_t, 4>, kMaxEpilogue> epi;  // code, bits of a, -, -
};
static_assert(sizeof(ConvParams) == 96 + 16 * kMaxEpilogue);
// The WGSL Params of the family's module has the same size (generated at configure time).
static_assert(sizeof(ConvParams) == gpu::wgsl_size::conv2d_params_Params);

constexpr uint32_t kWorkgroup = 64;
constexpr uint32_t kPwWorkgroup = 128;
constexpr uint32_t kReduceWorkgroup = 256;

// conv2d_igemm's tile: 64 output pixels x 64 (or 32) output channels, K in steps of 16.
constexpr uint32_t kIgemmM = 64;
constexpr uint32_t kIgemmK = 16;
// Split K when the tile grid has fewer than half this many workgroups, into the most
// splits (at most 16) that keep the grid within it and each split at least 4 K steps
// long: 512 is about 4 workgroups per SM of a large GPU (the H200 has 132; splitting a
// 256-tile grid lost there, splitting 64 tiles 8 ways won: bench/kernels/conv/README.md);
// 16 on a CPU adapter, where each extra workgroup's barriers cost. The partial sums
// ([ks, output]) are at most this many bytes.
constexpr uint64_t kIgemmFill = 512;
constexpr uint64_t kIgemmRm8MinTiles = 1024;  // GraphOptions::conv_rm8's rule
constexpr uint64_t kIgemmFillCpu = 16;
constexpr uint64_t kIgemmMaxPartialBytes = uint64_t{64} << 20;
// Transposed convs below this many multiply-adds keep the direct kernel (conv2d_transposed):
// bench/kernels/conv_transposed/README.md.
constexpr uint64_t kTransposedGemmMinMacs = uint64_t{1} << 16;

// conv2d_pw_gemm's tiles (pipeline overrides of matmul_large_tile.inc.wgsl): BM output
// channels x BN pixels, K steps of BK input channels, RM x RN outputs per thread; each
// within WebGPU's default limits (16 KiB of workgroup storage, 256 invocations).
struct PwTile {
  uint32_t bm, bn, bk, rm, rn;
  constexpr uint32_t threads() const { return (bm / rm) * (bn / rn); }
};
constexpr PwTile kPwTile128 = {128, 128, 8, 8, 8};
constexpr PwTile kPwTile128x64 = {128, 64, 8, 8, 8};
constexpr PwTile kPwTile64 = {64, 64, 16, 4, 4};
constexpr PwTile kPwTile32 = {32, 128, 8, 4, 8};  // out_c <= 32: no mostly-empty 64-channel tiles
// conv2d_pw_gemm's staging of global loads (matmul_scalar_staging.inc.wgsl) holds these tiles.
static_assert(scalar_staging_fits(kPwTile128) && scalar_staging_fits(kPwTile128x64) && scalar_staging_fits(kPwTile64) &&
              scalar_staging_fits(kPwTile32));
// The largest tile whose grid still gives the GPU's multiprocessors (132 on the H200) about
// two workgroups each; the GEMM runs where its grid has at least kPwGemmMinTiles tiles
// (smaller layers, e.g. squeeze-and-excitation's 1x1 convs on a 1x1 plane, keep conv2d_pw
// and its split over the input channels). bench/kernels/conv/README.md, pointwise section.
constexpr uint64_t kPwMinTiles = 264;
constexpr uint64_t kPwGemmMinTiles = 16;
// Split-K: the pointwise GEMM keeps at least kPwSplitMinSteps K steps (of BK) a split, and
// both GEMMs split at most kConvMaxSplits ways.
constexpr uint64_t kPwSplitMinSteps = 8;
constexpr uint64_t kConvMaxSplits = 16;
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
// With vec4 loads (conv2d_pw_gemm_vec4) always 64x64 at BK 16: on the H100 it won every case
// of the conv_pw bench (v21) against 128x128, 128x64 and 64x64 at BK 8 with 8x4 a thread
// (v19, v20, v22), the large grids too (D-FINE's 512 -> 512 at 80x80: 150 us against
// 155-163; 640 -> 256: 111 against 111-130), and by 1.3-2.5x on grids of 28-200 tiles.
PwTile pointwise_tile(uint64_t oc, uint64_t plane, uint64_t n, bool vec4) {
  if (oc <= 32) return kPwTile32;
  if (vec4) return kPwTile64;
  if (ceil_div(oc, 128) * ceil_div(plane, 128) * n >= kPwMinTiles) return kPwTile128;
  if (ceil_div(oc, 128) * ceil_div(plane, 64) * n >= kPwMinTiles) return kPwTile128x64;
  return kPwTile64;
}
uint64_t pointwise_tiles(const PwTile& t, uint64_t oc, uint64_t plane, uint64_t n) {
  return ceil_div(oc, t.bm) * ceil_div(plane, t.bn) * n;
}

// The bounds of a split-K count: each split at least `min_steps` of the `steps` K steps, the
// partial sums (`out_bytes` a split) within kIgemmMaxPartialBytes and the binding limit,
// `z_per_split` workgroups a split within the grid's z limit `max_z`, at most kConvMaxSplits.
struct SplitBounds {
  uint64_t steps, min_steps, out_bytes, max_bytes, z_per_split, max_z;
  bool allow(uint64_t s) const {
    return s <= kConvMaxSplits && steps >= min_steps * s && out_bytes * s <= max_bytes && z_per_split * s <= max_z;
  }
};

SplitBounds split_bounds(Graph& g, uint64_t steps, uint64_t min_steps, uint64_t out_bytes, uint64_t z_per_split,
                         uint64_t max_z) {
  return {steps, min_steps, out_bytes,
          std::min<uint64_t>(kIgemmMaxPartialBytes, g.device().limits().max_storage_buffer_binding_size), z_per_split,
          max_z};
}

// Split-K factor of conv2d_igemm and the pointwise GEMM (GraphOptions::conv_splitk): the
// most splits (a power of two within `bounds`) that keep a grid of `tiles` workgroups within
// the fill (conv_splitk_fill, else kIgemmFill on GPU adapters and kIgemmFillCpu on CPU ones).
uint32_t conv_splitk_factor(Graph& g, uint64_t tiles, const SplitBounds& bounds) {
  if (!g.options().conv_splitk) return 1;
  const uint64_t fill = g.options().conv_splitk_fill                        ? g.options().conv_splitk_fill
                        : g.device().adapter_info().adapter_type == "CPU" ? kIgemmFillCpu
                                                                           : kIgemmFill;
  uint32_t splits = 1;
  while (tiles * 2 < fill && tiles * splits * 2 <= fill && bounds.allow(uint64_t{splits} * 2)) splits *= 2;
  return splits;
}

// Split-K factor of conv2d_pw: enough invocations to fill the GPU (about 64K) while each
// still sums at least 8 input channels.
uint32_t pointwise_split(uint64_t slots, uint64_t in_c) {
  uint32_t ks = 1;
  while (ks < 64 && slots * ks * 2 <= 65536 && in_c >= uint64_t{ks} * 16) ks *= 2;
  return ks;
}

// The f32 weight constant's host bytes, [O, rest] with rest = max_numel / O; empty where
// there is no host copy (the kernels that repack then read w as it is).
Result<std::span<const uint8_t>> weight_bytes(Graph& g, int32_t w_id, const GpuTensor* w, const char* name) {
  auto host = g.constant_bytes(w_id, name);
  if (!host.ok()) return std::span<const uint8_t>{};
  const uint64_t oc = static_cast<uint64_t>(w->max_dims[0]);
  const uint64_t rest = oc ? static_cast<uint64_t>(w->max_numel()) / oc : 0;
  if (oc == 0 || rest == 0 || host->size() != oc * rest * 4)
    return op_error(ErrorCode::kInvalidProgram, name,
                    "weight constant holds " + std::to_string(host->size()) + " bytes, expected " +
                        std::to_string(oc * rest * 4) + " (f32 " + shape_to_string(w->max_dims) + ")");
  return *host;
}

// Copies float word `from` of the weight bytes to out[to].
void copy_word(std::vector<float>& out, uint64_t to, std::span<const uint8_t> bytes, uint64_t from) {
  std::memcpy(&out[to], bytes.data() + from * 4, 4);
}

Result<gpu::Buffer*> upload_packed(Graph& g, const std::vector<float>& packed, const std::string& label) {
  WICK_ASSIGN_OR_RETURN(gpu::Buffer * buf, g.scratch(packed.size() * 4, label));
  WICK_RETURN_IF_ERROR(buf->write(packed.data(), packed.size() * 4));
  return buf;
}

// conv2d_block's weights: [O, C, KH, KW] -> [ceil(O/4), C, KH, KW] x 4 output channels
// (zeros past O), so one vec4 load feeds the 4 channels of a block. Built once, at graph
// build, from the constant's host bytes; nullptr where there are none.
Result<gpu::Buffer*> pack_block_weights(Graph& g, std::span<const uint8_t> bytes, const GpuTensor* w, const char* name) {
  if (bytes.empty()) return static_cast<gpu::Buffer*>(nullptr);  // conv2d_oc4 reads w as it is
  const uint64_t oc = static_cast<uint64_t>(w->max_dims[0]), per_oc = bytes.size() / 4 / oc;
  std::vector<float> out((oc + 3) / 4 * per_oc * 4, 0.f);
  for (uint64_t o = 0; o < oc; ++o)
    for (uint64_t t = 0; t < per_oc; ++t) copy_word(out, ((o / 4) * per_oc + t) * 4 + o % 4, bytes, o * per_oc + t);
  return upload_packed(g, out, std::string(name) + " packed weights");
}

// conv2d_igemm's weights: [O, K = C*KH*KW] -> wT [round_up(K, 16)][round_up(O, bn)], zeros
// in the padding, so the shader's B-tile loads need no bounds checks; cin_inner (the
// shader's CIN_INNER): K in the order (tap, c).
Result<gpu::Buffer*> pack_igemm_weights(Graph& g, std::span<const uint8_t> bytes, const GpuTensor* w, uint32_t bn,
                                        uint64_t taps, bool cin_inner, const char* name) {
  if (bytes.empty()) return static_cast<gpu::Buffer*>(nullptr);
  const uint64_t oc = static_cast<uint64_t>(w->max_dims[0]), k = bytes.size() / 4 / oc, c = k / taps;
  const uint64_t kp = (k + kIgemmK - 1) / kIgemmK * kIgemmK, np = (oc + bn - 1) / bn * bn;
  std::vector<float> out(kp * np, 0.f);
  for (uint64_t o = 0; o < oc; ++o)
    for (uint64_t ci = 0; ci < c; ++ci)
      for (uint64_t t = 0; t < taps; ++t) {
        const uint64_t row = cin_inner ? t * c + ci : ci * taps + t;
        copy_word(out, row * np + o, bytes, (o * c + ci) * taps + t);
      }
  return upload_packed(g, out, std::string(name) + (cin_inner ? " igemm weights (channel-inner)" : " igemm weights"));
}

// conv2d_transposed_gemm's weights (kernel == stride, groups 1): w [in_c][N = out_c*KH*KW]
// is already the GEMM's B [K][N]; zero-padded to [round_up(in_c, 16)][round_up(N, bn)].
Result<gpu::Buffer*> pack_transposed_gemm_weights(Graph& g, int32_t w_id, const GpuTensor* w, uint32_t bn,
                                                  const char* name) {
  WICK_ASSIGN_OR_RETURN(const std::span<const uint8_t> bytes, weight_bytes(g, w_id, w, name));
  if (bytes.empty()) return static_cast<gpu::Buffer*>(nullptr);
  const uint64_t k = static_cast<uint64_t>(w->max_dims[0]), n = bytes.size() / 4 / k;
  const uint64_t kp = (k + kIgemmK - 1) / kIgemmK * kIgemmK, np = (n + bn - 1) / bn * bn;
  std::vector<float> out(kp * np, 0.f);
  for (uint64_t c = 0; c < k; ++c)
    for (uint64_t j = 0; j < n; ++j) copy_word(out, c * np + j, bytes, c * n + j);
  return upload_packed(g, out, std::string(name) + " transposed gemm weights");
}

// conv2d_transposed_phase's weights: w [in_c][out_c/g][KH][KW] -> wr [g][KH][KW][Cpad][Npad]
// with Cpad = round_up(in_c/g, 16), Npad = round_up(out_c/g, bn), zeros in the padding.
Result<gpu::Buffer*> pack_transposed_phase_weights(Graph& g, int32_t w_id, const GpuTensor* w, uint64_t groups,
                                                   uint32_t bn, const char* name) {
  WICK_ASSIGN_OR_RETURN(const std::span<const uint8_t> bytes, weight_bytes(g, w_id, w, name));
  if (bytes.empty()) return static_cast<gpu::Buffer*>(nullptr);
  const uint64_t in_c = static_cast<uint64_t>(w->max_dims[0]), og = static_cast<uint64_t>(w->max_dims[1]);
  const uint64_t taps = bytes.size() / 4 / (in_c * og), cg = in_c / groups;
  const uint64_t cp = (cg + kIgemmK - 1) / kIgemmK * kIgemmK, np = (og + bn - 1) / bn * bn;
  std::vector<float> out(groups * taps * cp * np, 0.f);
  for (uint64_t ic = 0; ic < in_c; ++ic)
    for (uint64_t o = 0; o < og; ++o)
      for (uint64_t t = 0; t < taps; ++t)
        copy_word(out, (((ic / cg) * taps + t) * cp + ic % cg) * np + o, bytes, (ic * og + o) * taps + t);
  return upload_packed(g, out, std::string(name) + " transposed phase weights");
}

// The pointwise GEMM's tail split (split_waves.h, tail_split), where it pays: its pieces'
// count, the first pixel of the split columns and the buffer of their partial sums.
struct PwTail {
  TailSplit split;
  uint64_t x0 = 0;
  gpu::Buffer* partials = nullptr;  // null: no tail split
};
Result<PwTail> plan_pw_tail(Graph& g, const PwTile& tile, uint64_t out_c, uint64_t plane, uint64_t n, uint64_t in_c,
                            uint64_t max_dim) {
  const uint32_t mps = multiprocessors(g.options().gpu_multiprocessors, g.device().adapter_info());
  const uint64_t cols = ceil_div(plane, tile.bn);
  // Workgroups a multiprocessor holds: its workgroup memory (WebGPU's per-workgroup limit, which
  // on the H100 is what a multiprocessor gives these pipelines: bench/kernels/occupancy) over
  // the tile's two buffers of A and B.
  const uint64_t tile_bytes = 2ull * (tile.bm + tile.bn) * tile.bk * 4;
  const uint64_t per_mp = g.device().limits().max_compute_workgroup_storage_size / tile_bytes;
  uint64_t most = kTailMaxSplits;
  while (most > 1 && cols * most > max_dim) --most;
  PwTail t;
  t.split = tail_split(cols, ceil_div(out_c, tile.bm) * n, ceil_div(in_c, tile.bk), mps, per_mp, most);
  if (t.split.tail_cols == 0) return t;
  // The partials: a pixel's over the channels and images, per piece, for the split columns.
  t.x0 = (cols - t.split.tail_cols) * tile.bn;
  const uint64_t bytes = out_c * n * 4 * (plane - t.x0) * t.split.splits;
  if (bytes > std::min<uint64_t>(kIgemmMaxPartialBytes, g.device().limits().max_storage_buffer_binding_size)) return PwTail{};
  WICK_ASSIGN_OR_RETURN(t.partials, g.shared_scratch("conv2d_pw_gemm tail partial sums", bytes));
  return t;
}

// aten.convolution (variant 0): [x, w, bias?, stride, padding, dilation, transposed,
//   output_padding, groups, out]; et_vk.conv_with_clamp (variant 1) adds [min?, max?]
//   before out.
Status conv(Graph& g, const OpArgs& a) {
  const char* name = a.name();
  GpuTensor *x = a.tensor(0), *w = a.tensor(1), *bias = a.tensor(2);
  const int32_t w_id = a.id(1);
  std::vector<int64_t> stride = a.ints(3), dilation = a.ints(5);
  const std::vector<int64_t> padding = a.ints(4), output_padding = a.ints(7);
  const bool transposed = a.flag(6);
  const int64_t groups = a.integer(8);
  const bool with_clamp = a.variant() == 1;
  const float lo = with_clamp ? static_cast<float>(a.scalar_or(9, -std::numeric_limits<double>::infinity()))
                              : -std::numeric_limits<float>::infinity();
  const float hi = with_clamp ? static_cast<float>(a.scalar_or(10, std::numeric_limits<double>::infinity()))
                              : std::numeric_limits<float>::infinity();
  const ConvFusion* fusion = g.conv_fusion();
  GpuTensor* y = a.out();
  if (fusion) {
    WICK_ASSIGN_OR_RETURN(y, g.tensor(fusion->out_id, name));
  }
  GpuTensor* scale = nullptr;
  GpuTensor* residual = nullptr;
  if (fusion && fusion->residual_id >= 0) {
    WICK_ASSIGN_OR_RETURN(residual, g.tensor(fusion->residual_id, name));
  }
  if (fusion && fusion->scale_id >= 0) {
    WICK_ASSIGN_OR_RETURN(x, g.tensor(fusion->x_id, name));
    WICK_ASSIGN_OR_RETURN(scale, g.tensor(fusion->scale_id, name));
  }

  const int spatial = x->rank() - 2;
  if ((spatial != 1 && spatial != 2) || w->rank() != x->rank() || y->rank() != x->rank())
    return a.unsupported("input rank " + std::to_string(x->rank()) +
                                                ", weight rank " + std::to_string(w->rank()) + " (1-D or 2-D only)");
  auto at = [](const std::vector<int64_t>& v, size_t i) { return v.empty() ? int64_t{0} : v[std::min(i, v.size() - 1)]; };
  if (stride.empty()) stride = {1};
  if (dilation.empty()) dilation = {1};
  if (groups <= 0 || x->max_dims[1] % groups != 0)
    return a.invalid("groups " + std::to_string(groups) +
                                                  " does not divide the input channels");
  WICK_RETURN_IF_ERROR(a.expect_float({x, w, y, bias}));
  if (transposed && w->max_dims[0] != x->max_dims[1])
    return a.invalid("transposed weight " + shape_to_string(w->max_dims) + " does not match the input's " +
                     std::to_string(x->max_dims[1]) + " channels");

  // 1-D convolutions run as 2-D with height 1: the spatial parameters go to the width.
  const size_t hi_i = 0, wi_i = spatial == 2 ? 1 : 0;
  ConvParams base{};
  base.groups = static_cast<uint32_t>(groups);
  base.k_h = spatial == 2 ? static_cast<uint32_t>(w->max_dims[2]) : 1;
  base.k_w = static_cast<uint32_t>(w->max_dims[w->rank() - 1]);
  base.stride_h = spatial == 2 ? static_cast<uint32_t>(at(stride, hi_i)) : 1;
  base.stride_w = static_cast<uint32_t>(at(stride, wi_i));
  base.pad_h = spatial == 2 ? static_cast<uint32_t>(at(padding, hi_i)) : 0;
  base.pad_w = static_cast<uint32_t>(at(padding, wi_i));
  base.dil_h = spatial == 2 ? static_cast<uint32_t>(at(dilation, hi_i)) : 1;
  base.dil_w = static_cast<uint32_t>(at(dilation, wi_i));
  base.has_bias = bias ? 1 : 0;
  base.clamp_min = lo;
  base.clamp_max = hi;
  if (fusion) {
    if (fusion->epilogue.size() > kMaxEpilogue)
      return op_error(ErrorCode::kInternal, name, "fused epilogue too long");
    base.epi_n = static_cast<uint32_t>(fusion->epilogue.size());
    for (size_t k = 0; k < fusion->epilogue.size(); ++k) {
      uint32_t bits;
      std::memcpy(&bits, &fusion->epilogue[k].a, 4);
      base.epi[k] = {static_cast<uint32_t>(fusion->epilogue[k].code), bits, 0, 0};
    }
  }
  const int64_t out_pad_h = spatial == 2 ? at(output_padding, hi_i) : 0;
  const int64_t out_pad_w = at(output_padding, wi_i);
  const int64_t out_channels = transposed ? w->max_dims[1] * groups : w->max_dims[0];
  if (base.stride_h == 0 || base.stride_w == 0)
    return a.invalid("zero stride");

  // groups == 1 forward convolutions use the oc4 kernels (4 output channels per
  // invocation; pointwise 1x1/stride-1/pad-0 as a matmul over pixels); transposed and
  // grouped/depthwise ones the one-output-per-invocation kernels.
  const bool oc4 = !transposed && groups == 1;
  const bool pointwise = oc4 && base.k_h == 1 && base.k_w == 1 && base.stride_h == 1 && base.stride_w == 1 &&
                         base.pad_h == 0 && base.pad_w == 0;
  if ((scale || residual) && !pointwise)
    return op_error(ErrorCode::kInternal, name, "input scale or residual fused into a non-pointwise conv");
  // Dense convs with constant f32 weights run as an implicit GEMM (conv2d_igemm: 64-pixel
  // x 64/32-channel tiles through shared memory, weights repacked here, split over K when
  // the tiles alone cannot fill the GPU), 3-8x faster than the direct kernels on the H200
  // (bench/kernels/conv/README.md). Kept where those win or tie: out_c < 8 on large
  // planes (a tile of 32 channels mostly empty), grids past the per-dimension limit, and
  // adapters whose shared memory is below the 8 KiB of tiles; there conv2d_block (4
  // pixels x 4 channels per invocation, weights repacked into vec4s of 4 channels).
  // Weights computed at run time keep conv2d_oc4.
  const bool dense_const = oc4 && !pointwise && w->constant_id >= 0 && w->vk_dtype == vk::VkDataType::FLOAT32;
  const uint64_t max_m = out_channels > 0 ? static_cast<uint64_t>(y->max_numel() / out_channels) : 0;
  const uint64_t k_dim = static_cast<uint64_t>(x->max_dims[1]) * base.k_h * base.k_w;
  // conv2d_igemm's K order (its CIN_INNER): channel-inner where in_c >= 16, a K step then in
  // one tap (1: in_c a multiple of 16) or across two (2); bench/kernels/conv v15-v16 and
  // v23-v26, GraphOptions::conv_cin_inner.
  const int64_t in_c = x->max_dims[1];
  const uint32_t cin_inner = !g.options().conv_cin_inner || in_c < kIgemmK ? 0 : in_c % kIgemmK == 0 ? 1 : 2;
  // Its channel tile: 16 (64 invocations, each gathering 16 A values a step) for out_c <= 16
  // where K is channel-inner (MODNet's 35->16 head at 512x512: 252 -> 191 us on the H100,
  // bench v25 against v24; with K in the weight's order it took 464), 32 up to 32, else 64;
  // and 32 past 64 where the last 64-channel tile would be at most half full
  // (GraphOptions::conv_narrow_tail: out_c 96 as three full 32-channel tiles, not a full
  // and a half-empty 64).
  const bool narrow_tail = g.options().conv_narrow_tail && out_channels > 64 && out_channels % 64 <= 32 &&
                           out_channels % 64 != 0;
  const uint32_t bn = out_channels <= 16 && cin_inner != 0 ? 16 : out_channels <= 32 || narrow_tail ? 32 : 64;
  const uint64_t m_tiles = (max_m + kIgemmM - 1) / kIgemmM, n_tiles = (static_cast<uint64_t>(out_channels) + bn - 1) / bn;
  // 8 rows x 4 channels an invocation (RM 8, GraphOptions::conv_rm8): on the H100 (bench
  // v29-v31, 2026-12-06) it won at 64-channel tiles on large grids (Real-ESRGAN's and
  // MODNet's 64 -> 64 convs at 256x256, 1,024 tiles: 200 -> 184 us) and lost on smaller
  // ones (the same conv at 128x128, 256 tiles: 67 -> 77 us) and at 32-channel tiles.
  const int rm8_option = g.options().conv_rm8;
  const bool rm8 = rm8_option == 1 ? bn >= 32 : rm8_option == -1 && bn == 64 && m_tiles * n_tiles >= kIgemmRm8MinTiles;
  const gpu::Limits& lim = g.device().limits();
  const uint64_t max_dim = lim.max_compute_workgroups_per_dimension ? lim.max_compute_workgroups_per_dimension : 65535;
  bool igemm = dense_const && (out_channels >= 8 || max_m <= 8192) && m_tiles <= max_dim && n_tiles <= max_dim &&
               lim.max_compute_workgroup_storage_size >= 8192 && lim.max_compute_invocations_per_workgroup >= 4 * bn;
  // A per-channel affine after the conv (fusion.cpp: a batch norm as multiply and add by
  // constants): w[o] * scale[o] and bias[o] * scale[o] + shift[o], from the host bytes.
  std::vector<float> folded_w;
  gpu::Buffer* w_buf = w->buffer.get();
  gpu::Buffer* bias_buf = bias ? bias->buffer.get() : nullptr;
  if (fusion && !fusion->channel_scale.empty()) {
    WICK_ASSIGN_OR_RETURN(const std::span<const uint8_t> host, weight_bytes(g, w_id, w, name));
    const size_t oc = fusion->channel_scale.size();
    if (transposed || host.empty() || static_cast<int64_t>(oc) != w->max_dims[0] || fusion->channel_shift.size() != oc)
      return op_error(ErrorCode::kInternal, name, "per-channel affine fused into a conv without host weights");
    folded_w.resize(host.size() / 4);
    std::memcpy(folded_w.data(), host.data(), host.size());
    const size_t rest = folded_w.size() / oc;
    for (size_t o = 0; o < oc; ++o)
      for (size_t t = 0; t < rest; ++t) folded_w[o * rest + t] *= fusion->channel_scale[o];
    std::vector<float> folded_b(fusion->channel_shift);
    if (bias) {
      WICK_ASSIGN_OR_RETURN(const std::span<const uint8_t> bh, g.constant_bytes(a.id(2), name));
      if (bh.size() != oc * 4) return op_error(ErrorCode::kInternal, name, "fused conv bias has no host copy");
      for (size_t o = 0; o < oc; ++o) {
        float b;
        std::memcpy(&b, bh.data() + o * 4, 4);
        folded_b[o] += b * fusion->channel_scale[o];
      }
    }
    WICK_ASSIGN_OR_RETURN(w_buf, upload_packed(g, folded_w, std::string(name) + " weights x channel scale"));
    WICK_ASSIGN_OR_RETURN(bias_buf, upload_packed(g, folded_b, std::string(name) + " bias with channel affine"));
    base.has_bias = 1;
  }
  std::span<const uint8_t> w_bytes;
  if (!folded_w.empty()) {
    w_bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(folded_w.data()), folded_w.size() * 4);
  } else if (dense_const) {
    WICK_ASSIGN_OR_RETURN(w_bytes, weight_bytes(g, w_id, w, name));
  }
  gpu::Buffer* packed = nullptr;
  if (igemm) {
    WICK_ASSIGN_OR_RETURN(packed, pack_igemm_weights(g, w_bytes, w, bn, uint64_t{base.k_h} * base.k_w, cin_inner != 0, name));
    igemm = packed != nullptr;  // no host copy of the weights: conv2d_oc4
  } else if (dense_const) {
    WICK_ASSIGN_OR_RETURN(packed, pack_block_weights(g, w_bytes, w, name));
  }
  uint32_t splits = 1;
  gpu::Buffer* partial = nullptr;
  if (igemm) {
    // Each split at least 4 K steps; the grid's z is the split.
    const uint64_t out_bytes = static_cast<uint64_t>(y->max_numel()) * 4;
    splits = conv_splitk_factor(g, m_tiles * n_tiles, split_bounds(g, ceil_div(k_dim, kIgemmK), 4, out_bytes, 1, max_dim));
    if (splits > 1) {
      WICK_ASSIGN_OR_RETURN(partial, g.shared_scratch("conv2d_igemm split-K partial sums", out_bytes * splits));
    }
  }
  // Transposed convs with constant f32 weights (bench/kernels/conv_transposed/README.md):
  // kernel == stride without padding, dilation, output_padding or groups as one GEMM over
  // the input pixels with a scattered store (conv2d_transposed_gemm); any other with at
  // least 4 input channels per group as an implicit GEMM per output phase
  // (conv2d_transposed_phase). conv2d_transposed (one output per invocation) stays for
  // run-time weights, narrow groups (depthwise: a 16-channel K step would be mostly zeros)
  // and tiny layers (under kTransposedGemmMinMacs multiply-adds), where it won on
  // SwiftShader and every kernel is launch-bound on a GPU.
  const uint64_t t_cin_g = static_cast<uint64_t>(x->max_dims[1]) / static_cast<uint64_t>(groups);
  const uint64_t t_taps = uint64_t{base.k_h} * base.k_w;
  // Every input element meets out_c / groups x KH x KW weights (w is [in_c, out_c / groups, KH, KW]).
  const uint64_t w_rows = std::max<uint64_t>(static_cast<uint64_t>(w->max_dims[0]), 1);
  const uint64_t t_macs = static_cast<uint64_t>(x->max_numel()) * (static_cast<uint64_t>(w->max_numel()) / w_rows);
  const bool t_const = transposed && w->constant_id >= 0 && w->vk_dtype == vk::VkDataType::FLOAT32 &&
                       lim.max_compute_workgroup_storage_size >= 8192 && t_macs >= kTransposedGemmMinMacs;
  const bool t_k_eq_s = groups == 1 && base.k_h == base.stride_h && base.k_w == base.stride_w && base.pad_h == 0 &&
                        base.pad_w == 0 && base.dil_h == 1 && base.dil_w == 1 && out_pad_h == 0 && out_pad_w == 0;
  const uint64_t t_in_pixels = static_cast<uint64_t>(x->max_numel() / std::max<int64_t>(x->max_dims[1], 1));
  const uint32_t t_gemm_bn = static_cast<uint64_t>(out_channels) * t_taps <= 32 ? 32 : 64;
  bool t_gemm = t_const && t_k_eq_s && (t_in_pixels + kIgemmM - 1) / kIgemmM <= max_dim &&
                (static_cast<uint64_t>(out_channels) * t_taps + t_gemm_bn - 1) / t_gemm_bn <= max_dim &&
                lim.max_compute_invocations_per_workgroup >= 4 * t_gemm_bn;
  const uint64_t t_cout_g = static_cast<uint64_t>(out_channels) / static_cast<uint64_t>(groups);
  const uint32_t t_phase_bn = t_cout_g <= 32 ? 32 : 64;
  // The largest phase's output pixels (phase (0, 0): ceil(out / stride) rows and columns).
  const uint64_t t_out_h = spatial == 2 ? static_cast<uint64_t>(y->max_dims[2]) : 1;
  const uint64_t t_out_w = static_cast<uint64_t>(y->max_dims.back());
  const uint64_t t_phase_pixels = static_cast<uint64_t>(y->max_dims[0]) *
                                  ((t_out_h + base.stride_h - 1) / base.stride_h) *
                                  ((t_out_w + base.stride_w - 1) / base.stride_w);
  bool t_phase = t_const && !t_gemm && t_cin_g >= 4 && (t_phase_pixels + kIgemmM - 1) / kIgemmM <= max_dim &&
                 static_cast<uint64_t>(groups) * ((t_cout_g + t_phase_bn - 1) / t_phase_bn) <= max_dim &&
                 uint64_t{base.stride_h} * base.stride_w <= max_dim &&
                 lim.max_compute_invocations_per_workgroup >= 4 * t_phase_bn;
  if (t_gemm) {
    WICK_ASSIGN_OR_RETURN(packed, pack_transposed_gemm_weights(g, w_id, w, t_gemm_bn, name));
    t_gemm = packed != nullptr;
  } else if (t_phase) {
    WICK_ASSIGN_OR_RETURN(packed,
                          pack_transposed_phase_weights(g, w_id, w, static_cast<uint64_t>(groups), t_phase_bn, name));
    t_phase = packed != nullptr;
  }
  const uint32_t t_bn = t_gemm ? t_gemm_bn : t_phase_bn;
  const bool block = !igemm && !transposed && packed != nullptr;
  // Pointwise convs with enough output for the tiled GEMM's grid run as one (conv2d_pw_gemm);
  // GraphOptions::conv_pw_gemm (WICK_CONV_PW_GEMM) forces either kernel for side-by-side timings.
  const uint64_t max_plane = pointwise ? static_cast<uint64_t>(x->max_numel() / std::max<int64_t>(x->max_dims[0] * x->max_dims[1], 1)) : 0;
  const uint64_t max_n = static_cast<uint64_t>(std::max<int64_t>(x->max_dims[0], 1));
  // Its vec4 loads (conv2d_pw_gemm_vec4) where the input channels and the plane are multiples
  // of 4 at the bounds, past 32 output channels (the 32-channel tile's A tile has fewer vec4s
  // than it has threads). Where shapes may vary (Graph::shapes_fixed false), a call whose
  // plane is not runs the scalar kernel, recorded beside it (pw_scalar_index); with fixed
  // shapes a smaller input rebuilds the graph (count_fixed_shape_op).
  const bool vec4_shape = pointwise && g.options().conv_pw_vec4 && out_channels > 32 && w->max_dims[1] % 4 == 0 &&
                          max_plane % 4 == 0 && x->buffer->size() >= 16 && w->buffer->size() >= 16;
  const PwTile pw_tile = pointwise_tile(static_cast<uint64_t>(out_channels), max_plane, max_n, vec4_shape);
  const int pw_force = g.options().conv_pw_gemm;
  const bool pw_gemm = pointwise && lim.max_compute_workgroup_storage_size >= 16384 &&
                       lim.max_compute_invocations_per_workgroup >= pw_tile.threads() &&
                       ceil_div(max_plane, pw_tile.bn) <= max_dim && ceil_div(static_cast<uint64_t>(out_channels), pw_tile.bm) <= max_dim &&
                       max_n <= max_dim && pw_force != 0 &&
                       (pw_force == 1 || pointwise_tiles(pw_tile, static_cast<uint64_t>(out_channels), max_plane, max_n) >= kPwGemmMinTiles);
  const bool pw_vec4 = pw_gemm && vec4_shape;
  static_assert(vec4_staging_fits(kPwTile64));
  // Split over the input channels where the GEMM's grid is small, by igemm's rule above
  // (kIgemmFill; each split at least 8 K steps): D-FINE's long-K 1x1 convs on 20x20 and 40x40
  // planes ran 28-200 tiles at 2-8 TFLOP/s on the H100. The partial sums go to `partial`,
  // then conv2d_pw_splitk_reduce finishes them (bias, clamp, epilogue, residual).
  if (pw_gemm && g.options().conv_pw_splitk) {
    // The grid's z is image * split.
    const uint64_t out_bytes = static_cast<uint64_t>(y->max_numel()) * 4;
    const uint64_t tiles = pointwise_tiles(pw_tile, static_cast<uint64_t>(out_channels), max_plane, max_n);
    const uint64_t steps = ceil_div(static_cast<uint64_t>(w->max_dims[1]), pw_tile.bk);
    const SplitBounds bounds = split_bounds(g, steps, kPwSplitMinSteps, out_bytes, max_n, max_dim);
    splits = conv_splitk_factor(g, tiles, bounds);
    // Then, on a GPU whose multiprocessors Wick counts, a split count within the same bounds
    // whose waves load the busiest multiprocessor less, if there is one (split_waves.h).
    const uint32_t mps = multiprocessors(g.options().gpu_multiprocessors, g.device().adapter_info());
    if (g.options().conv_pw_split_waves && splits > 1 && mps > 0) {
      uint64_t most = 2;
      while (bounds.allow(most + 1)) ++most;
      splits = static_cast<uint32_t>(wave_balanced_splits(tiles, steps, splits, most, mps));
    }
    if (splits > 1) {
      WICK_ASSIGN_OR_RETURN(partial, g.shared_scratch("conv2d_pw_gemm split-K partial sums", out_bytes * splits));
    }
  }
  // A grid a few tiles past a full round of the GPU's multiprocessors: its last columns split
  // over K in the same dispatch (plan_pw_tail). Vec4 GEMMs on fixed shapes only: the grid and
  // the partials are sized for the shapes built here.
  PwTail tail;
  if (pw_vec4 && g.shapes_fixed() && splits == 1 && g.options().conv_pw_tail) {
    WICK_ASSIGN_OR_RETURN(tail, plan_pw_tail(g, pw_tile, static_cast<uint64_t>(out_channels), max_plane, max_n,
                                             static_cast<uint64_t>(w->max_dims[1]), max_dim));
  }
  const gpu::ShaderName shader = t_gemm      ? gpu::shaders::conv2d_transposed_gemm
                                : t_phase    ? gpu::shaders::conv2d_transposed_phase
                                : transposed ? gpu::shaders::conv2d_transposed
                                : pw_vec4    ? gpu::shaders::conv2d_pw_gemm_vec4
                                : pw_gemm    ? gpu::shaders::conv2d_pw_gemm
                                : pointwise  ? gpu::shaders::conv2d_pw
                                : igemm      ? gpu::shaders::conv2d_igemm
                                : block      ? gpu::shaders::conv2d_block
                                : oc4        ? gpu::shaders::conv2d_oc4
                                             : gpu::shaders::conv2d_direct;
  uint32_t ks = 1;
  gpu::PipelineKey key(shader);
  if (t_gemm || t_phase) {
    key.set("KH", base.k_h).set("KW", base.k_w).set("SH", base.stride_h).set("SW", base.stride_w);
    key.set("DH", base.dil_h).set("DW", base.dil_w).set("BN", t_bn);
  } else if (igemm) {
    key.set("KH", base.k_h).set("KW", base.k_w).set("SH", base.stride_h).set("SW", base.stride_w);
    key.set("DH", base.dil_h).set("DW", base.dil_w).set("ks", splits).set("BN", bn);
    if (cin_inner != 0) key.set("CIN_INNER", cin_inner);
    if (rm8) key.set("RM", 8);
  } else if (block) {
    key.set("wg_size", kWorkgroup).set("KH", base.k_h).set("KW", base.k_w).set("SH", base.stride_h);
    key.set("SW", base.stride_w).set("DH", base.dil_h).set("DW", base.dil_w);
  } else if (pw_gemm) {
    key.set("BM", pw_tile.bm).set("BN", pw_tile.bn).set("BK", pw_tile.bk).set("RM", pw_tile.rm).set("RN", pw_tile.rn);
    if (splits > 1) key.set("KS", splits);
    if (tail.partials) key.set("TAIL_S", tail.split.splits).set("TAIL_X0", tail.x0 / pw_tile.bn);
  } else if (pointwise) {
    const uint64_t slots = static_cast<uint64_t>(x->max_dims[0]) * ((out_channels + 3) / 4) * max_plane;
    ks = pointwise_split(slots, static_cast<uint64_t>(x->max_dims[1]));
    key.set("wg_size", kPwWorkgroup).set("ks", ks);
  } else {
    key.set("wg_size", kWorkgroup);
  }
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(key));
  WICK_ASSIGN_OR_RETURN(ParamsBlock * params, g.params(sizeof(ConvParams), name));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  d.bindings = {{0, x->buffer.get()}, {1, packed ? packed : w_buf},
                {2, bias_buf ? bias_buf : w_buf}, {3, partial ? partial : y->buffer.get()},
                {4, params->buffer()}};
  if (pointwise) {
    d.bindings.push_back({5, scale ? scale->buffer.get() : w_buf});
    d.bindings.push_back({6, residual ? residual->buffer.get() : w_buf});
  }
  // The vec4 GEMM's tail partials. Without a tail split nothing is stored through binding 7,
  // but WebGPU's layout has it, writable: a buffer of one vec4 shared by every such conv
  // stands in (neither a read-only binding's buffer nor, aliased, y's may).
  if (pw_vec4) {
    gpu::Buffer* at7 = tail.partials;
    if (!at7) {
      WICK_ASSIGN_OR_RETURN(at7, g.shared_scratch("conv2d_pw_gemm_vec4 binding 7 placeholder", 16));
    }
    d.bindings.push_back({7, at7});
  }
  if (fusion)
    d.label = std::string(name) + " +" + std::to_string(fusion->epilogue.size()) +
              (fusion->channel_scale.empty() ? "" : "+affine") + (scale ? "+scale" : "") +
              (residual ? "+residual " : " ") + std::string(shader.name);
  // A split pointwise GEMM says its split count in profiles, as the matmul's tiles say theirs
  // (:ks over K, :tail for the tail split's pieces).
  const std::string split_tag = pw_gemm && splits > 1 ? ":ks" + std::to_string(splits)
                                : tail.partials       ? ":tail" + std::to_string(tail.split.splits)
                                                      : "";
  if (!split_tag.empty()) {
    if (d.label.empty()) d.label = std::string(name) + " " + std::string(shader.name);
    d.label += split_tag;
  }
  size_t pw_scalar_index = 0;
  const bool pw_fallback = pw_vec4 && !g.shapes_fixed();
  if (pw_vec4 && !pw_fallback) g.count_fixed_shape_op();
  if (pw_fallback) {
    gpu::PipelineKey skey(gpu::shaders::conv2d_pw_gemm);
    skey.set("BM", pw_tile.bm).set("BN", pw_tile.bn).set("BK", pw_tile.bk).set("RM", pw_tile.rm).set("RN", pw_tile.rn);
    if (splits > 1) skey.set("KS", splits);
    gpu::Dispatch sd = d;
    sd.bindings.pop_back();  // binding 7, the vec4 kernel's only
    WICK_ASSIGN_OR_RETURN(sd.pipeline, g.pipeline(skey));
    if (!sd.label.empty()) sd.label.replace(sd.label.find(shader.name), shader.name.size(), gpu::shaders::conv2d_pw_gemm.name);
    WICK_ASSIGN_OR_RETURN(pw_scalar_index, g.add_dispatch(std::move(sd)));
  }
  WICK_ASSIGN_OR_RETURN(size_t index, g.add_dispatch(std::move(d)));
  size_t reduce_index = 0;
  if (partial || tail.partials) {
    // The split sums, at binding 0: split-K's partials -> all of y, or the tail split's -> y's
    // last pixel columns (x0 on), with bias, clamp and epilogue (and, after the pointwise
    // GEMM, its residual add at binding 6).
    gpu::PipelineKey rkey(tail.partials ? gpu::shaders::conv2d_pw_tail_reduce
                          : pw_gemm     ? gpu::shaders::conv2d_pw_splitk_reduce
                                        : gpu::shaders::conv2d_splitk_reduce);
    rkey.set("wg_size", kReduceWorkgroup).set("ks", tail.partials ? tail.split.splits : splits);
    if (tail.partials) rkey.set("x0", tail.x0);
    WICK_ASSIGN_OR_RETURN(auto reduce, g.pipeline(rkey));
    gpu::Dispatch r;
    r.pipeline = reduce;
    r.bindings = {{0, partial ? partial : tail.partials}, {2, bias_buf ? bias_buf : w_buf}, {3, y->buffer.get()},
                  {4, params->buffer()}};
    if (pw_gemm) r.bindings.push_back({6, residual ? residual->buffer.get() : w_buf});
    WICK_ASSIGN_OR_RETURN(reduce_index, g.add_dispatch(std::move(r)));
  }

  return g.add_step([=, &g]() -> Status {
    ConvParams p = base;
    const int64_t n = x->dims[0], c = x->dims[1];
    const int64_t ih = spatial == 2 ? x->dims[2] : 1, iw = x->dims[x->rank() - 1];
    int64_t oh, ow;
    if (transposed) {
      oh = (ih - 1) * p.stride_h - 2 * int64_t{p.pad_h} + int64_t{p.dil_h} * (p.k_h - 1) + out_pad_h + 1;
      ow = (iw - 1) * p.stride_w - 2 * int64_t{p.pad_w} + int64_t{p.dil_w} * (p.k_w - 1) + out_pad_w + 1;
    } else {
      oh = (ih + 2 * int64_t{p.pad_h} - int64_t{p.dil_h} * (p.k_h - 1) - 1) / p.stride_h + 1;
      ow = (iw + 2 * int64_t{p.pad_w} - int64_t{p.dil_w} * (p.k_w - 1) - 1) / p.stride_w + 1;
    }
    if (oh <= 0 || ow <= 0) return op_error(ErrorCode::kInvalidArgument, name, "input too small for the kernel");
    std::vector<int64_t> shape = spatial == 2 ? std::vector<int64_t>{n, out_channels, oh, ow}
                                              : std::vector<int64_t>{n, out_channels, ow};
    WICK_RETURN_IF_ERROR(set_output_dims(name, y, shape));
    p.n = static_cast<uint32_t>(n);
    p.in_c = static_cast<uint32_t>(c);
    p.in_h = static_cast<uint32_t>(ih);
    p.in_w = static_cast<uint32_t>(iw);
    p.out_c = static_cast<uint32_t>(out_channels);
    p.out_h = static_cast<uint32_t>(oh);
    p.out_w = static_cast<uint32_t>(ow);
    p.total = static_cast<uint32_t>(shape_numel(shape));
    if (scale) {
      // x * s with s [N|1, C, 1, 1] broadcast over the pixels (the fused multiply).
      const auto& sd = scale->dims;
      if (sd.size() != 4 || sd[1] != c || sd[2] != 1 || sd[3] != 1 || (sd[0] != 1 && sd[0] != n))
        return op_error(ErrorCode::kInvalidArgument, name, "fused scale " + shape_to_string(sd) +
                                                       " does not broadcast to " + shape_to_string(x->dims));
      p.has_scale = 1;
      p.scale_bstride = sd[0] == 1 ? 0 : static_cast<uint32_t>(c);
    }
    if (residual && residual->dims != shape)
      return op_error(ErrorCode::kInvalidArgument, name, "fused residual " + shape_to_string(residual->dims) +
                                                     " differs from the output " + shape_to_string(shape));
    WICK_RETURN_IF_ERROR(params->write(p));
    if (pw_gemm) {
      // The vec4 kernel, or the scalar one beside it where this call's plane or channels are
      // not multiples of 4; the other gets an empty grid (not dispatched).
      const bool vec4_now = pw_vec4 && (p.out_h * p.out_w) % 4 == 0 && p.in_c % 4 == 0;
      if (pw_vec4 && !vec4_now && !pw_fallback)
        return op_error(ErrorCode::kInternal, name, "vec4 pointwise GEMM built for fixed shapes got a plane of " +
                                                        std::to_string(p.out_h * p.out_w) + " pixels");
      const size_t run = pw_fallback && !vec4_now ? pw_scalar_index : index;
      if (pw_fallback) WICK_RETURN_IF_ERROR(g.set_workgroups(run == index ? pw_scalar_index : index, 0, 0, 0));
      const uint64_t plane = uint64_t{p.out_h} * p.out_w;
      if (tail.partials) {
        // Built for these shapes (fixed): the full columns, then the tail's pieces.
        if (plane != max_plane || p.n != max_n)
          return op_error(ErrorCode::kInternal, name, "tail-split pointwise GEMM built for fixed shapes got another shape");
        const uint64_t cols = ceil_div(plane, pw_tile.bn);
        WICK_RETURN_IF_ERROR(g.set_workgroups(index, static_cast<uint32_t>(cols + tail.split.tail_cols * (tail.split.splits - 1)),
                                              static_cast<uint32_t>(ceil_div(p.out_c, pw_tile.bm)), p.n));
        return g.set_grid(reduce_index, uint64_t{p.n} * p.out_c * (plane - tail.x0), kReduceWorkgroup);
      }
      WICK_RETURN_IF_ERROR(g.set_workgroups(run, static_cast<uint32_t>(ceil_div(plane, pw_tile.bn)),
                                            static_cast<uint32_t>(ceil_div(p.out_c, pw_tile.bm)), p.n * splits));
      return partial ? g.set_grid(reduce_index, p.total, kReduceWorkgroup) : Status{};
    }
    if (pointwise) return g.set_grid(index, uint64_t{p.n} * ((p.out_c + 3) / 4) * p.out_h * p.out_w * ks, kPwWorkgroup);
    if (t_gemm) {
      const uint64_t mt = (uint64_t{p.n} * p.in_h * p.in_w + kIgemmM - 1) / kIgemmM;
      const uint64_t nt = (uint64_t{p.out_c} * t_taps + t_bn - 1) / t_bn;
      return g.set_workgroups(index, static_cast<uint32_t>(mt), static_cast<uint32_t>(nt), 1);
    }
    if (t_phase) {
      // Phase (0, 0) has the most output pixels: ceil(out / stride) rows and columns.
      const uint64_t qh = (p.out_h + p.stride_h - 1) / p.stride_h, qw = (p.out_w + p.stride_w - 1) / p.stride_w;
      const uint64_t mt = (uint64_t{p.n} * qh * qw + kIgemmM - 1) / kIgemmM;
      const uint64_t nt = uint64_t{p.groups} * ((p.out_c / p.groups + t_bn - 1) / t_bn);
      return g.set_workgroups(index, static_cast<uint32_t>(mt), static_cast<uint32_t>(nt), p.stride_h * p.stride_w);
    }
    if (igemm) {
      const uint64_t mt = (uint64_t{p.n} * p.out_h * p.out_w + kIgemmM - 1) / kIgemmM;
      WICK_RETURN_IF_ERROR(g.set_workgroups(index, static_cast<uint32_t>(mt), static_cast<uint32_t>((p.out_c + bn - 1) / bn), splits));
      return partial ? g.set_grid(reduce_index, p.total, kReduceWorkgroup) : Status{};
    }
    const uint64_t pixels = block ? uint64_t{p.out_h} * ((p.out_w + 3) / 4) : uint64_t{p.out_h} * p.out_w;
    const uint64_t invocations = oc4 ? uint64_t{p.n} * ((p.out_c + 3) / 4) * pixels : uint64_t{p.total};
    return g.set_grid(index, invocations, kWorkgroup);
  });
}

}  // namespace

void append_conv_ops(std::vector<OpEntry>& ops) {
  ops.insert(ops.end(), {
      {"aten.convolution.default", "T T T? L L L B L I -> T", conv, 0},
      {"et_vk.conv_with_clamp.default", "T T T? L L L B L I F? F? -> T", conv, 1},
  });
}

}  // namespace wick::webgpu
