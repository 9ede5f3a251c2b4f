// Picks the next token from a row of logits: greedy, or seeded sampling with
// temperature, top-k, top-p (nucleus), min-p and a repetition penalty.
//
// Sampling is reproducible across libstdc++, libc++ and Emscripten: the random numbers
// come from Wick's own generator (Rng below), not from <random>'s distributions, whose
// output differs between standard libraries.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"

namespace wick::llm {

// xorshift64* seeded through splitmix64, so that seeds 0, 1, 2... give unrelated streams.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0);
  uint64_t next_u64();
  // Uniform in [0, 1), from the top 24 bits (exact in a float).
  float next_float();

 private:
  uint64_t state_;
};

struct SamplerConfig {
  // 0 means greedy (argmax); otherwise logits are divided by it before the softmax.
  float temperature = 0.0f;
  int top_k = 0;                    // keep the k most likely tokens; 0 = all
  float top_p = 1.0f;               // keep the smallest set whose probability reaches p; 1 = all
  float min_p = 0.0f;               // drop tokens below min_p * (probability of the best one)
  float repetition_penalty = 1.0f;  // Hugging Face's: positive logits / r, negative * r
  uint64_t seed = 0;
};

// Checks ranges: temperature >= 0, top_k >= 0, 0 < top_p <= 1, 0 <= min_p <= 1,
// repetition_penalty > 0, every value finite. Names the bad field.
Status validate_sampler_config(const SamplerConfig& config);

class Sampler {
 public:
  // `config` must pass validate_sampler_config (create() checks it).
  static Result<Sampler> create(const SamplerConfig& config);

  // The next token for `logits` (one row, vocabulary-sized). `history` is what the
  // repetition penalty looks at (the prompt and the tokens generated so far). NaN
  // logits are an error; -inf is a masked-out token.
  Result<int32_t> sample(std::span<const float> logits, std::span<const int32_t> history = {});

  // How many of the best logits sample_top() needs to give exactly what sample() gives on
  // the whole row: 1 for greedy, top_k for top-k sampling; 0 when it needs the whole row
  // (no top_k, or a repetition penalty, which can reorder tokens outside any top set).
  int candidates_needed() const;
  // The next token from the row's best entries, best first (ties: lower id first), as
  // Method::request_output_topk gives them: at least candidates_needed() of them.
  Result<int32_t> sample_top(std::span<const int32_t> ids, std::span<const float> values);

  const SamplerConfig& config() const { return config_; }
  bool greedy() const { return config_.temperature == 0.0f; }

 private:
  explicit Sampler(const SamplerConfig& config) : config_(config), rng_(config.seed) {}
  // Softmax over cand_ (sorted best first, logits already divided by the temperature),
  // then top-p, min-p and the seeded draw.
  int32_t draw();
  SamplerConfig config_;
  Rng rng_;
  std::vector<float> scratch_;                   // penalised logits
  std::vector<std::pair<float, int32_t>> cand_;  // (probability or logit, id)
};

// The first index of the largest value (torch.argmax's tie rule); -1 for an empty row.
int32_t argmax(std::span<const float> logits);

}  // namespace wick::llm
