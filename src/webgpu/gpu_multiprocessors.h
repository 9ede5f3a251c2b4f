// How many workgroups of a big kernel a GPU runs at once, where Wick knows it: WebGPU gives
// no multiprocessor count, and the key split of the fused attention (ops/attention/
// flash_splitkv.h) only pays where it evens out a grid's last wave, which depends on it; the
// pointwise GEMM's split-K count (ops/conv/split_waves.h) is chosen by the same waves.
// Listed only for GPUs the split was measured on (bench/results/vision_h200.md: on the H100
// the flash kernel ran one 128-invocation workgroup per multiprocessor at a time); 0 for
// every other adapter (no split). GraphOptions::gpu_multiprocessors (WICK_GPU_MULTIPROCESSORS)
// overrides it.
#pragma once

#include <cstdint>
#include <string>

#include "gpu/device.h"

namespace wick::webgpu {

inline uint32_t known_multiprocessors(const gpu::AdapterInfo& info) {
  if (info.vendor_id != 0x10de && info.vendor != "nvidia") return 0;
  const std::string name = info.device + " " + info.description;
  // H100 SXM5 and H200 (GH100 with 132 SMs enabled); the PCIe H100 has 114.
  if (name.find("H200") != std::string::npos) return 132;
  if (name.find("H100") != std::string::npos) return name.find("PCIe") != std::string::npos ? 114 : 132;
  return 0;
}

// The count the graph works with: GraphOptions::gpu_multiprocessors (`option`) where set, else
// the adapter's known count.
inline uint32_t multiprocessors(uint32_t option, const gpu::AdapterInfo& info) {
  return option ? option : known_multiprocessors(info);
}

}  // namespace wick::webgpu
