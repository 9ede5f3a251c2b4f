#include "llm/sampler.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/topk_order.h"

namespace wick::llm {

namespace {
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

Status bad(const std::string& what) { return Status(ErrorCode::kInvalidArgument, "sampler: " + what); }
}  // namespace

Rng::Rng(uint64_t seed) : state_(splitmix64(seed)) {
  if (state_ == 0) state_ = 0x2545F4914F6CDD1Dull;  // xorshift's one fixed point
}

uint64_t Rng::next_u64() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return state_ * 0x2545F4914F6CDD1Dull;
}

float Rng::next_float() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }

Status validate_sampler_config(const SamplerConfig& c) {
  if (!std::isfinite(c.temperature) || c.temperature < 0)
    return bad("temperature must be a finite number >= 0 (0 = greedy), got " + std::to_string(c.temperature));
  if (c.top_k < 0) return bad("top_k must be >= 0 (0 = off), got " + std::to_string(c.top_k));
  if (!std::isfinite(c.top_p) || c.top_p <= 0 || c.top_p > 1)
    return bad("top_p must be in (0, 1] (1 = off), got " + std::to_string(c.top_p));
  if (!std::isfinite(c.min_p) || c.min_p < 0 || c.min_p > 1)
    return bad("min_p must be in [0, 1] (0 = off), got " + std::to_string(c.min_p));
  if (!std::isfinite(c.repetition_penalty) || c.repetition_penalty <= 0)
    return bad("repetition_penalty must be > 0 (1 = off), got " + std::to_string(c.repetition_penalty));
  return {};
}

Result<Sampler> Sampler::create(const SamplerConfig& config) {
  WICK_RETURN_IF_ERROR(validate_sampler_config(config));
  return Sampler(config);
}

int32_t argmax(std::span<const float> logits) {
  if (logits.empty()) return -1;
  size_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i)
    if (logits[i] > logits[best]) best = i;
  return static_cast<int32_t>(best);
}

Result<int32_t> Sampler::sample(std::span<const float> logits, std::span<const int32_t> history) {
  if (logits.empty()) return bad("empty logits row");
  for (size_t i = 0; i < logits.size(); ++i)
    if (std::isnan(logits[i])) return bad("logit " + std::to_string(i) + " is NaN");

  std::span<const float> row = logits;
  if (config_.repetition_penalty != 1.0f && !history.empty()) {
    // Hugging Face's RepetitionPenaltyLogitsProcessor: each token seen once or more is
    // penalised once, dividing positive logits and multiplying negative ones.
    scratch_.assign(logits.begin(), logits.end());
    const float r = config_.repetition_penalty;
    std::vector<uint8_t> seen(scratch_.size(), 0);
    for (int32_t id : history) {
      if (id < 0 || static_cast<size_t>(id) >= scratch_.size() || seen[id]) continue;
      seen[id] = 1;
      scratch_[id] = scratch_[id] > 0 ? scratch_[id] / r : scratch_[id] * r;
    }
    row = scratch_;
  }
  if (greedy()) return argmax(row);

  // Candidates sorted by logit, best first (runtime/topk_order.h: ties by lower id, so runs are stable).
  cand_.clear();
  cand_.reserve(row.size());
  for (size_t i = 0; i < row.size(); ++i)
    if (row[i] != -INFINITY) cand_.emplace_back(row[i] / config_.temperature, static_cast<int32_t>(i));
  if (cand_.empty()) return bad("every logit is -inf");
  keep_best(cand_, config_.top_k > 0 ? static_cast<size_t>(config_.top_k) : cand_.size());
  return draw();
}

int Sampler::candidates_needed() const {
  if (config_.repetition_penalty != 1.0f) return 0;
  if (greedy()) return 1;
  return config_.top_k;
}

Result<int32_t> Sampler::sample_top(std::span<const int32_t> ids, std::span<const float> values) {
  const int need = candidates_needed();
  if (need == 0) return bad("this configuration needs the whole logits row, not its top entries");
  if (ids.size() != values.size() || ids.empty())
    return bad("expected the " + std::to_string(need) + " best logits, got " + std::to_string(ids.size()));
  for (size_t i = 0; i < values.size(); ++i)
    if (std::isnan(values[i])) return bad("logit " + std::to_string(ids[i]) + " is NaN");
  if (greedy()) return ids[0];
  cand_.clear();
  for (size_t i = 0; i < std::min(ids.size(), static_cast<size_t>(need)); ++i)
    if (values[i] != -INFINITY) cand_.emplace_back(values[i] / config_.temperature, ids[i]);
  if (cand_.empty()) return bad("every logit is -inf");
  // Same order as sample(): by the divided logit, ties by id.
  keep_best(cand_, cand_.size());
  return draw();
}

int32_t Sampler::draw() {
  size_t keep;
  // Softmax over the survivors, in double so long tails still sum exactly enough.
  const double top = cand_[0].first;
  double sum = 0;
  std::vector<double> prob(cand_.size());
  for (size_t i = 0; i < cand_.size(); ++i) sum += prob[i] = std::exp(static_cast<double>(cand_[i].first) - top);
  for (double& p : prob) p /= sum;

  if (config_.top_p < 1.0f) {
    // The smallest prefix whose mass reaches top_p (always at least one token).
    double mass = 0;
    size_t n = 0;
    while (n < prob.size()) {
      mass += prob[n++];
      if (mass >= config_.top_p) break;
    }
    keep = n;
  } else {
    keep = prob.size();
  }
  if (config_.min_p > 0.0f) {
    const double floor = config_.min_p * prob[0];
    size_t n = 1;
    while (n < keep && prob[n] >= floor) ++n;
    keep = n;
  }

  double kept = 0;
  for (size_t i = 0; i < keep; ++i) kept += prob[i];
  const double u = static_cast<double>(rng_.next_float()) * kept;
  double acc = 0;
  for (size_t i = 0; i < keep; ++i) {
    acc += prob[i];
    if (u < acc) return cand_[i].second;
  }
  return cand_[keep - 1].second;  // u rounded up to `kept`
}

}  // namespace wick::llm
