// llm::Runner on the LLM fixtures, on the WebGPU delegate (SwiftShader in CI):
// greedy generation gives the tokens that plain step-by-step Method::forward calls with
// argmax give; prefill logits match the fixtures' PyTorch references; chunked prefill,
// multi-turn, EOS, cancel and the context limit behave; bad prompts are clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "llm/runner.h"
#include "runtime/program.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick::llm {
namespace {

struct LlmFixture {
  const char* rel;
  int64_t context;  // the model's max_context_len (manifest llm.model_args / notes)
  bool dynamic;     // tokens [1, S]: the reference prefills in one call
};

const LlmFixture kFixtures[] = {
    {"demos/qwen3_tiny_kv", 64, true},
    {"demos/llama_q4gsw_kv", 32, false},
    {"models/llama_et_kv_sdpa", 32, false},
};

void require_backend() {
  Status s = webgpu::register_webgpu_backend();
  ASSERT_TRUE(s.ok()) << "no WebGPU device: " << s.to_string();
}

std::string pte(const char* rel) { return test::fixtures_dir() + "/" + rel + "/model.pte"; }

std::shared_ptr<Program> load(const char* rel) {
  auto p = Program::load_file(pte(rel));
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return p.ok() ? *p : nullptr;
}

Value ids(std::vector<int64_t> v) {
  Tensor t = Tensor::make_owned(ScalarType::kLong, {1, static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data_as<int64_t>());
  return Value::make_tensor(std::move(t));
}
Value position(int64_t p) {
  Tensor t = Tensor::make_owned(ScalarType::kLong, {1});
  *t.data_as<int64_t>() = p;
  return Value::make_tensor(std::move(t));
}

// argmax of the last row; with `penalty` != 1, after Hugging Face's repetition penalty
// over `seen` (each seen token once: positive logits divided, negative multiplied).
int32_t argmax_of(const Value& logits, const std::vector<int32_t>& seen = {}, float penalty = 1.0f) {
  const Tensor& t = logits.tensor;
  const int64_t vocab = t.sizes.back();
  const float* last = t.data_as<float>() + (t.numel() - vocab);
  std::vector<float> row(last, last + vocab);
  std::vector<int32_t> uniq = seen;
  std::sort(uniq.begin(), uniq.end());
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  if (penalty != 1.0f)
    for (int32_t id : uniq) row[id] = row[id] > 0 ? row[id] / penalty : row[id] * penalty;
  return static_cast<int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

// The reference, independent of the runner: plain forward calls on a freshly loaded
// method, the prompt in one call (dynamic) or one token per call, then argmax feedback.
std::vector<int32_t> greedy_reference(const LlmFixture& f, const std::vector<int32_t>& prompt, int n,
                                      float penalty = 1.0f) {
  auto program = load(f.rel);
  auto method = program->load_method("forward");
  EXPECT_TRUE(method.ok()) << method.status().to_string();
  int64_t pos = 0;
  Value logits;
  if (f.dynamic) {
    auto out = (*method)->forward({ids({prompt.begin(), prompt.end()}), position(0)});
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    logits = (*out)[0];
    pos = static_cast<int64_t>(prompt.size());
  } else {
    for (int32_t t : prompt) {
      auto out = (*method)->forward({ids({t}), position(pos++)});
      EXPECT_TRUE(out.ok()) << out.status().to_string();
      logits = (*out)[0];
    }
  }
  std::vector<int32_t> got, seen = prompt;
  for (int i = 0; i < n; ++i) {
    got.push_back(argmax_of(logits, seen, penalty));
    seen.push_back(got.back());
    if (i + 1 == n) break;
    auto out = (*method)->forward({ids({got.back()}), position(pos++)});
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    logits = (*out)[0];
  }
  return got;
}

std::unique_ptr<Runner> make_runner(const LlmFixture& f, RunnerOptions o = {}) {
  auto program = load(f.rel);
  if (!o.max_context_len) o.max_context_len = f.context;
  auto r = Runner::load(*program, o);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : nullptr;
}

GenerationConfig greedy(int64_t n) {
  GenerationConfig c;
  c.max_new_tokens = n;
  return c;
}

const std::vector<int32_t> kPrompt = {17, 301, 42, 5, 99};

class RunnerFixture : public ::testing::TestWithParam<LlmFixture> {};

TEST_P(RunnerFixture, GreedyMatchesStepByStepArgmax) {
  require_backend();
  const LlmFixture& f = GetParam();
  std::vector<int32_t> want = greedy_reference(f, kPrompt, 4);
  auto runner = make_runner(f);
  ASSERT_TRUE(runner);
  EXPECT_EQ(runner->info().prefill_chunk, f.dynamic ? 63 : 1);
  auto r = runner->generate(kPrompt, greedy(4));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->tokens, want) << f.rel;
  // Greedy without a penalty reads back the argmax only, computed on the GPU.
  EXPECT_TRUE(runner->top_k_on_device()) << f.rel;
  EXPECT_EQ(r->stop, StopReason::kMaxNewTokens);
  EXPECT_EQ(r->prompt_tokens, 5);
  EXPECT_EQ(runner->position(), 5 + 3);  // the 4th token is sampled, not yet fed
  EXPECT_GT(r->prefill_tokens_per_s, 0);
  EXPECT_GT(r->decode_tokens_per_s, 0);
  EXPECT_GT(r->time_to_first_token_ms, 0);
}

// The runner's prefill, fed each fixture step's tokens in order on one method, gives
// the PyTorch reference logits of every step.
TEST_P(RunnerFixture, PrefillLogitsMatchThePyTorchReference) {
  require_backend();
  const LlmFixture& f = GetParam();
  test::Fixture fx;
  ASSERT_TRUE(test::load_fixture(f.rel, &fx));
  auto runner = make_runner(f);
  ASSERT_TRUE(runner);
  for (size_t c = 0; c < fx.cases.size(); ++c) {
    const Tensor& tok = fx.cases[c].inputs[0].tensor;
    std::vector<int32_t> step(tok.data_as<int64_t>(), tok.data_as<int64_t>() + tok.numel());
    EXPECT_EQ(runner->position(), *fx.cases[c].inputs[1].tensor.data_as<int64_t>());
    auto logits = runner->prefill(step);
    ASSERT_TRUE(logits.ok()) << logits.status().to_string();
    Tensor got = Tensor::make_owned(ScalarType::kFloat, fx.cases[c].outputs[0].tensor.sizes);
    ASSERT_EQ(got.numel(), static_cast<int64_t>(logits->size()));
    std::copy(logits->begin(), logits->end(), got.data_as<float>());
    EXPECT_TRUE(test::values_close(Value::make_tensor(got), fx.cases[c].outputs[0], fx.atol, fx.rtol)) << f.rel << " step " << c;
  }
}

TEST_P(RunnerFixture, ContextLimitStopsAndLongOrEmptyPromptsAreErrors) {
  require_backend();
  RunnerOptions o;
  o.max_context_len = 7;
  auto runner = make_runner(GetParam(), o);
  ASSERT_TRUE(runner);
  auto r = runner->generate(kPrompt, greedy(-1));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->stop, StopReason::kContextFull);
  EXPECT_EQ(r->tokens.size(), 3u);  // positions 5 and 6 fed, then one more sampled
  EXPECT_NE(r->stop_message.find("context of 7 tokens is full"), std::string::npos) << r->stop_message;
  // The conversation is full: even one more token does not fit.
  auto more = runner->generate(std::vector<int32_t>{1}, greedy(1));
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.status().message().find("does not fit in the context"), std::string::npos) << more.status().message();

  runner->reset();
  std::vector<int32_t> eight(8, 3);
  auto too_long = runner->generate(eight, greedy(1));
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(too_long.status().message().find("prompt of 8 tokens does not fit in the context: 7 tokens"), std::string::npos)
      << too_long.status().message();
  auto empty = runner->generate(std::vector<int32_t>{}, greedy(1));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty prompt"), std::string::npos) << empty.status().message();
  auto outside = runner->generate(std::vector<int32_t>{512}, greedy(1));
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("outside the vocabulary (0..511)"), std::string::npos) << outside.status().message();
  // After the errors the runner still works from position 0.
  EXPECT_EQ(runner->position(), 0);
  auto ok = runner->generate(kPrompt, greedy(1));
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
}

INSTANTIATE_TEST_SUITE_P(All, RunnerFixture, ::testing::ValuesIn(kFixtures),
                         [](const auto& info) { return test::param_name(info.param.rel); });

const LlmFixture& qwen3() { return kFixtures[0]; }

TEST(Runner, ChunkedPrefillGivesTheSameTokens) {
  require_backend();
  auto whole = make_runner(qwen3());
  RunnerOptions o;
  o.prefill_chunk = 2;  // 5 prompt tokens as 2 + 2 + 1
  auto chunked = make_runner(qwen3(), o);
  ASSERT_TRUE(whole && chunked);
  EXPECT_EQ(chunked->info().prefill_chunk, 2);
  auto a = whole->generate(kPrompt, greedy(4));
  auto b = chunked->generate(kPrompt, greedy(4));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->tokens, b->tokens);
}

// A second generate() prefills only its new tokens (after the pending last token) and
// continues the conversation exactly as one long prompt would.
TEST(Runner, MultiTurnContinuesTheConversation) {
  require_backend();
  auto runner = make_runner(qwen3());
  ASSERT_TRUE(runner);
  // A repetition penalty keeps the tokens varied (see GreedyWithRepetitionPenalty...).
  GenerationConfig two = greedy(2), three = greedy(3);
  two.sampler.repetition_penalty = three.sampler.repetition_penalty = 5.0f;
  auto t1 = runner->generate(kPrompt, two);
  ASSERT_TRUE(t1.ok());
  const std::vector<int32_t> turn2 = {256, 7, 480};
  auto t2 = runner->generate(turn2, three);
  ASSERT_TRUE(t2.ok()) << t2.status().to_string();
  EXPECT_EQ(t2->prompt_tokens, 1 + 3);  // the pending token, then the new ones
  std::vector<int32_t> all = kPrompt;
  all.insert(all.end(), t1->tokens.begin(), t1->tokens.end());
  all.insert(all.end(), turn2.begin(), turn2.end());
  EXPECT_EQ(t2->tokens, greedy_reference(qwen3(), all, 3, 5.0f));
  runner->reset();
  EXPECT_EQ(runner->position(), 0);
  auto again = runner->generate(kPrompt, two);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->tokens, t1->tokens);
}

// The tiny Qwen3's random tied embeddings make plain greedy echo the last token; a
// strong repetition penalty makes every step pick a new one, so this compares a
// sequence whose every token depends on the KV cache.
TEST(Runner, GreedyWithRepetitionPenaltyMatchesTheReference) {
  require_backend();
  std::vector<int32_t> want = greedy_reference(qwen3(), kPrompt, 5, 5.0f);
  EXPECT_NE(want[0], want[1]);
  auto runner = make_runner(qwen3());
  ASSERT_TRUE(runner);
  GenerationConfig cfg = greedy(5);
  cfg.sampler.repetition_penalty = 5.0f;
  auto r = runner->generate(kPrompt, cfg);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->tokens, want);
}

TEST(Runner, EosAndCancelStop) {
  require_backend();
  std::vector<int32_t> want = greedy_reference(kFixtures[1], kPrompt, 3);
  RunnerOptions o;
  o.eos_ids = {want[1]};
  auto runner = make_runner(kFixtures[1], o);
  ASSERT_TRUE(runner);
  auto r = runner->generate(kPrompt, greedy(10));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stop, StopReason::kEos);
  EXPECT_EQ(r->tokens, std::vector<int32_t>(want.begin(), want.begin() + 2));
  EXPECT_NE(r->stop_message.find("end-of-sequence token " + std::to_string(want[1])), std::string::npos) << r->stop_message;

  runner->reset();
  GenerationConfig ignore = greedy(3);
  ignore.ignore_eos = true;
  auto all = runner->generate(kPrompt, ignore);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->tokens, want);

  runner->reset();
  int calls = 0;
  auto c = runner->generate(kPrompt, greedy(10), [&](int32_t) { return ++calls < 1; });
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->stop, StopReason::kCancelled);
  EXPECT_EQ(c->tokens.size(), 1u);
}

TEST(Runner, SeededSamplingIsReproducible) {
  require_backend();
  GenerationConfig cfg = greedy(4);
  cfg.sampler.temperature = 1.0f;
  cfg.sampler.top_p = 0.9f;
  cfg.sampler.seed = 5;
  auto a = make_runner(qwen3());
  auto b = make_runner(qwen3());
  ASSERT_TRUE(a && b);
  auto ra = a->generate(kPrompt, cfg);
  auto rb = b->generate(kPrompt, cfg);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(ra->tokens, rb->tokens);
}

TEST(Runner, UnknownContextLengthIsAClearError) {
  auto program = load(qwen3().rel);
  auto r = Runner::load(*program, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("max_context_len"), std::string::npos) << r.status().message();
}

// A program without KV cache and a static [1, 8] (models/llama_hf_tiny): the runner
// re-feeds the whole sequence padded at the end and reads row n-1, which a causal model
// computes from the first n tokens only; rows 3 and 7 of PyTorch's logits prove it.
TEST(Runner, NoKvCacheProgramPadsAndReadsTheRightRow) {
  require_backend();
  test::Fixture fx;
  ASSERT_TRUE(test::load_fixture("models/llama_hf_tiny", &fx));
  const Tensor& in = fx.cases[0].inputs[0].tensor;
  const Tensor& ref = fx.cases[0].outputs[0].tensor;  // [1, 8, 512]
  std::vector<int32_t> tokens(in.data_as<int64_t>(), in.data_as<int64_t>() + 8);
  auto program = load("models/llama_hf_tiny");
  auto runner = Runner::load(*program, {});
  ASSERT_TRUE(runner.ok()) << runner.status().to_string();
  EXPECT_FALSE((*runner)->info().use_kv_cache);
  EXPECT_EQ((*runner)->info().max_context_len, 8);
  for (int n : {4, 8}) {
    (*runner)->reset();
    auto logits = (*runner)->prefill(std::span<const int32_t>(tokens).first(n));
    ASSERT_TRUE(logits.ok()) << logits.status().to_string();
    ASSERT_EQ(logits->size(), 512u);
    const float* want = ref.data_as<float>() + (n - 1) * 512;
    for (size_t i = 0; i < 512; ++i)
      ASSERT_NEAR((*logits)[i], want[i], fx.atol + fx.rtol * std::abs(want[i])) << "n " << n << " logit " << i;
  }
  (*runner)->reset();
  auto r = (*runner)->generate(std::span<const int32_t>(tokens).first(5), greedy(-1));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->stop, StopReason::kContextFull);
  EXPECT_EQ(r->tokens.size(), 4u);  // positions 5, 6, 7 fed, then one more sampled
}

// ExecuTorch's Qualcomm sample has the getter methods (its forward needs QnnBackend).
TEST(LlmMetadata, ReadsTheGetterMethodsOfARealProgram) {
  auto p = Program::load_file(test::fixtures_dir() + "/samples/stories260k_qnn.pte");
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  auto g = read_llm_getters(**p);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  EXPECT_EQ(g->max_seq_len, 128);
  ASSERT_TRUE(g->max_context_len.has_value());
  ASSERT_TRUE(g->use_kv_cache.has_value());
  EXPECT_TRUE(*g->use_kv_cache);
  EXPECT_EQ(g->vocab_size, 512);
  EXPECT_EQ(g->eos_ids.size(), 1u);
  auto sig = read_forward_signature(**p, "kv_forward");
  ASSERT_FALSE(sig.ok());
  EXPECT_NE(sig.status().message().find("13 inputs"), std::string::npos) << sig.status().message();
}

}  // namespace
}  // namespace wick::llm
