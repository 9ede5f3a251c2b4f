// Element types, numbered exactly as ExecuTorch's ScalarType (the .pte wire values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wick {

enum class ScalarType : int8_t {
  kByte = 0,     // uint8
  kChar = 1,     // int8
  kShort = 2,    // int16
  kInt = 3,      // int32
  kLong = 4,     // int64
  kHalf = 5,     // float16
  kFloat = 6,    // float32
  kDouble = 7,   // float64
  kBool = 11,
  kQInt8 = 12,
  kQUInt8 = 13,
  kQInt32 = 14,
  kBFloat16 = 15,
  kQUInt4x2 = 16,
  kQUInt2x4 = 17,
  kBits16 = 22,
  kFloat8E5M2 = 23,
  kFloat8E4M3FN = 24,
  kFloat8E5M2FNUZ = 25,
  kFloat8E4M3FNUZ = 26,
  kUInt16 = 27,
  kUInt32 = 28,
  kUInt64 = 29,
};

// True when `raw` is one of the values above.
bool is_valid_scalar_type(int raw);
// Bytes per element; 0 for invalid values.
size_t element_size(ScalarType t);
// PyTorch-style name: "float32", "int64", "bool", ... (the fixtures' manifest names).
const char* dtype_name(ScalarType t);
// Accepts the names above plus a few aliases ("f32", "float", "long", "i64"...).
std::optional<ScalarType> parse_dtype(std::string_view name);

// Where bool elements enter the runtime (constants from a file, caller inputs): "" when every
// byte is 0 or 1, else the first other one, as "element I holds the byte B (a bool is 0 or
// 1)" for the caller's error. Kernels read bools through bool pointers, and loading any
// other byte as a bool is undefined behaviour (UBSan, the fuzzers).
std::string non_bool_byte(const void* data, size_t nbytes);

bool is_floating(ScalarType t);   // half, bfloat16, float, double
bool is_integral(ScalarType t, bool include_bool);

// IEEE half and bfloat16 conversions (round to nearest even).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_bf16(float f);

}  // namespace wick
