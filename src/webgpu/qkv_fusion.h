// Joint q / k / v projections (issue 11). A fused attention (attention_fusion.h) whose q, k
// and v, or two of them, are each the whole output of an aten.linear of one same input, with
// constant f32 weights of one shape [N, K], gets those linears as one product: the weights
// stacked ([P * N, K], P = 2 or 3 parts) and the biases too (zeros for a part without one),
// written into the first linear's output, widened to P * N columns. The fused attention reads
// each part as a column range of it: its views' row strides times P, part j at column j * N.
// The other linears do not run.
//
// Why: at real sizes each projection alone is a small grid. Whisper base's [1500, 512] q, k
// and v are 192 tiles of 64x64 each on a 132-multiprocessor GPU, so each ran split over K
// plus a reduce (6 dispatches); joined they are one [1500, 1536] product of 576 tiles.
//
// A pure planning pass, after plan_attention_fusions and before the memory plan: it rewrites
// the fusions it joins for (views, uses) and adds the dropped linears to their skipped ops.
// Every part's output must be read by that attention's folded ops only (no other reader, no
// graph output), and every view of it must split into whole rows and a column range inside
// one row; otherwise the linears stay. Environment override: WICK_JOIN_QKV=0
// (GraphOptions::join_qkv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "core/status.h"
#include "vkgraph/vk_plan.h"
#include "webgpu/attention_fusion.h"

namespace wick::webgpu {

class Graph;

struct QkvJoin {
  size_t host_op = 0;            // the linear (the earliest of the parts) that computes them all
  int32_t x = -1;                // the input every part reads
  int32_t out = -1;              // the host's output, widened to parts * n columns
  std::vector<int32_t> weights;  // per part, in column order: [n, k] constants
  std::vector<int32_t> biases;   // per part: a [n] constant, or -1 (zeros)
  std::vector<size_t> dropped;   // the other parts' linears, skipped
  // The parts' weights and biases that no other op reads: build_qkv_join lets their GPU
  // copies go once the stacked ones exist, so the join costs no memory.
  std::vector<int32_t> released;
  int64_t n = 0, k = 0;
};

struct QkvJoins {
  std::map<size_t, QkvJoin> joins;  // by host op
  size_t dropped_linears() const;
};

// `max_binding_bytes`: the device's maxStorageBufferBindingSize (the stacked weight and the
// widened output must each fit one binding).
QkvJoins plan_qkv_joins(const vkgraph::Plan& plan, AttentionFusions& attention, uint64_t max_binding_bytes);

// The joint product's dispatches (the matmul kernels of aten.linear), built at join.host_op.
Status build_qkv_join(Graph& g, const QkvJoin& join);

}  // namespace wick::webgpu
