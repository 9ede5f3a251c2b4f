#include "core/utf8.h"

namespace wick {

char32_t decode_utf8(std::string_view s, size_t pos, size_t* len) {
  unsigned char c = static_cast<unsigned char>(s[pos]);
  *len = 1;
  if (c < 0x80) return c;
  int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || c > 0xF4 || pos + n > s.size()) return 0xFFFD;
  char32_t cp = c & (0xFF >> (n + 1));
  for (int i = 1; i < n; ++i) {
    unsigned char cc = static_cast<unsigned char>(s[pos + i]);
    if ((cc & 0xC0) != 0x80) return 0xFFFD;
    cp = (cp << 6) | (cc & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0xFFFD;
  *len = n;
  return cp;
}

namespace {
// A byte at s[i] that starts no valid sequence: decode_utf8 gives U+FFFD with length 1
// only then (a valid one-byte character is ASCII, a valid U+FFFD takes three bytes).
bool invalid_at(std::string_view s, size_t i, size_t* len) {
  return decode_utf8(s, i, len) == 0xFFFD && *len == 1;
}
}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0, len; i < s.size(); i += len)
    if (invalid_at(s, i, &len)) return false;
  return true;
}

std::string escape_invalid_utf8(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0, len; i < s.size(); i += len) {
    if (invalid_at(s, i, &len)) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out.append(s.substr(i, len));
    }
  }
  return out;
}

}  // namespace wick
