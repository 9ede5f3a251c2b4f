// The Split pre-tokenizers of Llama 3 and Qwen2/Qwen3, matched by hand (their regexes need
// Unicode classes and a lookahead that std::regex lacks).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wick::llm {

struct SplitPattern {
  int max_digits = 1;  // \p{N} (Qwen) or \p{N}{1,3} (Llama 3)
};

// Recognises the two known regexes; nullopt for any other pattern.
std::optional<SplitPattern> parse_split_pattern(std::string_view regex);

// Splits valid UTF-8 text into the pieces the regex matches (behavior "Isolated"; the
// pattern matches every character, so the pieces cover the text).
std::vector<std::string_view> pretokenize(std::string_view text, const SplitPattern& pattern);

}  // namespace wick::llm
