// Hugging Face tokenizer.json (byte-level BPE: Llama 3, Qwen2/Qwen3) and its chat template.
//
// The same C++ runs natively and in the Wasm build: load() reads files with std::ifstream,
// from_json() takes the text itself. Errors are values (Result), never exceptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace wick::llm {

struct ChatMessage {
  std::string role;
  std::string content;
};

struct TokenizerData;  // vocab, merges, added tokens, pre-tokenizer, template (tokenizer.cpp)

class Tokenizer {
 public:
  // tokenizer.json (Hugging Face) + optional tokenizer_config.json (chat_template, eos/bos
  // names). `tokenizer_json_path` may also be a folder holding tokenizer.json; then
  // tokenizer_config.json beside it is used when no config path is given.
  static Result<Tokenizer> load(const std::string& tokenizer_json_path,
                                const std::string& tokenizer_config_path = "");
  static Result<Tokenizer> from_json(std::string_view tokenizer_json,
                                     std::string_view tokenizer_config_json = "");

  // As Hugging Face's encode(): added tokens split out first, then normalizer,
  // pre-tokenizer, BPE; add_special_tokens applies the post-processor (Llama's BOS).
  Result<std::vector<int32_t>> encode(std::string_view text, bool add_special_tokens = true) const;
  // Ids to text with the ByteLevel decoder; an id outside the vocabulary is an error.
  Result<std::string> decode(const std::vector<int32_t>& ids, bool skip_special_tokens = false) const;
  // Raw bytes of one token (ByteLevel undone), for streaming; special tokens give their text.
  Result<std::string> token_bytes(int32_t id) const;

  std::vector<int32_t> eos_ids() const;  // from config eos_token (+ known end tokens)
  std::optional<int32_t> bos_id() const;
  size_t vocab_size() const;  // largest id + 1, added tokens included
  std::optional<int32_t> token_to_id(std::string_view token) const;
  bool is_special(int32_t id) const;

  bool has_chat_template() const;
  Result<std::string> apply_chat_template(const std::vector<ChatMessage>& messages,
                                          bool add_generation_prompt = true,
                                          bool enable_thinking = true) const;

 private:
  std::shared_ptr<const TokenizerData> data_;
};

// Streaming detokenization: push ids one at a time, get back only complete UTF-8 text.
// Bytes of a character split across tokens are held until the character is complete;
// flush() returns what is left (an incomplete tail becomes U+FFFD, as decode() does).
// An id outside the vocabulary adds nothing here; check ids with token_bytes()/decode().
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens = false);
  std::string push(int32_t id);
  std::string flush();

 private:
  const Tokenizer* tokenizer_;
  bool skip_special_;
  std::string pending_;  // bytes of an unfinished UTF-8 sequence
};

}  // namespace wick::llm
