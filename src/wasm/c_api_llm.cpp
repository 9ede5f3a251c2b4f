// The C functions behind the JavaScript LLM API (src/wasm/llm.js): tokenizers, streaming
// detokenizers, chat templates and generation runners (src/llm), as integer handles.
//
// As in c_api.cpp, errors are values: a function that fails returns 0 (or -1, or a null
// pointer) and leaves "Code: message" in wick_llm_last_error(); nothing here may throw
// (the Wasm build does not catch C++ exceptions). Text crosses as pointer + length (it may
// hold NUL bytes); id lists as int32 arrays; structured answers as JSON strings.
//
// Generation is one token per call, so that JavaScript can stream each piece and stop
// between any two: wick_llm_start() takes the prompt and the settings, each
// wick_llm_step() prefills (first call) or feeds back the previous token, then samples
// one (llm::Runner::step: greedy and top-k read back only the best logits). It follows
// Runner::generate()'s loop, stop conditions and multi-turn rule: the token sampled last
// is not in the KV cache yet; the next turn feeds it before its prompt.
// wick_llm_runner_load and wick_llm_step wait on the GPU (Asyncify): JavaScript calls
// them with ccall(..., {async: true}), through api.js's queue.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_text.h"
#include "core/status.h"
#include "kernels/cpu/kernel.h"
#include "llm/runner.h"
#include "llm/sampler.h"
#include "llm/tokenizer.h"
#include "runtime/kernel_registry.h"
#include "runtime/program.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string last_error;
std::string last_text;   // the buffer behind the most recent text or JSON answer
std::vector<int32_t> last_ids;  // the ids of the most recent encode
int next_handle = 1;

// The runtime resolves KernelCalls through its registry (runtime/kernel_registry.h);
// the bundle's kernels are the CPU ones, registered before the first program loads.
wick::Status register_kernels_once() {
  static const wick::Status status = wick::cpu::register_cpu_kernels(wick::kernel_registry());
  return status;
}

int fail(const wick::Status& status) {
  last_error = status.to_string();
  return 0;
}
int fail(const std::string& message) { return fail(wick::Status(wick::ErrorCode::kInvalidArgument, message)); }

const char* text_answer(std::string s) {
  last_text = std::move(s);
  return last_text.c_str();
}
const char* json_answer(const json& j) {
  return text_answer(wick::json_text(j));
}

struct StreamSlot {
  std::shared_ptr<wick::llm::Tokenizer> tokenizer;  // the decoder points into it
  std::unique_ptr<wick::llm::StreamDecoder> decoder;
};

// One generate() call, spread over wick_llm_step() calls.
struct Generation {
  wick::llm::GenerationConfig config;
  std::optional<wick::llm::Sampler> sampler;
  std::vector<int32_t> prompt;  // to prefill on the first step (the runner feeds a pending token first)
  bool started = false;         // the prefill ran
  bool done = false;
  wick::llm::GenerationResult result;
  Clock::time_point t0;
};

struct RunnerSlot {
  std::shared_ptr<wick::Program> program;  // the runner's method lives in it
  std::unique_ptr<wick::llm::Runner> runner;
  std::optional<Generation> gen;
};

// Handle -> slot, one table per slot type, never destroyed (so a call during static
// destruction still finds it). Internal to this file: c_api.cpp keeps its own tables.
template <class Slot>
std::map<int, Slot>& table() {
  static auto* m = new std::map<int, Slot>();
  return *m;
}
std::map<int, std::shared_ptr<wick::llm::Tokenizer>>& tokenizers() { return table<std::shared_ptr<wick::llm::Tokenizer>>(); }
std::map<int, StreamSlot>& streams() { return table<StreamSlot>(); }
std::map<int, std::shared_ptr<wick::Program>>& programs() { return table<std::shared_ptr<wick::Program>>(); }
std::map<int, RunnerSlot>& runners() { return table<RunnerSlot>(); }

template <typename Map>
auto* find(Map& map, int handle, const char* what) {
  auto it = map.find(handle);
  if (it == map.end()) {
    fail(std::string(what) + " handle " + std::to_string(handle) + " is not loaded (deleted?)");
    return static_cast<typename Map::mapped_type*>(nullptr);
  }
  return &it->second;
}

std::string_view view(const char* p, size_t n) { return p ? std::string_view(p, n) : std::string_view(); }

json result_json(const wick::llm::GenerationResult& r, bool done, int64_t position) {
  return json{{"tokens", r.tokens.size()},
              {"done", done},
              {"stopReason", done ? wick::llm::stop_reason_name(r.stop) : nullptr},
              {"stopMessage", r.stop_message},
              {"promptTokens", r.prompt_tokens},
              {"position", position},
              {"timeToFirstTokenMs", r.time_to_first_token_ms},
              {"prefillMs", r.prefill_ms},
              {"decodeMs", r.decode_ms},
              {"prefillTokensPerS", r.prefill_tokens_per_s},
              {"decodeTokensPerS", r.decode_tokens_per_s}};
}

void finish(RunnerSlot& s, wick::llm::StopReason why, std::string message) {
  Generation& g = *s.gen;
  g.done = true;
  g.result.stop = why;
  g.result.stop_message = std::move(message);
  g.result.position = s.runner->position();
  if (g.result.prefill_ms > 0)
    g.result.prefill_tokens_per_s = 1000.0 * static_cast<double>(g.result.prompt_tokens) / g.result.prefill_ms;
  if (g.result.tokens.size() > 1 && g.result.decode_ms > 0)
    g.result.decode_tokens_per_s = 1000.0 * static_cast<double>(g.result.tokens.size() - 1) / g.result.decode_ms;
}

// After a token was sampled: the stop conditions of Runner::generate, in its order.
void check_stop(RunnerSlot& s, int32_t tok) {
  Generation& g = *s.gen;
  const auto& eos = s.runner->info().eos_ids;
  if (!g.config.ignore_eos && std::find(eos.begin(), eos.end(), tok) != eos.end()) {
    finish(s, wick::llm::StopReason::kEos, "stopped at end-of-sequence token " + std::to_string(tok));
  } else if (g.config.max_new_tokens > 0 && static_cast<int64_t>(g.result.tokens.size()) >= g.config.max_new_tokens) {
    finish(s, wick::llm::StopReason::kMaxNewTokens,
           "stopped after max_new_tokens = " + std::to_string(g.config.max_new_tokens));
  } else if (s.runner->position() >= s.runner->info().max_context_len) {
    finish(s, wick::llm::StopReason::kContextFull,
           "stopped: the context of " + std::to_string(s.runner->info().max_context_len) +
               " tokens is full (call reset() or start a new chat)");
  }
}

// Feeds `tokens` (none: the pending token) and samples one, which becomes pending.
wick::Result<int32_t> feed_and_sample(RunnerSlot& s, const std::vector<int32_t>& tokens) {
  WICK_ASSIGN_OR_RETURN(int32_t tok, s.runner->step(tokens, *s.gen->sampler));
  s.gen->result.tokens.push_back(tok);
  return tok;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* wick_llm_last_error() { return last_error.c_str(); }
// Length in bytes of the most recent text answer (it may hold NUL bytes).
EMSCRIPTEN_KEEPALIVE size_t wick_llm_text_size() { return last_text.size(); }
EMSCRIPTEN_KEEPALIVE const int32_t* wick_llm_ids() { return last_ids.data(); }

// ----- tokenizer -----

// tokenizer.json text (and tokenizer_config.json text, or size 0). A tokenizer handle.
EMSCRIPTEN_KEEPALIVE int wick_llm_tokenizer_load(const char* tokenizer_json, size_t size, const char* config_json,
                                                 size_t config_size) {
  auto t = wick::llm::Tokenizer::from_json(view(tokenizer_json, size), view(config_json, config_size));
  if (!t.ok()) return fail(t.status());
  const int handle = next_handle++;
  tokenizers()[handle] = std::make_shared<wick::llm::Tokenizer>(std::move(t).value());
  return handle;
}

EMSCRIPTEN_KEEPALIVE void wick_llm_tokenizer_free(int handle) { tokenizers().erase(handle); }

// {vocabSize, eosIds, bosId, hasChatTemplate}
EMSCRIPTEN_KEEPALIVE const char* wick_llm_tokenizer_info(int handle) {
  auto* t = find(tokenizers(), handle, "tokenizer");
  if (!t) return nullptr;
  const wick::llm::Tokenizer& tok = **t;
  json bos = nullptr;
  if (auto b = tok.bos_id()) bos = *b;
  return json_answer(json{{"vocabSize", tok.vocab_size()},
                          {"eosIds", tok.eos_ids()},
                          {"bosId", bos},
                          {"hasChatTemplate", tok.has_chat_template()}});
}

// UTF-8 text -> ids (at wick_llm_ids()). The number of ids, or -1.
EMSCRIPTEN_KEEPALIVE int wick_llm_encode(int handle, const char* text, size_t size, int add_special_tokens) {
  auto* t = find(tokenizers(), handle, "tokenizer");
  if (!t) return -1;
  auto ids = (*t)->encode(view(text, size), add_special_tokens != 0);
  if (!ids.ok()) {
    fail(ids.status());
    return -1;
  }
  last_ids = std::move(ids).value();
  return static_cast<int>(last_ids.size());
}

// ids -> text (wick_llm_text_size() bytes), or null.
EMSCRIPTEN_KEEPALIVE const char* wick_llm_decode(int handle, const int32_t* ids, int count, int skip_special_tokens) {
  auto* t = find(tokenizers(), handle, "tokenizer");
  if (!t) return nullptr;
  if (count < 0 || (count > 0 && !ids)) {
    fail("decode: " + std::to_string(count) + " ids given");
    return nullptr;
  }
  auto text = (*t)->decode(std::vector<int32_t>(ids, ids + count), skip_special_tokens != 0);
  if (!text.ok()) {
    fail(text.status());
    return nullptr;
  }
  return text_answer(std::move(text).value());
}

// The id of a token's string (e.g. "<|im_end|>"), or -1 when the vocabulary has none.
EMSCRIPTEN_KEEPALIVE int wick_llm_token_to_id(int handle, const char* token, size_t size) {
  auto* t = find(tokenizers(), handle, "tokenizer");
  if (!t) return -1;
  auto id = (*t)->token_to_id(view(token, size));
  return id ? *id : -1;
}

// messages: a JSON array of {role, content} strings. The rendered prompt, or null.
EMSCRIPTEN_KEEPALIVE const char* wick_llm_chat_template(int handle, const char* messages_json, size_t size,
                                                        int add_generation_prompt, int enable_thinking) {
  auto* t = find(tokenizers(), handle, "tokenizer");
  if (!t) return nullptr;
  if (!(*t)->has_chat_template()) {
    fail("the tokenizer has no chat template (give a tokenizerConfig whose chat_template is set)");
    return nullptr;
  }
  json j = json::parse(view(messages_json, size), nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    fail("messages must be an array of {role, content}");
    return nullptr;
  }
  std::vector<wick::llm::ChatMessage> messages;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& m = j[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") ||
        !m["content"].is_string()) {
      fail("messages[" + std::to_string(i) + "] must be {role: string, content: string}");
      return nullptr;
    }
    messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
  }
  auto text = (*t)->apply_chat_template(messages, add_generation_prompt != 0, enable_thinking != 0);
  if (!text.ok()) {
    fail(text.status());
    return nullptr;
  }
  return text_answer(std::move(text).value());
}

// ----- streaming detokenizer -----

EMSCRIPTEN_KEEPALIVE int wick_llm_stream_new(int tokenizer, int skip_special_tokens) {
  auto* t = find(tokenizers(), tokenizer, "tokenizer");
  if (!t) return 0;
  StreamSlot slot{*t, std::make_unique<wick::llm::StreamDecoder>(**t, skip_special_tokens != 0)};
  const int handle = next_handle++;
  streams()[handle] = std::move(slot);
  return handle;
}

EMSCRIPTEN_KEEPALIVE void wick_llm_stream_free(int handle) { streams().erase(handle); }

// The complete UTF-8 text that `id` finishes (maybe empty), or null for an id outside
// the vocabulary.
EMSCRIPTEN_KEEPALIVE const char* wick_llm_stream_push(int handle, int id) {
  auto* s = find(streams(), handle, "stream decoder");
  if (!s) return nullptr;
  auto bytes = s->tokenizer->token_bytes(id);  // the decoder skips unknown ids silently
  if (!bytes.ok()) {
    fail(bytes.status());
    return nullptr;
  }
  return text_answer(s->decoder->push(id));
}

EMSCRIPTEN_KEEPALIVE const char* wick_llm_stream_flush(int handle) {
  auto* s = find(streams(), handle, "stream decoder");
  if (!s) return nullptr;
  return text_answer(s->decoder->flush());
}

// ----- runner -----

// Parses and verifies a .pte (copied). A program handle; wick_llm_program_info says
// whether it needs WebGPU, so that JavaScript starts it before wick_llm_runner_load.
EMSCRIPTEN_KEEPALIVE int wick_llm_program_load(const uint8_t* bytes, size_t size, const char* name) {
  if (wick::Status s = register_kernels_once(); !s.ok()) return fail(s);
  auto program = wick::Program::load_bytes(std::span<const uint8_t>(bytes, size), name);
  if (!program.ok()) return fail(program.status());
  const int handle = next_handle++;
  programs()[handle] = std::move(*program);
  return handle;
}

EMSCRIPTEN_KEEPALIVE void wick_llm_program_free(int handle) { programs().erase(handle); }

// {methods, backends: [delegate ids of `method`]}
EMSCRIPTEN_KEEPALIVE const char* wick_llm_program_info(int handle, const char* method) {
  auto* p = find(programs(), handle, "program");
  if (!p) return nullptr;
  json backends = json::array();
  auto meta = (*p)->method_meta(method);
  if (!meta.ok()) {
    fail(meta.status());
    return nullptr;
  }
  for (const wick::DelegateMeta& d : meta->delegates) backends.push_back(d.backend_id);
  return json_answer(json{{"methods", (*p)->method_names()}, {"backends", backends}});
}

// options: JSON {method, maxContextLen, prefillChunk, eosIds}. Loads the method (its
// delegates compile their shaders: async). A runner handle; the program handle may be
// freed afterwards.
EMSCRIPTEN_KEEPALIVE int wick_llm_runner_load(int program, const char* options_json) {
  auto* p = find(programs(), program, "program");
  if (!p) return 0;
  json j = json::parse(std::string_view(options_json ? options_json : "{}"), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("runner options must be a JSON object");
  wick::llm::RunnerOptions o;
  if (j.contains("method") && j["method"].is_string()) o.method = j["method"].get<std::string>();
  if (j.contains("maxContextLen") && j["maxContextLen"].is_number_integer())
    o.max_context_len = j["maxContextLen"].get<int64_t>();
  if (j.contains("prefillChunk") && j["prefillChunk"].is_number_integer())
    o.prefill_chunk = j["prefillChunk"].get<int64_t>();
  if (j.contains("eosIds") && j["eosIds"].is_array())
    for (const json& id : j["eosIds"])
      if (id.is_number_integer()) o.eos_ids.push_back(id.get<int32_t>());
  std::shared_ptr<wick::Program> keep = *p;
  auto runner = wick::llm::Runner::load(*keep, o);
  if (!runner.ok()) return fail(runner.status());
  const int handle = next_handle++;
  runners()[handle] = RunnerSlot{keep, std::move(runner).value(), std::nullopt};
  return handle;
}

EMSCRIPTEN_KEEPALIVE void wick_llm_runner_free(int handle) { runners().erase(handle); }

// {maxContextLen, maxSeqLen, prefillChunk, useKvCache, dynamicShape, eosIds, bosId,
//  vocabSize, position, remainingContext}
EMSCRIPTEN_KEEPALIVE const char* wick_llm_runner_info(int handle) {
  auto* s = find(runners(), handle, "runner");
  if (!s) return nullptr;
  const wick::llm::RunnerInfo& i = s->runner->info();
  json bos = nullptr, vocab = nullptr;
  if (i.bos_id) bos = *i.bos_id;
  if (i.vocab_size) vocab = *i.vocab_size;
  const int64_t position = s->runner->position();
  return json_answer(json{{"maxContextLen", i.max_context_len},
                          {"maxSeqLen", i.max_seq_len},
                          {"prefillChunk", i.prefill_chunk},
                          {"useKvCache", i.use_kv_cache},
                          {"dynamicShape", i.dynamic_shape},
                          {"eosIds", i.eos_ids},
                          {"bosId", bos},
                          {"vocabSize", vocab},
                          {"position", position},
                          {"remainingContext", s->runner->remaining_context()}});
}

EMSCRIPTEN_KEEPALIVE int wick_llm_set_eos_ids(int handle, const int32_t* ids, int count) {
  auto* s = find(runners(), handle, "runner");
  if (!s) return 0;
  s->runner->set_eos_ids(std::vector<int32_t>(ids, ids + std::max(count, 0)));
  return 1;
}

// Starts a generation on `prompt` (appended to the conversation so far). config: JSON
// {maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, seed (a decimal
// string), ignoreEos}. Checks everything that can be checked without running; 1 or 0.
EMSCRIPTEN_KEEPALIVE int wick_llm_start(int handle, const int32_t* prompt, int count, const char* config_json) {
  auto* s = find(runners(), handle, "runner");
  if (!s) return 0;
  if (count <= 0 || !prompt) return fail("empty prompt: give at least one token");
  json j = json::parse(std::string_view(config_json ? config_json : "{}"), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("generation options must be a JSON object");
  Generation g;
  auto num = [&](const char* key, auto& out) {
    if (j.contains(key) && j[key].is_number()) out = j[key].get<std::remove_reference_t<decltype(out)>>();
  };
  num("maxNewTokens", g.config.max_new_tokens);
  num("temperature", g.config.sampler.temperature);
  num("topK", g.config.sampler.top_k);
  num("topP", g.config.sampler.top_p);
  num("minP", g.config.sampler.min_p);
  num("repetitionPenalty", g.config.sampler.repetition_penalty);
  if (j.contains("seed") && j["seed"].is_string()) {
    const std::string seed = j["seed"].get<std::string>();
    char* end = nullptr;
    g.config.sampler.seed = std::strtoull(seed.c_str(), &end, 10);
    if (seed.empty() || *end != '\0') return fail("seed must be an integer >= 0, got '" + seed + "'");
  }
  if (j.contains("ignoreEos") && j["ignoreEos"].is_boolean()) g.config.ignore_eos = j["ignoreEos"].get<bool>();
  if (g.config.max_new_tokens == 0 || g.config.max_new_tokens < -1)
    return fail("maxNewTokens must be >= 1 (or -1: as many as the context holds)");
  auto sampler = wick::llm::Sampler::create(g.config.sampler);
  if (!sampler.ok()) return fail(sampler.status());
  g.sampler.emplace(std::move(sampler).value());
  const wick::llm::RunnerInfo& info = s->runner->info();
  const int64_t used = info.max_context_len - s->runner->remaining_context();
  if (used + count > info.max_context_len)
    return fail("prompt of " + std::to_string(count) + " tokens does not fit in the context: " +
                std::to_string(info.max_context_len) + " tokens, " + std::to_string(used) + " already used");
  if (info.vocab_size)
    for (int i = 0; i < count; ++i)
      if (prompt[i] < 0 || prompt[i] >= *info.vocab_size)
        return fail("token " + std::to_string(prompt[i]) + " is outside the vocabulary (0.." +
                    std::to_string(*info.vocab_size - 1) + ")");
  g.prompt.assign(prompt, prompt + count);
  g.result.prompt_tokens = count + (s->runner->has_pending() ? 1 : 0);
  s->gen = std::move(g);
  return 1;
}

// One token: the first call prefills the prompt, later ones feed the previous token.
// The token id; -1 with an error (the generation is then over); -2 once the generation
// is done (wick_llm_result says why).
EMSCRIPTEN_KEEPALIVE int wick_llm_step(int handle) {
  auto* s = find(runners(), handle, "runner");
  if (!s) return -1;
  if (!s->gen) {
    fail("no generation was started");
    return -1;
  }
  Generation& g = *s->gen;
  if (g.done) return -2;
  const auto t = Clock::now();
  wick::Result<int32_t> tok = 0;
  if (!g.started) {
    g.started = true;
    g.t0 = t;
    tok = feed_and_sample(*s, g.prompt);
    // The prefill's share: everything but the sampling, which is tiny beside it.
    g.result.prefill_ms = ms_between(t, Clock::now());
    g.result.time_to_first_token_ms = g.result.prefill_ms;
  } else {
    tok = feed_and_sample(*s, {});
    g.result.decode_ms += ms_between(t, Clock::now());
  }
  if (!tok.ok()) {
    g.done = true;
    fail(tok.status());
    return -1;
  }
  check_stop(*s, *tok);
  return *tok;
}

// 1 once the generation is over (a stop condition, an error or wick_llm_cancel).
EMSCRIPTEN_KEEPALIVE int wick_llm_done(int handle) {
  auto* s = find(runners(), handle, "runner");
  return s && s->gen && s->gen->done ? 1 : 0;
}

// Stops the generation before its next token (StopReason cancelled). The token sampled
// last stays pending: the next turn feeds it, as after Runner::request_stop().
EMSCRIPTEN_KEEPALIVE int wick_llm_cancel(int handle) {
  auto* s = find(runners(), handle, "runner");
  if (!s) return 0;
  if (s->gen && !s->gen->done)
    finish(*s, wick::llm::StopReason::kCancelled,
           "stopped by the caller after " + std::to_string(s->gen->result.tokens.size()) + " tokens");
  return 1;
}

// The current or last generation's stats (see result_json).
EMSCRIPTEN_KEEPALIVE const char* wick_llm_result(int handle) {
  auto* s = find(runners(), handle, "runner");
  if (!s) return nullptr;
  if (!s->gen) {
    fail("no generation was started");
    return nullptr;
  }
  return json_answer(result_json(s->gen->result, s->gen->done, s->runner->position()));
}

// Feeds tokens without generating (e.g. a system prompt ahead of time). 1 or 0.
EMSCRIPTEN_KEEPALIVE int wick_llm_prefill(int handle, const int32_t* ids, int count) {
  auto* s = find(runners(), handle, "runner");
  if (!s) return 0;
  if (count <= 0 || !ids) return fail("empty prompt: give at least one token");
  if (s->gen && !s->gen->done) return fail("a generation is running: finish or cancel it first");
  auto logits = s->runner->prefill(std::span<const int32_t>(ids, static_cast<size_t>(count)));
  if (!logits.ok()) return fail(logits.status());
  return 1;
}

// A new conversation: position 0, nothing pending.
EMSCRIPTEN_KEEPALIVE int wick_llm_reset(int handle) {
  auto* s = find(runners(), handle, "runner");
  if (!s) return 0;
  s->runner->reset();
  s->gen.reset();
  return 1;
}

}  // extern "C"
