// Loading tokenizer.json and encoding/decoding with byte-level BPE, as Hugging Face's
// `tokenizers` does for the Llama 3 and Qwen2/Qwen3 files.
#include "llm/tokenizer.h"

#include <algorithm>
#include <climits>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "llm/chat_template.h"
#include "llm/tokenizer_pretokenize.h"
#include "llm/unicode.h"

namespace wick::llm {

using nlohmann::json;

struct AddedToken {
  std::string content;
  int32_t id;
  bool special, lstrip, rstrip, single_word, normalized;
};

struct TokenizerData {
  std::unordered_map<std::string, int32_t> vocab;  // byte-level strings -> id
  std::vector<std::string> id_to_token;            // byte-level strings (or added content)
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges;  // (left,right) -> (rank,id)
  bool ignore_merges = false;
  bool nfc = false;
  SplitPattern split;
  std::vector<AddedToken> added;  // longest content first, for leftmost-longest matching
  bool added_first_byte[256] = {};  // bytes an added token can start with: skips most positions
  std::vector<int8_t> added_kind;  // per id: 0 model token, 1 added, 2 special
  std::vector<int32_t> prefix_ids, suffix_ids;  // TemplateProcessing around sequence A
  std::string byte_to_char[256];                 // ByteLevel alphabet, UTF-8 encoded
  std::unordered_map<char32_t, uint8_t> char_to_byte;
  std::vector<std::string> token_bytes;  // per id, bytes after undoing ByteLevel
  std::optional<int32_t> bos;
  std::vector<int32_t> eos;
  std::unique_ptr<ChatTemplate> chat_template;
  std::string bos_token, eos_token;
};

namespace {

Status bad(const std::string& what) { return Status(ErrorCode::kInvalidArgument, "tokenizer: " + what); }

// Field readers that never throw (the Wasm build has no exceptions): a missing field or one
// of another JSON type reads as the default.
const json& member(const json& o, const char* key) {
  static const json null_value;
  if (!o.is_object()) return null_value;
  auto it = o.find(key);
  return it == o.end() ? null_value : *it;
}
std::string str_of(const json& o, const char* key, const std::string& def = "") {
  const json& v = member(o, key);
  return v.is_string() ? v.get<std::string>() : def;
}
bool bool_of(const json& o, const char* key, bool def) {
  const json& v = member(o, key);
  return v.is_boolean() ? v.get<bool>() : def;
}
int64_t int_of(const json& o, const char* key, int64_t def) {
  const json& v = member(o, key);
  return v.is_number_integer() ? v.get<int64_t>() : def;
}
const json& arr_of(const json& o, const char* key) {
  static const json empty = json::array();
  const json& v = member(o, key);
  return v.is_array() ? v : empty;
}

// GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100...
void build_byte_alphabet(TokenizerData& d) {
  int next = 256;
  for (int b = 0; b < 256; ++b) {
    bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    char32_t cp = printable ? b : next++;
    d.byte_to_char[b].clear();
    unicode::append_utf8(d.byte_to_char[b], cp);
    d.char_to_byte[cp] = static_cast<uint8_t>(b);
  }
}

std::string token_name(const json& v) {  // "<|x|>" or {"content": "<|x|>"}
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return "";
}

Status load_model(TokenizerData& d, const json& model) {
  if (!model.is_object()) return bad("\"model\" is missing or not an object");
  std::string type = str_of(model, "type");
  if (type != "BPE")
    return Status(ErrorCode::kNotSupported,
                  "tokenizer: model type '" + type + "' is not supported (only byte-level BPE)");
  if (bool_of(model, "byte_fallback", false))
    return Status(ErrorCode::kNotSupported, "tokenizer: BPE byte_fallback is not supported");
  if (!model.contains("vocab") || !model["vocab"].is_object()) return bad("model.vocab is missing");
  d.ignore_merges = bool_of(model, "ignore_merges", false);
  d.vocab.reserve(model["vocab"].size());
  for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() > INT32_MAX)
      return bad("model.vocab['" + it.key() + "'] is not a valid id");
    int32_t id = it.value().get<int32_t>();
    d.vocab.emplace(it.key(), id);
    if (static_cast<size_t>(id) >= d.id_to_token.size()) d.id_to_token.resize(id + 1);
    d.id_to_token[id] = it.key();
  }
  if (!model.contains("merges") || !model["merges"].is_array()) return bad("model.merges is missing");
  const json& merges = model["merges"];
  d.merges.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const json& m = merges[rank];
    std::string a, b;
    if (m.is_string()) {  // "a b" (older files, Llama 3)
      const std::string& s = m.get_ref<const std::string&>();
      size_t sp = s.find(' ', 1);
      if (sp == std::string::npos) return bad("merge " + std::to_string(rank) + " '" + s + "' has no space");
      a = s.substr(0, sp);
      b = s.substr(sp + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {  // ["a","b"]
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      return bad("merge " + std::to_string(rank) + " is neither \"a b\" nor [\"a\",\"b\"]");
    }
    auto ia = d.vocab.find(a), ib = d.vocab.find(b), iab = d.vocab.find(a + b);
    if (ia == d.vocab.end() || ib == d.vocab.end() || iab == d.vocab.end())
      return bad("merge " + std::to_string(rank) + " ('" + a + "', '" + b + "') uses a token not in the vocabulary");
    d.merges.emplace((static_cast<uint64_t>(ia->second) << 32) | static_cast<uint32_t>(ib->second),
                     std::make_pair(static_cast<int32_t>(rank), iab->second));
  }
  return Status::ok_status();
}

Status load_normalizer(TokenizerData& d, const json& n) {
  if (n.is_null()) return Status::ok_status();
  std::string type = str_of(n, "type");
  if (type == "NFC") {
    d.nfc = true;
    return Status::ok_status();
  }
  return Status(ErrorCode::kNotSupported, "tokenizer: normalizer '" + type + "' is not supported (only NFC or none)");
}

Status load_pre_tokenizer(TokenizerData& d, const json& p) {
  // Expected: Sequence[Split(regex, Isolated), ByteLevel(use_regex=false)].
  std::string type = str_of(p, "type");
  if (type != "Sequence" || !p.contains("pretokenizers") || !p["pretokenizers"].is_array() ||
      p["pretokenizers"].size() != 2)
    return Status(ErrorCode::kNotSupported,
                  "tokenizer: pre_tokenizer must be Sequence[Split, ByteLevel] (Llama 3 / Qwen2 style), got '" + type + "'");
  const json& split = p["pretokenizers"][0];
  const json& bl = p["pretokenizers"][1];
  if (str_of(split, "type") != "Split" || str_of(bl, "type") != "ByteLevel")
    return Status(ErrorCode::kNotSupported, "tokenizer: pre_tokenizer must be Sequence[Split, ByteLevel]");
  if (str_of(split, "behavior") != "Isolated" || bool_of(split, "invert", false))
    return Status(ErrorCode::kNotSupported, "tokenizer: Split behavior must be Isolated, not inverted");
  if (bool_of(bl, "add_prefix_space", false) || bool_of(bl, "use_regex", true))
    return Status(ErrorCode::kNotSupported, "tokenizer: ByteLevel pre-tokenizer with add_prefix_space or use_regex");
  std::string regex = str_of(member(split, "pattern"), "Regex");
  auto pattern = parse_split_pattern(regex);
  if (!pattern) return Status(ErrorCode::kNotSupported, "tokenizer: Split regex is not one of Llama 3's or Qwen's: " + regex);
  d.split = *pattern;
  return Status::ok_status();
}

Status load_post_processor(TokenizerData& d, const json& p) {
  if (p.is_null()) return Status::ok_status();
  std::string type = str_of(p, "type");
  if (type == "ByteLevel") return Status::ok_status();  // only adjusts offsets
  if (type == "Sequence") {
    for (const json& q : arr_of(p, "processors")) WICK_RETURN_IF_ERROR(load_post_processor(d, q));
    return Status::ok_status();
  }
  if (type != "TemplateProcessing")
    return Status(ErrorCode::kNotSupported, "tokenizer: post_processor '" + type + "' is not supported");
  bool seen_a = false;
  for (const json& item : arr_of(p, "single")) {
    if (!member(item, "Sequence").is_null()) {
      seen_a = true;
      continue;
    }
    if (!member(item, "SpecialToken").is_object()) return bad("TemplateProcessing item is neither Sequence nor SpecialToken");
    std::string name = str_of(member(item, "SpecialToken"), "id");
    const json& st = member(p, "special_tokens");
    if (!member(st, name.c_str()).is_object()) return bad("TemplateProcessing names '" + name + "' but special_tokens lacks it");
    for (const json& id : arr_of(member(st, name.c_str()), "ids")) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX)
        return bad("TemplateProcessing special token '" + name + "' has an invalid id");
      (seen_a ? d.suffix_ids : d.prefix_ids).push_back(id.get<int32_t>());
    }
  }
  return Status::ok_status();
}

Status load_added(TokenizerData& d, const json& added) {
  if (!added.is_array()) return Status::ok_status();
  for (const json& a : added) {
    AddedToken t{str_of(a, "content"), static_cast<int32_t>(std::clamp<int64_t>(int_of(a, "id", -1), -1, INT32_MAX)), bool_of(a, "special", false), bool_of(a, "lstrip", false),
                 bool_of(a, "rstrip", false), bool_of(a, "single_word", false), bool_of(a, "normalized", false)};
    if (t.content.empty() || t.id < 0) return bad("an added token has no content or id");
    if (t.normalized && d.nfc && unicode::nfc(t.content) != t.content)
      return Status(ErrorCode::kNotSupported, "tokenizer: normalized added token '" + t.content + "' changes under NFC");
    if (static_cast<size_t>(t.id) >= d.id_to_token.size()) d.id_to_token.resize(t.id + 1);
    d.id_to_token[t.id] = t.content;
    d.added.push_back(std::move(t));
  }
  for (const AddedToken& t : d.added) d.added_first_byte[static_cast<unsigned char>(t.content[0])] = true;
  std::stable_sort(d.added.begin(), d.added.end(),
                   [](const AddedToken& x, const AddedToken& y) { return x.content.size() > y.content.size(); });
  return Status::ok_status();
}

void finish(TokenizerData& d) {
  d.added_kind.assign(d.id_to_token.size(), 0);
  for (const AddedToken& t : d.added) d.added_kind[t.id] = t.special ? 2 : 1;
  d.token_bytes.resize(d.id_to_token.size());
  for (size_t id = 0; id < d.id_to_token.size(); ++id) {
    const std::string& s = d.id_to_token[id];
    if (d.added_kind[id]) {
      d.token_bytes[id] = s;
      continue;
    }
    std::string bytes;
    for (size_t i = 0; i < s.size();) {
      size_t len;
      char32_t cp = unicode::decode_utf8(s, i, &len);
      auto it = d.char_to_byte.find(cp);
      if (it != d.char_to_byte.end()) bytes.push_back(static_cast<char>(it->second));
      else bytes.append(s, i, len);  // not in the ByteLevel alphabet: kept as is
      i += len;
    }
    d.token_bytes[id] = std::move(bytes);
  }
}

std::optional<int32_t> lookup(const TokenizerData& d, const std::string& s) {
  for (const AddedToken& t : d.added)
    if (t.content == s) return t.id;
  auto it = d.vocab.find(s);
  if (it != d.vocab.end()) return it->second;
  return std::nullopt;
}

Status load_config(TokenizerData& d, std::string_view text) {
  json c = json::parse(text.begin(), text.end(), nullptr, false);
  if (c.is_discarded() || !c.is_object()) return bad("tokenizer_config.json is not a valid JSON object");
  d.bos_token = c.contains("bos_token") ? token_name(c["bos_token"]) : "";
  d.eos_token = c.contains("eos_token") ? token_name(c["eos_token"]) : "";
  if (!d.bos_token.empty()) d.bos = lookup(d, d.bos_token);
  if (!d.eos_token.empty()) {
    auto id = lookup(d, d.eos_token);
    if (!id) return bad("tokenizer_config.json eos_token '" + d.eos_token + "' is not a token");
    d.eos.push_back(*id);
  }
  if (c.contains("chat_template")) {
    const json& t = c["chat_template"];
    std::string src;
    if (t.is_string()) src = t.get<std::string>();
    else if (t.is_array())  // [{"name": "default", "template": ...}, ...]
      for (const json& e : t)
        if (str_of(e, "name") == "default") src = str_of(e, "template");
    if (!src.empty()) {
      auto tpl = ChatTemplate::parse(src);
      if (!tpl.ok()) return tpl.status().with_context("tokenizer_config.json chat_template");
      d.chat_template = std::make_unique<ChatTemplate>(std::move(tpl).value());
    }
  }
  return Status::ok_status();
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status(ErrorCode::kNotFound, "tokenizer: cannot open '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool is_dir_like(const std::string& path) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) return false;
  std::ifstream probe(path + "/tokenizer.json");
  return static_cast<bool>(probe);
}

}  // namespace

Result<Tokenizer> Tokenizer::from_json(std::string_view tokenizer_json, std::string_view tokenizer_config_json) {
  auto d = std::make_shared<TokenizerData>();
  build_byte_alphabet(*d);
  json j = json::parse(tokenizer_json.begin(), tokenizer_json.end(), nullptr, false);
  if (j.is_discarded()) return bad("tokenizer.json is not valid JSON (truncated or corrupt)");
  if (!j.is_object()) return bad("tokenizer.json is not a JSON object");
  {
    WICK_RETURN_IF_ERROR(load_model(*d, member(j, "model")));
    WICK_RETURN_IF_ERROR(load_normalizer(*d, member(j, "normalizer")));
    WICK_RETURN_IF_ERROR(load_pre_tokenizer(*d, member(j, "pre_tokenizer")));
    WICK_RETURN_IF_ERROR(load_post_processor(*d, member(j, "post_processor")));
    std::string dec = str_of(member(j, "decoder"), "type");
    if (dec != "ByteLevel")
      return Status(ErrorCode::kNotSupported, "tokenizer: decoder '" + dec + "' is not supported (only ByteLevel)");
    WICK_RETURN_IF_ERROR(load_added(*d, member(j, "added_tokens")));
    finish(*d);
    if (!tokenizer_config_json.empty()) WICK_RETURN_IF_ERROR(load_config(*d, tokenizer_config_json));
  }
  if (!d->bos && !d->prefix_ids.empty()) d->bos = d->prefix_ids.front();
  // Known end-of-turn / end-of-text tokens of these families stop generation too.
  for (const char* name : {"<|eot_id|>", "<|end_of_text|>", "<|eom_id|>", "<|im_end|>", "<|endoftext|>"}) {
    auto id = lookup(*d, name);
    if (id && std::find(d->eos.begin(), d->eos.end(), *id) == d->eos.end()) d->eos.push_back(*id);
  }
  Tokenizer t;
  t.data_ = std::move(d);
  return t;
}

Result<Tokenizer> Tokenizer::load(const std::string& tokenizer_json_path, const std::string& tokenizer_config_path) {
  std::string json_path = tokenizer_json_path, config_path = tokenizer_config_path;
  if (is_dir_like(tokenizer_json_path)) {
    json_path = tokenizer_json_path + "/tokenizer.json";
    if (config_path.empty() && std::ifstream(tokenizer_json_path + "/tokenizer_config.json"))
      config_path = tokenizer_json_path + "/tokenizer_config.json";
  }
  WICK_ASSIGN_OR_RETURN(std::string text, read_file(json_path));
  std::string config;
  if (!config_path.empty()) {
    WICK_ASSIGN_OR_RETURN(config, read_file(config_path));
  }
  auto t = from_json(text, config);
  if (!t.ok()) return t.status().with_context(json_path);
  return t;
}

namespace {

// BPE on one pre-token (already in the ByteLevel alphabet): lowest-rank merge first.
Status bpe(const TokenizerData& d, const std::string& word, std::vector<int32_t>& out) {
  if (d.ignore_merges) {
    auto it = d.vocab.find(word);
    if (it != d.vocab.end()) {
      out.push_back(it->second);
      return Status::ok_status();
    }
  }
  std::vector<int32_t> sym;
  for (size_t i = 0; i < word.size();) {
    size_t len;
    unicode::decode_utf8(word, i, &len);
    auto it = d.vocab.find(word.substr(i, len));
    if (it == d.vocab.end())  // a complete byte-level vocabulary has all 256 byte characters
      return bad("the vocabulary lacks the byte-level character '" + word.substr(i, len) + "'");
    sym.push_back(it->second);
    i += len;
  }
  while (sym.size() > 1) {
    int32_t best_rank = INT32_MAX, best_id = -1;
    size_t best_pos = 0;
    for (size_t i = 0; i + 1 < sym.size(); ++i) {
      auto it = d.merges.find((static_cast<uint64_t>(sym[i]) << 32) | static_cast<uint32_t>(sym[i + 1]));
      if (it != d.merges.end() && it->second.first < best_rank) {
        best_rank = it->second.first;
        best_id = it->second.second;
        best_pos = i;
      }
    }
    if (best_id < 0) break;
    sym[best_pos] = best_id;
    sym.erase(sym.begin() + best_pos + 1);
  }
  out.insert(out.end(), sym.begin(), sym.end());
  return Status::ok_status();
}

Status encode_plain(const TokenizerData& d, std::string_view text, std::vector<int32_t>& out) {
  if (text.empty()) return Status::ok_status();
  std::string normalized = d.nfc ? unicode::nfc(text) : std::string(text);
  for (std::string_view piece : pretokenize(normalized, d.split)) {
    std::string word;
    for (unsigned char b : piece) word += d.byte_to_char[b];
    WICK_RETURN_IF_ERROR(bpe(d, word, out));
  }
  return Status::ok_status();
}

bool is_word_char(char32_t c) { return unicode::is_letter(c) || unicode::is_number(c) || c == '_'; }

}  // namespace

Result<std::vector<int32_t>> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  const TokenizerData& d = *data_;
  if (!unicode::is_valid_utf8(text)) return bad("encode: the text is not valid UTF-8");
  std::vector<int32_t> ids;
  if (add_special_tokens) ids = d.prefix_ids;
  // Added tokens are split out first (leftmost, then longest), the rest goes through BPE.
  size_t start = 0, pos = 0;
  while (pos < text.size()) {
    const AddedToken* hit = nullptr;
    if (!d.added_first_byte[static_cast<unsigned char>(text[pos])]) {
      ++pos;
      continue;
    }
    for (const AddedToken& t : d.added) {
      if (text.compare(pos, t.content.size(), t.content) != 0) continue;
      if (t.single_word) {
        size_t len;
        bool before = pos > 0 && is_word_char(unicode::decode_utf8(text, pos - 1, &len));
        size_t e = pos + t.content.size();
        bool after = e < text.size() && is_word_char(unicode::decode_utf8(text, e, &len));
        if (before || after) continue;
      }
      hit = &t;
      break;
    }
    if (!hit) {
      ++pos;
      continue;
    }
    size_t seg_end = pos, next = pos + hit->content.size();
    if (hit->lstrip)
      while (seg_end > start && unicode::is_whitespace(static_cast<unsigned char>(text[seg_end - 1]))) --seg_end;
    if (hit->rstrip)
      while (next < text.size() && unicode::is_whitespace(static_cast<unsigned char>(text[next]))) ++next;
    WICK_RETURN_IF_ERROR(encode_plain(d, text.substr(start, seg_end - start), ids));
    ids.push_back(hit->id);
    start = pos = next;
  }
  WICK_RETURN_IF_ERROR(encode_plain(d, text.substr(start), ids));
  if (add_special_tokens) ids.insert(ids.end(), d.suffix_ids.begin(), d.suffix_ids.end());
  return ids;
}

Result<std::string> Tokenizer::token_bytes(int32_t id) const {
  const TokenizerData& d = *data_;
  if (id < 0 || static_cast<size_t>(id) >= d.token_bytes.size() ||
      (d.token_bytes[id].empty() && d.id_to_token[id].empty()))
    return bad("token id " + std::to_string(id) + " is not in the vocabulary (size " + std::to_string(vocab_size()) + ")");
  return d.token_bytes[id];
}

namespace {
// As Rust's String::from_utf8_lossy: each maximal invalid subpart becomes one U+FFFD.
std::string utf8_lossy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t len;
    char32_t cp = unicode::decode_utf8(s, i, &len);
    if (cp != 0xFFFD || s.compare(i, 3, "\xEF\xBF\xBD") == 0) {
      out.append(s, i, len);
      i += len;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t need = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 1;
    size_t j = i + 1;
    for (size_t k = 1; k < need && j < s.size(); ++k, ++j) {
      unsigned char cc = static_cast<unsigned char>(s[j]);
      unsigned char lo = 0x80, hi = 0xBF;
      if (k == 1 && c == 0xE0) lo = 0xA0;
      if (k == 1 && c == 0xED) hi = 0x9F;
      if (k == 1 && c == 0xF0) lo = 0x90;
      if (k == 1 && c == 0xF4) hi = 0x8F;
      if (cc < lo || cc > hi) break;
    }
    out += "\xEF\xBF\xBD";
    i = j;
  }
  return out;
}
}  // namespace

Result<std::string> Tokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  std::string bytes;
  for (int32_t id : ids) {
    WICK_ASSIGN_OR_RETURN(std::string b, token_bytes(id));
    if (skip_special_tokens && is_special(id)) continue;
    bytes += b;
  }
  return utf8_lossy(bytes);
}

std::vector<int32_t> Tokenizer::eos_ids() const { return data_->eos; }
std::optional<int32_t> Tokenizer::bos_id() const { return data_->bos; }
size_t Tokenizer::vocab_size() const { return data_->id_to_token.size(); }
std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  return lookup(*data_, std::string(token));
}
bool Tokenizer::is_special(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < data_->added_kind.size() && data_->added_kind[id] == 2;
}
bool Tokenizer::has_chat_template() const { return data_->chat_template != nullptr; }

Result<std::string> Tokenizer::apply_chat_template(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                                                   bool enable_thinking) const {
  const TokenizerData& d = *data_;
  if (!d.chat_template) return Status(ErrorCode::kNotFound, "tokenizer: tokenizer_config.json has no chat_template");
  return d.chat_template->render(messages, add_generation_prompt, enable_thinking, d.bos_token, d.eos_token);
}

StreamDecoder::StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens)
    : tokenizer_(&tokenizer), skip_special_(skip_special_tokens) {}

std::string StreamDecoder::push(int32_t id) {
  auto b = tokenizer_->token_bytes(id);
  if (!b.ok() || (skip_special_ && tokenizer_->is_special(id))) return "";
  pending_ += *b;
  size_t n = unicode::complete_utf8_prefix(pending_);
  std::string out = utf8_lossy(std::string_view(pending_).substr(0, n));
  pending_.erase(0, n);
  return out;
}

std::string StreamDecoder::flush() {
  std::string out = utf8_lossy(pending_);
  pending_.clear();
  return out;
}

}  // namespace wick::llm
