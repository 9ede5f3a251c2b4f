// Elementwise chain fusion as a pass (chain_fusion.cpp says which patterns): after the conv
// fusions, runs of elementwise ops whose intermediates have one reader become one
// elementwise_chain.wgsl dispatch (ElementwiseChain in graph.h). Reads the graph, changes
// nothing; Graph::apply_chain_fusions applies it (GraphOptions::fuse_chains; WICK_FUSE_CHAINS=0 turns it
// off for A/B timings).
#pragma once

#include <cstddef>
#include <map>

#include "vkgraph/vk_plan.h"
#include "webgpu/graph.h"

namespace wick::webgpu {

// Per chain index of each chain's last op. Ops already skipped (conv fusions, dead copies,
// LLM fusions) are never part of a chain.
std::map<size_t, ElementwiseChain> plan_elementwise_chains(const vkgraph::Plan& plan, const Graph& graph);

// One elementwise_chain.wgsl dispatch for `chain` (ops/elementwise/chain.cpp).
Status build_elementwise_chain(Graph& g, const ElementwiseChain& chain, const char* name);

}  // namespace wick::webgpu
