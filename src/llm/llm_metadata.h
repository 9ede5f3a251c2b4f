// What an LLM .pte says about itself (ExecuTorch's calling convention,
// ../shared/spec/llm.md §2-3): the constant getter methods, and what the `forward`
// signature shows (dynamic prefill bound, input_pos vs cache_position, KV cache or not).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace wick {
class Program;
}

namespace wick::llm {

// The getter methods of an LLM program. Each is optional here (the fixtures' programs
// have none); the runner decides what a missing one means.
struct LlmGetters {
  std::optional<int64_t> max_seq_len;      // get_max_seq_len
  std::optional<int64_t> max_context_len;  // get_max_context_len
  std::optional<bool> use_kv_cache;        // use_kv_cache (or get_use_kv_cache)
  std::optional<bool> enable_dynamic_shape;
  std::optional<int64_t> bos_id;           // get_bos_id
  std::optional<int64_t> vocab_size;       // get_vocab_size
  std::optional<int64_t> n_layers;         // get_n_layers
  std::vector<int64_t> eos_ids;            // get_eos_ids (one output per id), or get_eos_id
};

// Runs every getter the program has. A getter that exists but does not run, or returns
// something other than an Int/Bool, is an error naming it.
Result<LlmGetters> read_llm_getters(Program& program);

// The decoder method's calling convention, from its signature.
struct ForwardSignature {
  ScalarType token_dtype = ScalarType::kLong;  // int64, or int32 for some exports
  bool dynamic_tokens = false;                 // tokens [1, S] with S up to max_tokens
  int64_t max_tokens = 1;                      // tokens per call (the dim's upper bound)
  bool has_position = true;                    // false: no KV cache, one input (tokens)
  bool cache_position = false;                 // input 1 is [S] positions, not [1] start
  ScalarType position_dtype = ScalarType::kLong;
  int64_t vocab = 0;                           // the logits' last dim
};

Result<ForwardSignature> read_forward_signature(Program& program, const std::string& method);

}  // namespace wick::llm
