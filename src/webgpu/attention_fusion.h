// Attention fusion (issue 11): the pattern eager-attention exports write (and SDPA exports,
// once runtime/fuse_runs.cpp has joined their delegates; _safe_softmax's guard around the
// softmax then goes with the chain when no mask is added),
//
//   scores = bmm(q, k^T) [* c | / c] [+ mask]  ->  _softmax(dim -1)  ->  bmm(., v)
//
// with view_copy / squeeze / unsqueeze / permute_copy / expand / clone / select / slice
// copies around q, k, v and the result, and host-known scalar multiplies on q or k (SDPA's
// math decomposition scales both by sqrt(scale), as mul.Tensor or mul.Scalar), becomes one
// dispatch of ops/attention/flash_attention.wgsl, which reads q, k, v and the mask as strided views of
// the tensors before those copies and writes the result where the last copy would have:
// the score matrix and the copies' outputs are never written, nor allocated when nothing
// else reads them (Graph::plan_transient_buffers leaves tensors no op uses out).
//
// A pure planning pass over the chain (run before the memory plan); it falls back (leaves
// the ops alone) whenever the pattern, the dtypes or the views do not fit, the graph has
// dynamic shapes or ops that write an argument in place. Environment override:
// WICK_FLASH_ATTENTION=0 (GraphOptions::flash_attention).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "core/status.h"
#include "vkgraph/vk_plan.h"

namespace wick::webgpu {

class Graph;

// A strided 4-D view [B, H, S, D] of a tensor's buffer, in elements.
struct AttentionView {
  int32_t id = -1;  // the tensor whose buffer is read or written
  int64_t offset = 0, sb = 0, sh = 0, ss = 0, sd = 0;
};

struct AttentionFusion {
  AttentionView q, k, v, out, mask;  // mask.id < 0: none (mask strides: b, h, query row, key (sd))
  int64_t batch = 1, heads = 1, sq = 0, skv = 0, d = 0;
  double scale = 1.0;
  std::vector<int32_t> uses;  // the tensors the fused dispatch reads and writes
};

struct AttentionFusions {
  std::vector<size_t> skipped;                // ops folded into a fused dispatch (or left dead by one)
  std::map<size_t, AttentionFusion> fused;    // chain index of the op the dispatch replaces
};

// `max_storage_buffers`: the device's per-stage limit (the kernel binds 5); `accept` says
// whether a match is fused (the device's tile limits, say).
AttentionFusions plan_attention_fusions(const vkgraph::Plan& plan, uint32_t max_storage_buffers,
                                        const std::function<bool(const AttentionFusion&)>& accept);

// The fused dispatch (its shared-memory tile chosen for the device's limit); an error if
// no tile fits, which plan_attention_fusions' caller avoids through attention_tile_fits.
Status build_flash_attention(Graph& g, const AttentionFusion& f);

// Whether a tile of flash_attention.wgsl fits head dim `d` within `max_workgroup_storage` bytes.
bool attention_tile_fits(int64_t d, uint32_t max_workgroup_storage, uint32_t max_invocations);

// The tile build_flash_attention takes at head dim d: (BQ, BKV) = (asked_bq, asked_bkv)
// (GraphOptions::flash_tile_*) where that is one of the kernel's tiles and fits, else the
// first that fits; (0, 0) when none does.
std::pair<uint32_t, uint32_t> flash_attention_tile(int64_t d, uint32_t max_workgroup_storage, uint32_t max_invocations,
                                                   uint32_t asked_bq = 0, uint32_t asked_bkv = 0);

// The score rows per invocation build_flash_attention gives the kernel (RS) at head dim d on
// the default tile: 2 where asked (GraphOptions::flash_score_rows) and the tile allows it, else 4.
uint32_t flash_attention_score_rows(int64_t d, uint32_t max_workgroup_storage, uint32_t max_invocations,
                                    uint32_t asked_rows);

}  // namespace wick::webgpu
