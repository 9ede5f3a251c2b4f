#include "llm/runner.h"

#include <algorithm>
#include <chrono>

namespace wick::llm {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

Status invalid(const std::string& m) { return Status(ErrorCode::kInvalidArgument, m); }

Tensor int_tensor(ScalarType dtype, std::vector<int64_t> sizes, std::span<const int64_t> values) {
  Tensor t = Tensor::make_owned(dtype, std::move(sizes));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == ScalarType::kLong) t.data_as<int64_t>()[i] = values[i];
    else t.data_as<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
  return t;
}

}  // namespace

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::kEos: return "eos";
    case StopReason::kMaxNewTokens: return "max_new_tokens";
    case StopReason::kContextFull: return "context_full";
    case StopReason::kCancelled: return "cancelled";
  }
  return "?";
}

Result<std::unique_ptr<Runner>> Runner::load(Program& program, const RunnerOptions& options) {
  std::unique_ptr<Runner> r(new Runner());
  WICK_ASSIGN_OR_RETURN(r->sig_, read_forward_signature(program, options.method));
  WICK_ASSIGN_OR_RETURN(LlmGetters g, read_llm_getters(program));
  RunnerInfo& info = r->info_;
  info.getters = g;
  const ForwardSignature& s = r->sig_;
  info.use_kv_cache = s.has_position;
  info.dynamic_shape = s.dynamic_tokens;
  info.cache_position = s.cache_position;
  // The signature's bound is what forward() accepts; get_max_seq_len is often one more
  // (the export's Dim max is max_seq_len - 1).
  info.max_seq_len = g.max_seq_len.value_or(s.max_tokens);
  if (options.prefill_chunk < 0) return invalid("prefill chunk must be >= 0 (0 = as large as the program takes)");
  if (!s.has_position) {
    info.prefill_chunk = s.max_tokens;  // the whole sequence goes in every call
  } else if (s.dynamic_tokens) {
    info.prefill_chunk = options.prefill_chunk > 0 ? std::min(options.prefill_chunk, s.max_tokens) : s.max_tokens;
  } else if (s.max_tokens == 1) {
    info.prefill_chunk = 1;
  } else {
    return Status(ErrorCode::kNotSupported,
                  "method '" + options.method + "': tokens are a static [1, " + std::to_string(s.max_tokens) +
                      "] with a KV cache; Wick feeds prompts of any length, so it needs tokens [1, 1] or a dynamic [1, S]");
  }
  if (options.max_context_len) info.max_context_len = *options.max_context_len;
  else if (g.max_context_len) info.max_context_len = *g.max_context_len;
  else if (!s.has_position) info.max_context_len = s.max_tokens;
  else if (g.max_seq_len) info.max_context_len = *g.max_seq_len;  // ExecuTorch's default
  else
    return invalid("'" + program.name() +
                   "' has no get_max_context_len or get_max_seq_len method, so its KV cache length is unknown: "
                   "give it (RunnerOptions::max_context_len, wick generate --max-context-len N)");
  if (info.max_context_len < 1) return invalid("max context length must be >= 1, got " + std::to_string(info.max_context_len));
  if (!s.has_position && info.max_context_len > s.max_tokens) info.max_context_len = s.max_tokens;
  for (int64_t id : g.eos_ids) info.eos_ids.push_back(static_cast<int32_t>(id));
  if (info.eos_ids.empty()) info.eos_ids = options.eos_ids;
  info.bos_id = g.bos_id;
  info.vocab_size = g.vocab_size ? *g.vocab_size : s.vocab;
  WICK_ASSIGN_OR_RETURN(r->method_, program.load_method(options.method, options.limits));
  return r;
}

int64_t Runner::remaining_context() const { return info_.max_context_len - pos_ - (pending_ ? 1 : 0); }

void Runner::reset() {
  pos_ = 0;
  pending_.reset();
  history_.clear();
  stop_requested_ = false;
}

Status Runner::check_room(int64_t n) const {
  if (n <= remaining_context()) return {};
  return invalid("prompt of " + std::to_string(n) + " tokens does not fit in the context: " +
                 std::to_string(info_.max_context_len) + " tokens, " + std::to_string(info_.max_context_len - remaining_context()) +
                 " already used");
}

Status Runner::use_top_k(int k) {
  // Only programs with a KV cache: their logits' last row is the last token's (a padded
  // static program's row n-1 need not be the last).
  if (!sig_.has_position || k > Method::kMaxTopK) k = 0;
  if (k == top_k_) return {};
  WICK_RETURN_IF_ERROR(method_->request_output_topk(0, k));
  top_k_ = k;
  return {};
}

Result<int32_t> Runner::sample(Sampler& sampler, const Logits& logits) {
  if (top_k_ > 0) return sampler.sample_top(logits.top.ids, logits.top.values);
  return sampler.sample(logits.row, history_);
}

Result<Runner::Logits> Runner::forward(std::span<const int32_t> tokens, int64_t pos) {
  const int64_t n = static_cast<int64_t>(tokens.size());
  std::vector<int64_t> ids(tokens.begin(), tokens.end());
  int64_t row = n - 1;
  std::vector<Value> inputs;
  if (!sig_.has_position && !sig_.dynamic_tokens && n < sig_.max_tokens) {
    // A causal program without KV cache and a static length: pad the end; row n-1
    // depends only on the real tokens.
    ids.resize(static_cast<size_t>(sig_.max_tokens), 0);
  }
  inputs.push_back(Value::make_tensor(int_tensor(sig_.token_dtype, {1, static_cast<int64_t>(ids.size())}, ids)));
  if (sig_.has_position) {
    std::vector<int64_t> p;
    if (sig_.cache_position) for (int64_t i = 0; i < n; ++i) p.push_back(pos + i);
    else p.push_back(pos);
    inputs.push_back(Value::make_tensor(int_tensor(sig_.position_dtype, {static_cast<int64_t>(p.size())}, p)));
  }
  if (top_k_ > 0) {
    // No copy of the outputs: the sampler reads the top-k only.
    for (size_t i = 0; i < inputs.size(); ++i) WICK_RETURN_IF_ERROR(method_->set_input(i, inputs[i]));
    WICK_RETURN_IF_ERROR(method_->execute());
    WICK_ASSIGN_OR_RETURN(const TopK* top, method_->output_topk(0));
    Logits out;
    out.top = *top;
    return out;
  }
  WICK_ASSIGN_OR_RETURN(auto outs, method_->forward(inputs));
  const Tensor& logits = outs[0].tensor;
  if (!outs[0].is_tensor() || logits.dtype != ScalarType::kFloat || logits.dim() < 2)
    return Status(ErrorCode::kInvalidProgram, "forward: output 0 is not float32 logits");
  const int64_t vocab = logits.sizes.back();
  const int64_t rows = logits.numel() / std::max<int64_t>(vocab, 1);
  // [1, vocab] (only the last position kept) or [1, S, vocab].
  if (rows == 1) row = 0;
  else if (rows != static_cast<int64_t>(ids.size()))
    return Status(ErrorCode::kInvalidProgram, "forward: logits " + logits.shape_string() + " for " +
                                                  std::to_string(ids.size()) + " tokens");
  else if (sig_.has_position) row = rows - 1;
  if (rows == 1 && static_cast<int64_t>(ids.size()) != n)
    return Status(ErrorCode::kNotSupported, "forward: padded tokens but the program returns only the last row of logits");
  const float* p = logits.data_as<float>() + row * vocab;
  Logits out;
  out.row.assign(p, p + vocab);
  return out;
}

Result<std::vector<float>> Runner::prefill(std::span<const int32_t> tokens) {
  WICK_RETURN_IF_ERROR(use_top_k(0));
  WICK_ASSIGN_OR_RETURN(Logits l, prefill_logits(tokens));
  return std::move(l.row);
}

Result<Runner::Logits> Runner::prefill_logits(std::span<const int32_t> tokens) {
  if (tokens.empty()) return invalid("empty prompt: give at least one token");
  std::vector<int32_t> feed;
  if (pending_) feed.push_back(*pending_);
  feed.insert(feed.end(), tokens.begin(), tokens.end());
  WICK_RETURN_IF_ERROR(check_room(static_cast<int64_t>(tokens.size())));
  if (info_.vocab_size)
    for (int32_t id : tokens)
      if (id < 0 || id >= *info_.vocab_size)
        return invalid("token " + std::to_string(id) + " is outside the vocabulary (0.." + std::to_string(*info_.vocab_size - 1) + ")");
  Logits logits;
  if (!sig_.has_position) {
    std::vector<int32_t> all = history_;
    all.insert(all.end(), feed.begin(), feed.end());
    WICK_ASSIGN_OR_RETURN(logits, forward(all, 0));
  } else {
    for (size_t at = 0; at < feed.size();) {
      const size_t n = std::min(feed.size() - at, static_cast<size_t>(info_.prefill_chunk));
      WICK_ASSIGN_OR_RETURN(logits, forward(std::span<const int32_t>(feed).subspan(at, n), pos_ + static_cast<int64_t>(at)));
      at += n;
    }
  }
  pos_ += static_cast<int64_t>(feed.size());
  history_.insert(history_.end(), feed.begin(), feed.end());
  pending_.reset();
  return logits;
}

Result<int32_t> Runner::step(std::span<const int32_t> tokens, Sampler& sampler) {
  if (tokens.empty() && !pending_) return invalid("empty prompt: give at least one token");
  WICK_RETURN_IF_ERROR(use_top_k(sampler.candidates_needed()));
  Result<Logits> logits = Logits{};
  if (tokens.empty()) {
    const int32_t feed = *pending_;
    pending_.reset();
    logits = prefill_logits(std::span<const int32_t>(&feed, 1));
    if (!logits.ok()) pending_ = feed;  // still not in the cache
  } else {
    logits = prefill_logits(tokens);
  }
  if (!logits.ok()) return logits.status();
  WICK_ASSIGN_OR_RETURN(int32_t tok, sample(sampler, *logits));
  pending_ = tok;
  return tok;
}

Result<GenerationResult> Runner::generate(std::span<const int32_t> prompt, const GenerationConfig& config,
                                          const TokenCallback& on_token) {
  if (config.max_new_tokens == 0 || config.max_new_tokens < -1)
    return invalid("max_new_tokens must be >= 1, or -1 for as many as the context holds");
  WICK_ASSIGN_OR_RETURN(Sampler sampler, Sampler::create(config.sampler));
  // Greedy and top-k sampling read back only the best logits (on the GPU's side when the
  // logits come from the WebGPU delegate), not a vocabulary-sized row per token.
  WICK_RETURN_IF_ERROR(use_top_k(sampler.candidates_needed()));
  stop_requested_ = false;
  GenerationResult res;
  res.prompt_tokens = static_cast<int64_t>(prompt.size()) + (pending_ ? 1 : 0);
  const auto t0 = Clock::now();
  WICK_ASSIGN_OR_RETURN(Logits logits, prefill_logits(prompt));
  res.prefill_ms = ms_since(t0);
  const auto t_decode = Clock::now();
  auto finish = [&](StopReason why, std::string message) {
    res.stop = why;
    res.stop_message = std::move(message);
  };
  while (true) {
    WICK_ASSIGN_OR_RETURN(int32_t tok, sample(sampler, logits));
    res.tokens.push_back(tok);
    if (res.tokens.size() == 1) res.time_to_first_token_ms = ms_since(t0);
    pending_ = tok;
    const bool go_on = on_token ? on_token(tok) : true;
    if (!config.ignore_eos && std::find(info_.eos_ids.begin(), info_.eos_ids.end(), tok) != info_.eos_ids.end()) {
      finish(StopReason::kEos, "stopped at end-of-sequence token " + std::to_string(tok));
      break;
    }
    if (!go_on || stop_requested_) {
      finish(StopReason::kCancelled, "stopped by the caller after " + std::to_string(res.tokens.size()) + " tokens");
      break;
    }
    if (config.max_new_tokens > 0 && static_cast<int64_t>(res.tokens.size()) >= config.max_new_tokens) {
      finish(StopReason::kMaxNewTokens, "stopped after max_new_tokens = " + std::to_string(config.max_new_tokens));
      break;
    }
    if (pos_ >= info_.max_context_len) {
      finish(StopReason::kContextFull, "stopped: the context of " + std::to_string(info_.max_context_len) +
                                           " tokens is full (call reset() or start a new chat)");
      break;
    }
    // Feed the token back: one forward call at the next position.
    const int32_t feed = tok;
    if (sig_.has_position) {
      WICK_ASSIGN_OR_RETURN(logits, forward(std::span<const int32_t>(&feed, 1), pos_));
      history_.push_back(feed);
    } else {
      history_.push_back(feed);
      WICK_ASSIGN_OR_RETURN(logits, forward(history_, 0));
    }
    ++pos_;
    pending_.reset();
  }
  res.decode_ms = ms_since(t_decode);
  res.position = pos_;
  if (res.prefill_ms > 0) res.prefill_tokens_per_s = 1000.0 * static_cast<double>(res.prompt_tokens) / res.prefill_ms;
  if (res.tokens.size() > 1 && res.decode_ms > 0)
    res.decode_tokens_per_s = 1000.0 * static_cast<double>(res.tokens.size() - 1) / res.decode_ms;
  return res;
}

}  // namespace wick::llm
