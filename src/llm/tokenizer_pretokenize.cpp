#include "llm/tokenizer_pretokenize.h"

#include "llm/unicode.h"

namespace wick::llm {
namespace {

constexpr std::string_view kQwenRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Code points of the text with their byte offsets, so alternatives can look ahead.
struct Cursor {
  std::string_view s;
  char32_t at(size_t pos, size_t* len) const {
    if (pos >= s.size()) {
      *len = 0;
      return 0;
    }
    return unicode::decode_utf8(s, pos, len);
  }
};

bool is_newline(char32_t c) { return c == '\r' || c == '\n'; }
bool is_other(char32_t c) {  // [^\s\p{L}\p{N}]
  return !unicode::is_whitespace(c) && !unicode::is_letter(c) && !unicode::is_number(c);
}
char32_t lower_ascii(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c == 0x17F) return 's';  // LATIN SMALL LETTER LONG S case-folds to s
  return c;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d): returns the match end or 0.
size_t match_contraction(const Cursor& c, size_t pos) {
  if (pos >= c.s.size() || c.s[pos] != '\'') return 0;
  size_t l1, l2;
  char32_t a = lower_ascii(c.at(pos + 1, &l1));
  if (l1 == 0) return 0;
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return pos + 1 + l1;
  char32_t b = lower_ascii(c.at(pos + 1 + l1, &l2));
  if (l2 == 0) return 0;
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return pos + 1 + l1 + l2;
  return 0;
}

size_t skip_while(const Cursor& c, size_t pos, bool (*pred)(char32_t), size_t max_count = SIZE_MAX) {
  size_t n = 0, len;
  while (n < max_count && pos < c.s.size() && pred(c.at(pos, &len))) {
    pos += len;
    ++n;
  }
  return pos;
}

size_t match_at(const Cursor& c, size_t pos, const SplitPattern& p) {
  if (size_t end = match_contraction(c, pos)) return end;
  size_t l0, l1;
  char32_t c0 = c.at(pos, &l0);
  char32_t c1 = c.at(pos + l0, &l1);
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (unicode::is_letter(c0)) return skip_while(c, pos, unicode::is_letter);
  if (!is_newline(c0) && !unicode::is_number(c0) && l1 && unicode::is_letter(c1))
    return skip_while(c, pos + l0, unicode::is_letter);
  // \p{N}{1,max}
  if (unicode::is_number(c0)) return skip_while(c, pos, unicode::is_number, p.max_digits);
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  size_t other_start = c0 == ' ' && l1 && is_other(c1) ? pos + l0 : is_other(c0) ? pos : SIZE_MAX;
  if (other_start != SIZE_MAX) {
    size_t end = skip_while(c, other_start, is_other);
    return skip_while(c, end, is_newline);
  }
  // The rest start with whitespace: \s*[\r\n]+ | \s+(?!\S) | \s+
  size_t run_end = pos, last_newline_end = 0, last_start = pos, len;
  while (run_end < c.s.size()) {
    char32_t ch = c.at(run_end, &len);
    if (!unicode::is_whitespace(ch)) break;
    last_start = run_end;
    run_end += len;
    if (is_newline(ch)) last_newline_end = run_end;
  }
  if (last_newline_end) return last_newline_end;
  if (run_end == c.s.size() || last_start > pos) return run_end == c.s.size() ? run_end : last_start;
  return run_end;  // one whitespace before a non-space: \s+
}

}  // namespace

std::optional<SplitPattern> parse_split_pattern(std::string_view regex) {
  if (regex == kQwenRegex) return SplitPattern{1};
  if (regex == kLlama3Regex) return SplitPattern{3};
  return std::nullopt;
}

std::vector<std::string_view> pretokenize(std::string_view text, const SplitPattern& pattern) {
  std::vector<std::string_view> pieces;
  Cursor c{text};
  for (size_t pos = 0; pos < text.size();) {
    size_t end = match_at(c, pos, pattern);
    if (end <= pos) {  // cannot happen for these patterns; keep progress regardless
      size_t len;
      c.at(pos, &len);
      end = pos + len;
    }
    pieces.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return pieces;
}

}  // namespace wick::llm
