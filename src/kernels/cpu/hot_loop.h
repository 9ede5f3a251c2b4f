// WICK_HOT_LOOP marks a function whose loops carry a kernel's arithmetic (the blocked
// convolution, fp32 linear, the 4-bit linear). Natively on x86-64 Linux with GCC it is
// compiled twice, for AVX2 + FMA (x86-64-v3) and for the baseline, and the loader picks
// the one the CPU runs (an ifunc): 8-wide fused multiply-adds where the baseline has 4-wide
// multiplies and adds, in a binary that still runs on any x86-64. Elsewhere (Wasm, where
// -msimd128 gives the 4-wide loops; other compilers and CPUs) it is empty.
// Only the marked function is cloned, not lambdas inside it: keep the loops in its body.
#pragma once

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__EMSCRIPTEN__)
#define WICK_HOT_LOOP __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define WICK_HOT_LOOP
#endif

#include <cstring>

namespace wick::cpu {

// Eight floats as one GCC/clang vector, for the loops above: natively two SSE registers
// (one AVX register in the x86-64-v3 clone, where a * b + c becomes an FMA), in Wasm two
// f32x4 (-msimd128). Written out because compilers left the array forms of these loops
// scalar in Wasm. Loads and stores go through memcpy: any alignment.
typedef float f32x8 __attribute__((vector_size(32)));

#define WICK_F32X8_LOAD(dst, src) std::memcpy(&(dst), (src), sizeof(f32x8))
#define WICK_F32X8_STORE(dst, src) std::memcpy((dst), &(src), sizeof(f32x8))

}  // namespace wick::cpu
