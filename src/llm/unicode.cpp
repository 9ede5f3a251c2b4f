#include "llm/unicode.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "unicode_tables.inc"

namespace wick::llm::unicode {
namespace {

struct Range {
  uint32_t first, last;
};
struct CccEntry {
  uint32_t cp, ccc;
};
struct DecompEntry {
  uint32_t cp, first, second, excluded;
};

constexpr Range kLetter[] = {WICK_UC_LETTER};
constexpr Range kNumber[] = {WICK_UC_NUMBER};
constexpr CccEntry kCcc[] = {WICK_UC_CCC};
constexpr DecompEntry kDecomp[] = {WICK_UC_DECOMP};

template <size_t N>
bool in_ranges(const Range (&table)[N], char32_t cp) {
  const Range* end = table + N;
  const Range* it = std::upper_bound(table, end, static_cast<uint32_t>(cp),
                                     [](uint32_t v, const Range& r) { return v < r.first; });
  return it != table && cp <= (it - 1)->last;
}

uint32_t ccc(char32_t cp) {
  if (cp < 0x300) return 0;
  const CccEntry* end = kCcc + std::size(kCcc);
  const CccEntry* it = std::lower_bound(kCcc, end, static_cast<uint32_t>(cp),
                                        [](const CccEntry& e, uint32_t v) { return e.cp < v; });
  return it != end && it->cp == cp ? it->ccc : 0;
}

const DecompEntry* find_decomp(char32_t cp) {
  const DecompEntry* end = kDecomp + std::size(kDecomp);
  const DecompEntry* it = std::lower_bound(
      kDecomp, end, static_cast<uint32_t>(cp), [](const DecompEntry& e, uint32_t v) { return e.cp < v; });
  return it != end && it->cp == cp ? it : nullptr;
}

// Hangul syllables compose and decompose algorithmically (Unicode 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
                   kSCount = kLCount * kNCount;

void decompose(char32_t cp, std::u32string& out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    char32_t s = cp - kSBase;
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount) out.push_back(kTBase + s % kTCount);
    return;
  }
  const DecompEntry* d = find_decomp(cp);
  if (!d) {
    out.push_back(cp);
    return;
  }
  decompose(d->first, out);
  if (d->second) decompose(d->second, out);
}

// Primary composites: pairs whose composition is not excluded, not a singleton and not a
// non-starter decomposition.
const std::unordered_map<uint64_t, char32_t>& composition_map() {
  static const std::unordered_map<uint64_t, char32_t> map = [] {
    std::unordered_map<uint64_t, char32_t> m;
    for (const DecompEntry& d : kDecomp) {
      if (d.second == 0 || d.excluded || ccc(d.cp) != 0 || ccc(d.first) != 0) continue;
      m[(static_cast<uint64_t>(d.first) << 32) | d.second] = d.cp;
    }
    return m;
  }();
  return map;
}

char32_t compose_pair(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
      b < kTBase + kTCount)
    return a + (b - kTBase);
  const auto& m = composition_map();
  auto it = m.find((static_cast<uint64_t>(a) << 32) | b);
  return it == m.end() ? 0 : it->second;
}

}  // namespace

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t complete_utf8_prefix(std::string_view s) {
  // Look back at most 3 bytes for the lead byte of an unfinished sequence.
  size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    unsigned char c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking
    int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > static_cast<int>(back) && c >= 0xC2 && c <= 0xF4 ? n - back : n;
  }
  return n;
}

bool is_letter(char32_t cp) {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return in_ranges(kLetter, cp);
}

bool is_number(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return in_ranges(kNumber, cp);
}

bool is_whitespace(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

std::string nfc(std::string_view s) {
  bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) return std::string(s);
  // Canonical decomposition, then canonical ordering of combining marks.
  std::u32string d;
  for (size_t i = 0; i < s.size();) {
    size_t len;
    decompose(decode_utf8(s, i, &len), d);
    i += len;
  }
  for (size_t i = 1; i < d.size(); ++i) {
    for (size_t j = i; j > 0 && ccc(d[j]) != 0 && ccc(d[j - 1]) > ccc(d[j]); --j) std::swap(d[j], d[j - 1]);
  }
  // Canonical composition: each character composes with the last starter unless blocked.
  std::u32string out;
  size_t starter = std::u32string::npos;
  uint32_t last_ccc = 0;
  for (char32_t cp : d) {
    uint32_t c = ccc(cp);
    if (starter != std::u32string::npos && (last_ccc < c || (last_ccc == 0 && out.size() == starter + 1))) {
      if (char32_t comp = compose_pair(out[starter], cp)) {
        out[starter] = comp;
        continue;
      }
    }
    if (c == 0) starter = out.size();
    last_ccc = c;
    out.push_back(cp);
  }
  std::string r;
  r.reserve(s.size());
  for (char32_t cp : out) append_utf8(r, cp);
  return r;
}

}  // namespace wick::llm::unicode
