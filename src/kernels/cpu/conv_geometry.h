// The shape of a 2-D convolution as the CPU convolution kernels take it (conv.cpp,
// conv_gemm.cpp, conv_depthwise.cpp, conv_narrow.cpp). 1-D convolutions run as 2-D ones with a height of 1.
#pragma once

#include <cstdint>

namespace wick::cpu {

struct ConvGeometry {
  int64_t batch, in_c, in_h, in_w;
  int64_t out_c, out_h, out_w;
  int64_t k_h, k_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  int64_t groups;
};

// fp32 forward convolution (not transposed) as packed-panel matrix products: per group,
// out[oc, pixel] = sum_k w[oc, k] * im2col[k, pixel] with k = (ic, kh, kw), the im2col
// columns packed a tile at a time (conv_gemm.cpp).
void conv2d_gemm(const float* in, const float* w, const float* bias, float* out, const ConvGeometry& g);

// fp32 forward convolution whose groups each take one input channel (depthwise, any channel
// multiplier): rows of output vectors from a zero-padded copy of the input plane, split into
// stride phases so every tap is a contiguous load (conv_depthwise.cpp).
void conv2d_depthwise(const float* in, const float* w, const float* bias, float* out, const ConvGeometry& g);

// fp32 forward convolution with few output channels per group and stride 1 along the width:
// blocks of up to 4 channels x 32 columns read straight from the input rows (conv_narrow.cpp).
void conv2d_narrow(const float* in, const float* w, const float* bias, float* out, const ConvGeometry& g);

}  // namespace wick::cpu
