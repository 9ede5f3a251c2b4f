// `wick tokenize` and `wick detokenize`: the tokenizer of src/llm from the command line.
#include <climits>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "llm/tokenizer.h"

namespace wick::cli {
namespace {

int fail(const std::string& msg) {
  std::fprintf(stderr, "wick: %s\n", msg.c_str());
  return 1;
}

constexpr const char* kTokenizeUsage = "usage: wick tokenize --tokenizer PATH (--text T | --text-file F) [--no-special]";
constexpr const char* kDetokenizeUsage = "usage: wick detokenize --tokenizer PATH --ids 1,2,3 [--skip-special]";

// Every command answers --help on stdout with exit code 0 (issue 8), as inspect/run/bench do.
bool wants_help(const std::vector<std::string>& args, const char* usage) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") return std::printf("%s\n", usage), true;
  return false;
}

// One flag of a command: "--name VALUE" stores VALUE in `value`; a bare switch (value
// nullptr) stores `on` in `flag`. `flag`, where given, is set for a value flag too.
struct Flag {
  const char* name;
  std::string* value;
  bool* flag = nullptr;
  bool on = true;
};

// Reads args against flags; returns the first unknown or incomplete argument, if any.
std::optional<std::string> parse_flags(const std::vector<std::string>& args, std::initializer_list<Flag> flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const Flag* match = nullptr;
    for (const Flag& f : flags)
      if (args[i] == f.name && (f.value == nullptr || i + 1 < args.size())) match = &f;
    if (match == nullptr) return args[i];
    if (match->value) *match->value = args[++i];
    if (match->flag) *match->flag = match->value ? true : match->on;
  }
  return std::nullopt;
}

}  // namespace

int tokenize(const std::vector<std::string>& args) {
  std::string tokenizer_path, text, text_file;
  bool have_text = false, special = true;
  if (wants_help(args, kTokenizeUsage)) return 0;
  if (auto bad = parse_flags(args, {{"--tokenizer", &tokenizer_path},
                                    {"--text", &text, &have_text},
                                    {"--text-file", &text_file},
                                    {"--no-special", nullptr, &special, false}}))
    return fail("tokenize: unknown or incomplete argument '" + *bad + "'\n" + kTokenizeUsage);
  if (tokenizer_path.empty()) return fail("tokenize: --tokenizer PATH is required");
  if (have_text == !text_file.empty()) return fail("tokenize: give exactly one of --text and --text-file");
  if (!text_file.empty()) {
    std::ifstream f(text_file, std::ios::binary);
    if (!f) return fail("tokenize: cannot open --text-file '" + text_file + "'");
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  auto tok = llm::Tokenizer::load(tokenizer_path);
  if (!tok.ok()) return fail(tok.status().to_string());
  auto ids = tok->encode(text, special);
  if (!ids.ok()) return fail(ids.status().to_string());
  std::string out = "[";
  for (size_t i = 0; i < ids->size(); ++i) out += (i ? "," : "") + std::to_string((*ids)[i]);
  std::printf("%s]\n", out.c_str());
  return 0;
}

int detokenize(const std::vector<std::string>& args) {
  std::string tokenizer_path, ids_arg;
  bool have_ids = false, skip_special = false;
  if (wants_help(args, kDetokenizeUsage)) return 0;
  if (auto bad = parse_flags(args, {{"--tokenizer", &tokenizer_path},
                                    {"--ids", &ids_arg, &have_ids},
                                    {"--skip-special", nullptr, &skip_special, true}}))
    return fail("detokenize: unknown or incomplete argument '" + *bad + "'\n" + kDetokenizeUsage);
  if (tokenizer_path.empty() || !have_ids) return fail("detokenize: --tokenizer PATH and --ids 1,2,3 are required");
  std::vector<int32_t> ids;
  std::stringstream ss(ids_arg);
  for (std::string item; std::getline(ss, item, ',');) {
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (used != item.size() || item.empty() || v < 0 || v > INT32_MAX)
      return fail("detokenize: --ids item '" + item + "' is not a token id");
    ids.push_back(static_cast<int32_t>(v));
  }
  auto tok = llm::Tokenizer::load(tokenizer_path);
  if (!tok.ok()) return fail(tok.status().to_string());
  auto text = tok->decode(ids, skip_special);
  if (!text.ok()) return fail(text.status().to_string());
  std::fwrite(text->data(), 1, text->size(), stdout);
  std::fputc('\n', stdout);
  return 0;
}

}  // namespace wick::cli
