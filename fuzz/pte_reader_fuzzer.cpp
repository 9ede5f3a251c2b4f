// libFuzzer target for the .pte reader and the method builder.
// Build: cmake -DWICK_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ; run: build-fuzz/fuzz/pte_reader_fuzzer corpus/
#include <cstddef>
#include <cstdint>

#include "kernels/cpu/kernel.h"
#include "runtime/kernel_registry.h"
#include "runtime/program.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)wick::cpu::register_cpu_kernels(wick::kernel_registry());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Low limits: the seeds plan at most 32 KiB, and a mutated size should meet the
  // limit's error, not libFuzzer's malloc limit (-rss_limit_mb) or a slow memset. Kernels
  // may hold scratch copies several times a tensor's size, which 16 MiB leaves room for.
  wick::MemoryLimits limits;
  limits.max_planned_bytes = 16 << 20;
  limits.max_io_bytes = 16 << 20;
  auto program = wick::Program::load_bytes(std::span<const uint8_t>(data, size), "fuzz.pte");
  if (!program.ok()) return 0;
  for (const std::string& name : (*program)->method_names()) {
    auto meta = (*program)->method_meta(name);
    if (!meta.ok()) continue;
    auto method = (*program)->load_method(name, limits);
    if (!method.ok()) continue;
    std::vector<wick::Value> inputs;
    bool tensors_only = true;
    for (const auto& in : meta->inputs) {
      if (in.tag != wick::ValueTag::kTensor) tensors_only = false;
      else if (auto t = wick::Tensor::allocate(in.tensor.dtype, in.tensor.sizes); t.ok())
        inputs.push_back(wick::Value::make_tensor(std::move(t).value()));
      else
        tensors_only = false;
    }
    if (tensors_only) (void)(*method)->forward(inputs);
  }
  return 0;
}
