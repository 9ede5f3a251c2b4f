// core/utf8.h and core/json_text.h: invalid UTF-8 from a file is escaped, never thrown on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/json_text.h"
#include "core/utf8.h"

namespace wick {
namespace {

TEST(Utf8, ValidTextIsKeptAndInvalidBytesAreEscaped) {
  EXPECT_TRUE(is_valid_utf8("forward"));
  EXPECT_TRUE(is_valid_utf8("gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBD"));  // ü ß € 😀 U+FFFD
  EXPECT_EQ(escape_invalid_utf8("gr\xC3\xBC\xC3\x9F"), "gr\xC3\xBC\xC3\x9F");
  struct Case {
    std::string in, out;
  };
  for (const Case& c : {
           Case{"for\xFF" "ard", "for\\xFFard"},
           Case{"\x80", "\\x80"},                             // a lone continuation byte
           Case{"\xC3", "\\xC3"},                             // a sequence cut short at the end
           Case{"\xC3(", "\\xC3("},                           // ... or by a non-continuation
           Case{"\xC0\xAF", "\\xC0\\xAF"},                    // overlong '/'
           Case{"\xED\xA0\x80", "\\xED\\xA0\\x80"},           // a UTF-16 surrogate, U+D800
           Case{"\xF4\x90\x80\x80", "\\xF4\\x90\\x80\\x80"},  // past U+10FFFF
           Case{"\xF5", "\\xF5"},
           Case{std::string("a\0b", 3), std::string("a\0b", 3)},  // NUL is valid UTF-8
       }) {
    EXPECT_EQ(is_valid_utf8(c.in), c.in == c.out) << c.out;
    EXPECT_EQ(escape_invalid_utf8(c.in), c.out);
    EXPECT_TRUE(is_valid_utf8(escape_invalid_utf8(c.in))) << c.out;
  }
}

// nlohmann's dump() throws type_error.316 on any of these; json_text never does, in keys
// or values at any depth, and what it writes parses back with the bytes escaped.
TEST(Utf8, JsonTextEscapesKeysAndValuesAtAnyDepth) {
  nlohmann::json doc = {{"methods", {{{"name", "for\xFF" "ard"}, {"ops", {"ok", "bad\xC3"}}}}},
                        {"key\xFE", 1},
                        {"n", 2.5}};
  EXPECT_THROW((void)doc.dump(), nlohmann::json::type_error);
  std::string text;
  ASSERT_NO_THROW(text = json_text(doc));
  nlohmann::json back = nlohmann::json::parse(text);
  EXPECT_EQ(back["methods"][0]["name"], "for\\xFFard");
  EXPECT_EQ(back["methods"][0]["ops"], nlohmann::json::array({"ok", "bad\\xC3"}));
  EXPECT_EQ(back["key\\xFE"], 1);
  EXPECT_EQ(back["n"], 2.5);
  // Valid documents come out as dump() writes them, indented or not.
  nlohmann::json good = {{"a", {1, 2}}, {"b", "\xC3\xBC"}};
  EXPECT_EQ(json_text(good), good.dump());
  EXPECT_EQ(json_text(good, 2), good.dump(2));
}

}  // namespace
}  // namespace wick
