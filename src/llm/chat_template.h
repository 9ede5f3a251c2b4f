// Chat templates (tokenizer_config.json "chat_template"): a small Jinja subset interpreter,
// enough for Qwen3's and Llama 3's templates, rendering as Hugging Face's Jinja does.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace wick::llm {

struct ChatMessage;
struct JinjaNode;  // parsed template (chat_template.cpp)

class ChatTemplate {
 public:
  // Parses the template; syntax outside the subset is an error naming the position.
  static Result<ChatTemplate> parse(const std::string& source);
  // Renders with the variables transformers passes: messages, add_generation_prompt,
  // enable_thinking, bos_token, eos_token (tools undefined).
  Result<std::string> render(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                             bool enable_thinking, const std::string& bos_token,
                             const std::string& eos_token) const;

 private:
  std::shared_ptr<const JinjaNode> root_;
};

}  // namespace wick::llm
