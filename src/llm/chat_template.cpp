#include "llm/chat_template.h"
#include "llm/tokenizer.h"
namespace wick::llm {
Result<ChatTemplate> ChatTemplate::parse(const std::string& source) { return ChatTemplate(); }
Result<std::string> ChatTemplate::render(const std::vector<ChatMessage>&, bool, bool, const std::string&, const std::string&) const {
  return Status(ErrorCode::kNotSupported, "chat template: not yet implemented");
}
}  // namespace wick::llm
