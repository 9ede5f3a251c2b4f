// `wick generate`: text generation with an ExecuTorch LLM program (llm::Runner), the
// text streamed to stdout as it is sampled and the timings printed to stderr.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/json_text.h"
#include "llm/runner.h"
#include "llm/tokenizer.h"
#include "runtime/program.h"

namespace wick::cli {

namespace {

const char* kUsage =
    "usage: wick generate MODEL.pte [--tokenizer PATH [--tokenizer-config PATH]]\n"
    "         (--prompt TEXT | --prompt-tokens 1,2,3) [--chat] [--system TEXT] [--no-thinking]\n"
    "         [--max-new-tokens N] [--greedy | --temperature T [--top-k K] [--top-p P] [--min-p P]\n"
    "         [--repetition-penalty R] [--seed S]] [--ignore-eos] [--max-context-len N]\n"
    "         [--prefill-chunk N] [--method NAME] [--backend auto|webgpu|cpu] [--json]\n"
    "Streams the generated text (token ids without --tokenizer) to stdout and the backend and\n"
    "timings to stderr; --json prints one object instead. --backend auto (the default) runs\n"
    "the delegated parts on WebGPU when an adapter opens, else on the CPU. Greedy unless\n"
    "--temperature (or another sampling flag, which implies temperature 1) is given. --chat\n"
    "applies the tokenizer's chat template to the prompt (and --system). --max-context-len is\n"
    "needed for programs without a get_max_context_len/get_max_seq_len method.\n";

struct GenerateOptions {
  std::string model, tokenizer, tokenizer_config, prompt, system, method = "forward", backend = "auto";
  std::optional<std::vector<int32_t>> prompt_tokens;
  bool have_prompt = false, chat = false, thinking = true, json = false, greedy = false, ignore_eos = false;
  bool sampling_flag = false, have_temperature = false;
  int64_t max_new_tokens = -1, prefill_chunk = 0;
  std::optional<int64_t> max_context_len;
  llm::SamplerConfig sampler;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "wick generate: %s\n", message.c_str());
  return 1;
}

bool parse_int(const std::string& flag, const std::string& s, int64_t lo, int64_t& out) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE || v < lo) {
    std::fprintf(stderr, "wick generate: %s expects an integer >= %lld, got '%s'\n", flag.c_str(),
                 static_cast<long long>(lo), s.c_str());
    return false;
  }
  out = v;
  return true;
}

bool parse_float(const std::string& flag, const std::string& s, float& out) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v)) {
    std::fprintf(stderr, "wick generate: %s expects a number, got '%s'\n", flag.c_str(), s.c_str());
    return false;
  }
  out = static_cast<float>(v);
  return true;
}

bool parse_ids(const std::string& s, std::vector<int32_t>& ids) {
  size_t at = 0;
  while (at <= s.size()) {
    size_t comma = s.find(',', at);
    std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    int64_t v = 0;
    if (!parse_int("--prompt-tokens", item, 0, v) || v > INT32_MAX) {
      std::fprintf(stderr, "wick generate: --prompt-tokens takes comma-separated ids, e.g. 1,2,3\n");
      return false;
    }
    ids.push_back(static_cast<int32_t>(v));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return true;
}

// Returns 0 to go on, otherwise the exit code (2 for bad usage, 0 after --help).
int parse(const std::vector<std::string>& args, GenerateOptions& o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    auto next = [&]() {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "wick generate: %s needs a value\n", a.c_str());
        return false;
      }
      v = args[++i];
      return true;
    };
    int64_t n = 0;
    if (a == "-h" || a == "--help") { std::fputs(kUsage, stdout); return -1; }
    else if (a == "--tokenizer") { if (!next()) return 2; o.tokenizer = v; }
    else if (a == "--tokenizer-config") { if (!next()) return 2; o.tokenizer_config = v; }
    else if (a == "--prompt") { if (!next()) return 2; o.prompt = v; o.have_prompt = true; }
    else if (a == "--prompt-tokens") {
      if (!next()) return 2;
      o.prompt_tokens.emplace();
      if (!parse_ids(v, *o.prompt_tokens)) return 2;
    }
    else if (a == "--chat") o.chat = true;
    else if (a == "--system") { if (!next()) return 2; o.system = v; }
    else if (a == "--no-thinking") o.thinking = false;
    else if (a == "--json") o.json = true;
    else if (a == "--greedy") o.greedy = true;
    else if (a == "--ignore-eos") o.ignore_eos = true;
    else if (a == "--method") { if (!next()) return 2; o.method = v; }
    else if (a == "--backend") { if (!next()) return 2; o.backend = v; }
    else if (a == "--max-new-tokens") { if (!next() || !parse_int(a, v, 1, o.max_new_tokens)) return 2; }
    else if (a == "--prefill-chunk") { if (!next() || !parse_int(a, v, 1, o.prefill_chunk)) return 2; }
    else if (a == "--max-context-len") { if (!next() || !parse_int(a, v, 1, n)) return 2; o.max_context_len = n; }
    else if (a == "--seed") { if (!next() || !parse_int(a, v, 0, n)) return 2; o.sampler.seed = static_cast<uint64_t>(n); o.sampling_flag = true; }
    else if (a == "--top-k") { if (!next() || !parse_int(a, v, 0, n) || n > INT32_MAX) return 2; o.sampler.top_k = static_cast<int>(n); o.sampling_flag = true; }
    else if (a == "--temperature") { if (!next() || !parse_float(a, v, o.sampler.temperature)) return 2; o.have_temperature = true; }
    else if (a == "--top-p") { if (!next() || !parse_float(a, v, o.sampler.top_p)) return 2; o.sampling_flag = true; }
    else if (a == "--min-p") { if (!next() || !parse_float(a, v, o.sampler.min_p)) return 2; o.sampling_flag = true; }
    else if (a == "--repetition-penalty") { if (!next() || !parse_float(a, v, o.sampler.repetition_penalty)) return 2; }
    else if (o.model.empty() && a.rfind("--", 0) != 0) o.model = a;
    else {
      std::fprintf(stderr, "wick generate: unexpected argument '%s'\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  auto usage_error = [](const char* m) {
    std::fprintf(stderr, "wick generate: %s\n", m);
    return 2;
  };
  if (o.model.empty()) return usage_error("missing MODEL.pte");
  if (o.have_prompt == o.prompt_tokens.has_value()) return usage_error("give exactly one of --prompt TEXT and --prompt-tokens 1,2,3");
  if (o.have_prompt && o.tokenizer.empty()) return usage_error("--prompt needs --tokenizer PATH (or give --prompt-tokens)");
  if (o.chat && !o.have_prompt) return usage_error("--chat needs --prompt TEXT (and --tokenizer)");
  if (!o.system.empty() && !o.chat) return usage_error("--system needs --chat");
  if (o.greedy && (o.have_temperature || o.sampling_flag))
    return usage_error("--greedy cannot be combined with --temperature, --top-k, --top-p, --min-p or --seed");
  if (!o.have_temperature && o.sampling_flag) o.sampler.temperature = 1.0f;  // as Hugging Face's do_sample
  if (o.greedy) o.sampler.temperature = 0.0f;
  if (Status s = llm::validate_sampler_config(o.sampler); !s.ok()) return usage_error(s.message().c_str());
  return 0;
}

}  // namespace

int generate(const std::vector<std::string>& args) {
  GenerateOptions o;
  if (int code = parse(args, o)) return code < 0 ? 0 : code;

  std::optional<llm::Tokenizer> tokenizer;
  if (!o.tokenizer.empty()) {
    // tokenizer_config.json beside tokenizer.json holds the chat template and EOS names.
    std::filesystem::path sibling = std::filesystem::path(o.tokenizer).parent_path() / "tokenizer_config.json";
    std::error_code ec;
    if (o.tokenizer_config.empty() && !std::filesystem::is_directory(o.tokenizer, ec) && std::filesystem::exists(sibling, ec))
      o.tokenizer_config = sibling.string();
    auto t = llm::Tokenizer::load(o.tokenizer, o.tokenizer_config);
    if (!t.ok()) return fail(t.status().to_string());
    tokenizer = std::move(t).value();
  }
  std::vector<int32_t> prompt;
  if (o.prompt_tokens) {
    prompt = *o.prompt_tokens;
  } else if (o.chat) {
    if (!tokenizer->has_chat_template()) return fail(o.tokenizer + ": the tokenizer has no chat template (give --tokenizer-config with one)");
    std::vector<llm::ChatMessage> messages;
    if (!o.system.empty()) messages.push_back({"system", o.system});
    messages.push_back({"user", o.prompt});
    auto text = tokenizer->apply_chat_template(messages, true, o.thinking);
    if (!text.ok()) return fail(text.status().to_string());
    // The template writes the BOS itself, so the post-processor must not add another.
    auto ids = tokenizer->encode(*text, false);
    if (!ids.ok()) return fail(ids.status().to_string());
    prompt = std::move(ids).value();
  } else {
    auto ids = tokenizer->encode(o.prompt, true);
    if (!ids.ok()) return fail(ids.status().to_string());
    prompt = std::move(ids).value();
  }
  if (prompt.empty()) return fail("empty prompt: it encodes to no tokens");

  // The file first: a missing or corrupt one is reported without starting a GPU.
  auto program = Program::load_file(o.model);
  if (!program.ok()) return fail(program.status().to_string());
  if (!select_backend(o.backend, false)) return 1;
  llm::RunnerOptions ro;
  ro.method = o.method;
  ro.max_context_len = o.max_context_len;
  ro.prefill_chunk = o.prefill_chunk;
  if (tokenizer) ro.eos_ids = tokenizer->eos_ids();
  auto runner = llm::Runner::load(**program, ro);
  if (!runner.ok()) return fail(runner.status().to_string());
  // Before the text, so that a slow run is explained by its backend (auto's reason included).
  if (!o.json) std::fprintf(stderr, "wick generate: %s\n", backend_line().c_str());

  llm::GenerationConfig gc;
  gc.max_new_tokens = o.max_new_tokens;
  gc.sampler = o.sampler;
  gc.ignore_eos = o.ignore_eos;
  const auto& eos = (*runner)->info().eos_ids;
  std::optional<llm::StreamDecoder> stream;
  if (tokenizer) stream.emplace(*tokenizer);
  bool first = true;
  auto on_token = [&](int32_t id) {
    if (o.json) return true;
    if (!stream) {
      std::printf(first ? "%d" : " %d", id);
    } else if (gc.ignore_eos || std::find(eos.begin(), eos.end(), id) == eos.end()) {
      std::string piece = stream->push(id);
      std::fwrite(piece.data(), 1, piece.size(), stdout);
    }
    first = false;
    std::fflush(stdout);
    return true;
  };
  auto result = (*runner)->generate(prompt, gc, on_token);
  if (!result.ok()) return fail(result.status().to_string());
  const llm::GenerationResult& r = *result;

  if (o.json) {
    nlohmann::json j;
    j["backend"] = chosen_backend();
    j["tokens"] = r.tokens;
    if (tokenizer) {
      std::vector<int32_t> text_ids;
      for (int32_t id : r.tokens)
        if (o.ignore_eos || std::find(eos.begin(), eos.end(), id) == eos.end()) text_ids.push_back(id);
      auto text = tokenizer->decode(text_ids);
      if (!text.ok()) return fail(text.status().to_string());
      j["text"] = *text;
    }
    j["prompt_tokens"] = r.prompt_tokens;
    j["stop_reason"] = llm::stop_reason_name(r.stop);
    j["stop_message"] = r.stop_message;
    j["time_to_first_token_ms"] = r.time_to_first_token_ms;
    j["prefill_ms"] = r.prefill_ms;
    j["decode_ms"] = r.decode_ms;
    j["prefill_tokens_per_s"] = r.prefill_tokens_per_s;
    j["decode_tokens_per_s"] = r.decode_tokens_per_s;
    std::printf("%s\n", json_text(j).c_str());
    return 0;
  }
  if (stream) {
    std::string rest = stream->flush();
    std::fwrite(rest.data(), 1, rest.size(), stdout);
  }
  std::printf("\n");
  std::fprintf(stderr,
               "wick generate: %s; %lld prompt tokens, %zu generated; time to first token %.2f ms, "
               "prefill %.1f tokens/s, decode %.1f tokens/s\n",
               r.stop_message.c_str(), static_cast<long long>(r.prompt_tokens), r.tokens.size(),
               r.time_to_first_token_ms, r.prefill_tokens_per_s, r.decode_tokens_per_s);
  return 0;
}

}  // namespace wick::cli
