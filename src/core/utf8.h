// UTF-8 as the runtime meets it: names and strings from a program file, which the
// flatbuffer verifier does not check, so they may hold any bytes. Everything that writes
// JSON (the CLI, the C API of the Wasm build) passes text through escape_invalid_utf8
// (core/json_text.h does it for a whole document), since a JSON writer must not be given
// invalid UTF-8 (nlohmann throws type_error.316 on it).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace wick {

// Decodes the code point at s[pos]; sets `len` to the bytes it took. Invalid or truncated
// sequences (overlong forms, surrogates, past U+10FFFF) decode as U+FFFD with len 1, so
// scanning always advances.
char32_t decode_utf8(std::string_view s, size_t pos, size_t* len);

bool is_valid_utf8(std::string_view s);

// `s` with every byte that is not part of a valid UTF-8 sequence written as the four
// characters \xHH (upper-case hex), e.g. "for\xFFard" (one byte 0xFF) becomes the text
// `for\xFFard`. Valid text comes back unchanged. Program::method lookups accept this
// spelling too, so a name shown in JSON can be passed back (runtime/program.h).
std::string escape_invalid_utf8(std::string_view s);

}  // namespace wick
