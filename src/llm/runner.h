// Generation on an ExecuTorch LLM program (../shared/spec/llm.md): prefill a prompt,
// then sample and feed back one token at a time, with the KV cache kept inside the
// loaded method between calls.
//
//   auto program = wick::Program::load_file("model.pte");
//   auto runner = wick::llm::Runner::load(*program, {});
//   GenerationConfig cfg; cfg.max_new_tokens = 32;
//   auto result = (*runner)->generate(prompt_ids, cfg, [](int32_t id) { ...; return true; });
//
// Multi-turn: the position persists across generate() calls, so the next call prefills
// only its new tokens; reset() starts a new conversation. The last token a generate()
// sampled is not yet in the cache: the next generate() feeds it first.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "llm/llm_metadata.h"
#include "llm/sampler.h"
#include "runtime/program.h"

namespace wick::llm {

struct RunnerOptions {
  std::string method = "forward";
  // Override or supply what the getter methods would say (programs without them, such
  // as the fixtures, need max_context_len: the KV cache length is not in the signature).
  std::optional<int64_t> max_context_len;
  // Tokens per prefill call; 0 = the most the program takes (its tokens dim bound).
  int64_t prefill_chunk = 0;
  // Used when the program has no get_eos_ids (e.g. the tokenizer's EOS ids).
  std::vector<int32_t> eos_ids;
  MemoryLimits limits;
};

// What the runner settled on, from the getters, the signature and the options.
struct RunnerInfo {
  int64_t max_context_len = 0;  // KV cache slots: tokens the conversation may hold
  int64_t max_seq_len = 0;      // get_max_seq_len, or the tokens bound when absent
  int64_t prefill_chunk = 1;    // tokens per prefill call
  bool use_kv_cache = true;
  bool dynamic_shape = false;
  bool cache_position = false;
  std::vector<int32_t> eos_ids;
  std::optional<int64_t> bos_id;
  std::optional<int64_t> vocab_size;
  LlmGetters getters;           // as read from the program
};

struct GenerationConfig {
  int64_t max_new_tokens = -1;  // -1: until EOS or the context is full
  SamplerConfig sampler;        // temperature 0 = greedy
  bool ignore_eos = false;
};

enum class StopReason { kEos, kMaxNewTokens, kContextFull, kCancelled };
const char* stop_reason_name(StopReason r);  // "eos", "max_new_tokens", "context_full", "cancelled"

struct GenerationResult {
  std::vector<int32_t> tokens;  // generated ids, the EOS id included when it stopped there
  StopReason stop = StopReason::kMaxNewTokens;
  std::string stop_message;     // a sentence for the user, e.g. which EOS id, which limit
  int64_t prompt_tokens = 0;    // tokens prefilled by this call (a pending one included)
  int64_t position = 0;         // tokens in the cache afterwards
  double time_to_first_token_ms = 0;  // from the call to the first sampled token
  double prefill_ms = 0;
  double decode_ms = 0;         // the forward calls and sampling after the first token
  double prefill_tokens_per_s = 0;
  double decode_tokens_per_s = 0;  // (tokens - 1) / decode time
};

// Called with each generated id; return false to stop (StopReason::kCancelled).
using TokenCallback = std::function<bool(int32_t)>;

class Runner {
 public:
  static Result<std::unique_ptr<Runner>> load(Program& program, const RunnerOptions& options = {});

  const RunnerInfo& info() const { return info_; }
  // Whether the last generate() read only the logits' top-k (computed on the GPU when the
  // logits come from the WebGPU delegate) instead of whole rows.
  bool sampled_from_top_k() const { return top_k_ > 0; }
  bool top_k_on_device() const { return top_k_ > 0 && method_->output_topk_on_device(0); }
  int64_t position() const { return pos_; }
  // Tokens the cache can still take (a pending token counts as taken).
  int64_t remaining_context() const;

  // Feeds `tokens` (after a pending token, if any) and returns the logits row of the
  // last one. Errors: empty input, more than the context holds.
  Result<std::vector<float>> prefill(std::span<const int32_t> tokens);

  // Prefill `prompt`, then sample up to max_new_tokens. The prompt must be non-empty
  // and fit in the context with room for nothing else needed (the first token is
  // sampled from the prefill's logits).
  Result<GenerationResult> generate(std::span<const int32_t> prompt, const GenerationConfig& config,
                                    const TokenCallback& on_token = {});

  // One token of a generation driven from outside (the Wasm API streams one per call):
  // feeds `tokens` (after a pending token), or with none the pending token alone (a decode
  // step), samples one from the last logits, as generate() does (the top-k only when
  // `sampler` needs no more), and leaves it pending. generate()'s stop conditions are the
  // caller's.
  Result<int32_t> step(std::span<const int32_t> tokens, Sampler& sampler);
  bool has_pending() const { return pending_.has_value(); }

  // Starts a new conversation (position 0). The cache need not be cleared: attention
  // reads only positions below the current one.
  void reset();
  // Thread-safe: the running generate() stops after its current step.
  void request_stop() { stop_requested_ = true; }

  void set_eos_ids(std::vector<int32_t> ids) { info_.eos_ids = std::move(ids); }

 private:
  Runner() = default;
  // What one forward call leaves for the sampler: the whole logits row of the last token
  // (or, without KV cache, of position n-1), or only its best entries when top_k_ > 0.
  struct Logits {
    std::vector<float> row;
    TopK top;
  };
  // One forward call on `tokens` at position `pos`.
  Result<Logits> forward(std::span<const int32_t> tokens, int64_t pos);
  Result<Logits> prefill_logits(std::span<const int32_t> tokens);
  // Asks the method for the top-k of the logits (0: the whole row) when it changes.
  Status use_top_k(int k);
  Result<int32_t> sample(Sampler& sampler, const Logits& logits);
  Status check_room(int64_t n) const;

  std::unique_ptr<Method> method_;
  ForwardSignature sig_;
  RunnerInfo info_;
  int64_t pos_ = 0;
  std::optional<int32_t> pending_;  // sampled last, not yet fed
  std::vector<int32_t> history_;    // every token fed so far (repetition penalty; no-KV re-feed)
  int top_k_ = 0;                   // > 0: forward() reads back only the logits' top-k
  std::atomic<bool> stop_requested_{false};
};

}  // namespace wick::llm
