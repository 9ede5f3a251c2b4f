#include "core/dtype.h"

#include <cstring>
#include <string>

namespace wick {

namespace {
struct DtypeInfo {
  ScalarType type;
  size_t size;
  const char* name;
};
constexpr DtypeInfo kDtypes[] = {
    {ScalarType::kByte, 1, "uint8"},          {ScalarType::kChar, 1, "int8"},
    {ScalarType::kShort, 2, "int16"},         {ScalarType::kInt, 4, "int32"},
    {ScalarType::kLong, 8, "int64"},          {ScalarType::kHalf, 2, "float16"},
    {ScalarType::kFloat, 4, "float32"},       {ScalarType::kDouble, 8, "float64"},
    {ScalarType::kBool, 1, "bool"},           {ScalarType::kQInt8, 1, "qint8"},
    {ScalarType::kQUInt8, 1, "quint8"},       {ScalarType::kQInt32, 4, "qint32"},
    {ScalarType::kBFloat16, 2, "bfloat16"},   {ScalarType::kQUInt4x2, 1, "quint4x2"},
    {ScalarType::kQUInt2x4, 1, "quint2x4"},   {ScalarType::kBits16, 2, "bits16"},
    {ScalarType::kFloat8E5M2, 1, "float8_e5m2"}, {ScalarType::kFloat8E4M3FN, 1, "float8_e4m3fn"},
    {ScalarType::kFloat8E5M2FNUZ, 1, "float8_e5m2fnuz"},
    {ScalarType::kFloat8E4M3FNUZ, 1, "float8_e4m3fnuz"},
    {ScalarType::kUInt16, 2, "uint16"},       {ScalarType::kUInt32, 4, "uint32"},
    {ScalarType::kUInt64, 8, "uint64"},
};

const DtypeInfo* find(ScalarType t) {
  for (const auto& d : kDtypes)
    if (d.type == t) return &d;
  return nullptr;
}
}  // namespace

bool is_valid_scalar_type(int raw) {
  for (const auto& d : kDtypes)
    if (static_cast<int>(d.type) == raw) return true;
  return false;
}

std::string non_bool_byte(const void* data, size_t nbytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < nbytes; ++i)
    if (p[i] > 1) return "element " + std::to_string(i) + " holds the byte " + std::to_string(p[i]) + " (a bool is 0 or 1)";
  return {};
}

size_t element_size(ScalarType t) {
  const DtypeInfo* d = find(t);
  return d ? d->size : 0;
}

const char* dtype_name(ScalarType t) {
  const DtypeInfo* d = find(t);
  return d ? d->name : "invalid";
}

std::optional<ScalarType> parse_dtype(std::string_view name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return d.type;
  struct Alias {
    const char* name;
    ScalarType type;
  };
  static constexpr Alias kAliases[] = {
      {"f32", ScalarType::kFloat}, {"float", ScalarType::kFloat}, {"f16", ScalarType::kHalf},
      {"half", ScalarType::kHalf}, {"f64", ScalarType::kDouble},  {"double", ScalarType::kDouble},
      {"i64", ScalarType::kLong},  {"long", ScalarType::kLong},   {"i32", ScalarType::kInt},
      {"int", ScalarType::kInt},   {"u8", ScalarType::kByte},     {"i8", ScalarType::kChar},
      {"i16", ScalarType::kShort}, {"bf16", ScalarType::kBFloat16},
  };
  for (const auto& a : kAliases)
    if (name == a.name) return a.type;
  return std::nullopt;
}

bool is_floating(ScalarType t) {
  return t == ScalarType::kHalf || t == ScalarType::kFloat || t == ScalarType::kDouble ||
         t == ScalarType::kBFloat16;
}

bool is_integral(ScalarType t, bool include_bool) {
  switch (t) {
    case ScalarType::kByte: case ScalarType::kChar: case ScalarType::kShort:
    case ScalarType::kInt: case ScalarType::kLong: case ScalarType::kUInt16:
    case ScalarType::kUInt32: case ScalarType::kUInt64:
      return true;
    case ScalarType::kBool:
      return include_bool;
    default:
      return false;
  }
}

namespace {
// The bits of a float and back (what std::bit_cast does; Emscripten's libc++ lacks it).
float float_from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t bits_of_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}
}  // namespace

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        e++;
        mant <<= 1;
      } while ((mant & 0x400) == 0);
      bits = sign | ((127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return float_from_bits(bits);
}

uint16_t float_to_half(float f) {
  uint32_t x = bits_of_float(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (abs < 0x38800000u) {  // subnormal or zero in half
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    // Half subnormals count units of 2^-24: r = m * 2^(e-150) / 2^-24 = m >> (126 - e).
    uint32_t e = abs >> 23;
    uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e;  // 14..24 here
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    uint32_t r = m >> shift;
    if (rem > halfway || (rem == halfway && (r & 1))) r++;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t r = abs - 0x38000000u;  // rebias exponent 127 -> 15
  uint32_t lower = r & 0x1fffu;
  r >>= 13;
  if (lower > 0x1000u || (lower == 0x1000u && (r & 1))) r++;
  return static_cast<uint16_t>(sign | r);
}

float bf16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  return float_from_bits(bits);
}

uint16_t float_to_bf16(float f) {
  uint32_t x = bits_of_float(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace wick
