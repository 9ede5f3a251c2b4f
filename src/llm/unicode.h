// The Unicode the tokenizer needs: UTF-8 decoding, the L/N/White_Space classes of the
// pre-tokenizer regexes, and NFC (Qwen's normalizer). Tables are generated at build time
// from Debian's unicode-data (src/llm/unicode_tables.cmake).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/utf8.h"

namespace wick::llm::unicode {

// UTF-8 decoding and validation are the core's (core/utf8.h), named here as well.
using ::wick::decode_utf8;
using ::wick::is_valid_utf8;
void append_utf8(std::string& out, char32_t cp);
// Length of the longest prefix of s that ends on a complete UTF-8 sequence boundary,
// i.e. everything except a trailing unfinished (but so far valid) sequence.
size_t complete_utf8_prefix(std::string_view s);

bool is_letter(char32_t cp);      // general category L*
bool is_number(char32_t cp);      // general category N*
bool is_whitespace(char32_t cp);  // White_Space property (regex \s)

// Canonical composition (NFC) of UTF-8 text.
std::string nfc(std::string_view s);

}  // namespace wick::llm::unicode
