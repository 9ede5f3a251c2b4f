// A layer norm done by the split-K reduce right before it (matmul_splitk_reduce_ln.wgsl): where
// a pre-norm transformer block adds its out-projection's or fc2's product to the residual
// stream and the next norm reads the sum, that product's reduce (ops/matmul/register.cpp,
// Graph::split_reduce_note) stores the sum and normalizes each row in the same dispatch.
// ops/norm/register.cpp builds the plain norm beside it and picks one of the two per call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/status.h"
#include "webgpu/graph.h"

namespace wick::webgpu {

struct NormIntoSplitk {
  size_t index = SIZE_MAX;  // the fused dispatch; SIZE_MAX: not fused
  size_t reduce_index = 0;  // the product's own reduce, which the fused dispatch replaces
  uint32_t wg = 0, vpt = 0; // threads per row and vec4s a thread: rows of up to 4 * wg * vpt
  const GpuTensor* b = nullptr;
  bool trans_b = false;
  ParamsBlock* params = nullptr;
};

// At build, for layer norm `name` of x (weight, bias optional) into out, whose mean and rstd
// outputs are values mean_id, rstd_id (-1: none): the fused dispatch, recorded where the
// last command is a split-K reduce of x and the fusion is safe (GraphOptions::norm_into_splitk,
// normalized over the last dim only, rows of N % 4 == 0 floats, at most 4096; mean and rstd
// read by nothing; out in a buffer the dispatch does not otherwise bind).
Result<NormIntoSplitk> plan_norm_into_splitk(Graph& g, const char* name, const GpuTensor* x, const GpuTensor* weight,
                                             const GpuTensor* bias, const GpuTensor* out, int32_t mean_id,
                                             int32_t rstd_id);

// Per call: whether the fused dispatch runs (the product split this call and the rows fit);
// it then gets the grid and the product's reduce none, else the other way round.
Result<bool> use_norm_into_splitk(Graph& g, const NormIntoSplitk& f, int64_t rows, int64_t inner, float eps,
                                  bool weight, bool bias);

}  // namespace wick::webgpu
