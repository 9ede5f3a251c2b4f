// A small Jinja interpreter for chat templates: text, {{ }}, {% if/elif/else %},
// {% for %} (with loop.*), {% set %} (names and namespace attributes), {# #}, the
// whitespace controls, and transformers' trim_blocks + lstrip_blocks. Expressions: literals,
// lists, names, .attr, [index], [a:b:c], calls of namespace()/raise_exception() and string
// methods, filters, `is` tests, arithmetic, ~, comparisons, in, and/or/not, `x if c else y`.
// No exceptions (the Wasm build has none): the first error sticks in `err` and unwinds.
#include "llm/chat_template.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <variant>

#include "llm/tokenizer.h"

namespace wick::llm {

struct Value;
using List = std::vector<Value>;
using Dict = std::map<std::string, Value>;
struct Undefined {};
struct None {};
struct Value {
  std::variant<Undefined, None, bool, int64_t, std::string, std::shared_ptr<List>, std::shared_ptr<Dict>> v;
  bool is_undefined() const { return v.index() == 0; }
  bool is_none() const { return v.index() == 1; }
  const bool* as_bool() const { return std::get_if<bool>(&v); }
  const int64_t* as_int() const { return std::get_if<int64_t>(&v); }
  const std::string* as_str() const { return std::get_if<std::string>(&v); }
  List* as_list() const {
    auto p = std::get_if<std::shared_ptr<List>>(&v);
    return p ? p->get() : nullptr;
  }
  Dict* as_dict() const {
    auto p = std::get_if<std::shared_ptr<Dict>>(&v);
    return p ? p->get() : nullptr;
  }
};
Value str_value(std::string s) { return Value{std::move(s)}; }
Value list_value(List l) { return Value{std::make_shared<List>(std::move(l))}; }
Value dict_value(Dict d) { return Value{std::make_shared<Dict>(std::move(d))}; }

// Expression and statement trees.
struct Expr {
  enum Kind { kLiteral, kName, kList, kAttr, kIndex, kSlice, kCall, kFilter, kTest, kUnary, kBinary, kCond } kind;
  std::string name;  // name, attribute, filter/test/operator
  Value literal;
  std::vector<std::unique_ptr<Expr>> args;                            // operands / call args (may be null in slices)
  std::vector<std::pair<std::string, std::unique_ptr<Expr>>> kwargs;  // call keyword args
  bool negate = false;                                                // `is not`
};
struct JinjaNode {
  enum Kind { kText, kOutput, kIf, kFor, kSet, kBlock } kind;
  std::string text;                                 // kText; kSet: target name; kFor: loop var
  std::string attr;                                 // kSet: namespace attribute (ns.attr = ...)
  std::unique_ptr<Expr> expr;                       // output / set value / for iterable
  std::vector<std::pair<std::unique_ptr<Expr>, std::unique_ptr<JinjaNode>>> branches;  // kIf (null cond = else)
  std::vector<std::unique_ptr<JinjaNode>> children;  // kBlock, kFor body
};

namespace {

Status syntax(const std::string& what, size_t pos) {
  return Status(ErrorCode::kInvalidArgument, "chat template: " + what + " at offset " + std::to_string(pos));
}

// ---- lexing: split the source into text, {{ expr }} and {% stmt %} pieces ----
struct Piece {
  enum Kind { kText, kExpr, kStmt } kind;
  std::string body;
  size_t pos;
};

Status split_pieces(const std::string& s, std::vector<Piece>& out) {
  size_t i = 0;
  bool trim_next = false;  // a `-%}` / `-}}` or trim_blocks newline removal pending
  bool trim_newline = false;
  while (i <= s.size()) {
    size_t open = std::min({s.find("{{", i), s.find("{%", i), s.find("{#", i)});
    std::string text = s.substr(i, open == std::string::npos ? std::string::npos : open - i);
    if (trim_next) {
      size_t k = 0;
      while (k < text.size() && isspace(static_cast<unsigned char>(text[k]))) ++k;
      text.erase(0, k);
    } else if (trim_newline && !text.empty() && text[0] == '\n') {
      text.erase(0, 1);  // trim_blocks
    }
    if (open == std::string::npos) {
      out.push_back({Piece::kText, text, i});
      return Status::ok_status();
    }
    char kind = s[open + 1];
    bool strip_before = open + 2 < s.size() && s[open + 2] == '-';
    if (strip_before) {
      while (!text.empty() && isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    } else if (kind != '{') {
      // lstrip_blocks: spaces and tabs between a line start and a block tag are dropped.
      size_t k = open;
      while (k > i && (s[k - 1] == ' ' || s[k - 1] == '\t')) --k;
      if (k == 0 || s[k - 1] == '\n') text.erase(text.size() >= open - k ? text.size() - (open - k) : 0);
    }
    out.push_back({Piece::kText, text, i});
    std::string close = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
    size_t end = s.find(close, open + 2);
    if (end == std::string::npos) return syntax("unclosed '{" + std::string(1, kind) + "'", open);
    size_t body_start = open + 2 + (strip_before ? 1 : 0);
    bool strip_after = end > body_start && s[end - 1] == '-';
    std::string body = s.substr(body_start, end - body_start - (strip_after ? 1 : 0));
    if (kind != '#') out.push_back({kind == '{' ? Piece::kExpr : Piece::kStmt, body, open});
    trim_next = strip_after;
    trim_newline = kind != '{';
    i = end + 2;
  }
  return Status::ok_status();
}

// ---- expression tokens ----
struct Tok {
  enum Kind { kEnd, kName, kString, kInt, kOp } kind;
  std::string text;
  int64_t num = 0;
};

Status lex_expr(const std::string& s, size_t base, std::vector<Tok>& out) {
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Tok::kName, s.substr(i, j - i)});
      i = j;
    } else if (isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j - i > 18) return syntax("integer literal too long", base + i);
      out.push_back({Tok::kInt, s.substr(i, j - i), std::strtoll(s.c_str() + i, nullptr, 10)});
      i = j;
    } else if (c == '\'' || c == '"') {
      std::string v;
      size_t j = i + 1;
      for (; j < s.size() && s[j] != c; ++j) {
        if (s[j] == '\\' && j + 1 < s.size()) {
          char e = s[++j];
          v += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        } else {
          v += s[j];
        }
      }
      if (j >= s.size()) return syntax("unterminated string", base + i);
      out.push_back({Tok::kString, v});
      i = j + 1;
    } else {
      static const char* two[] = {"==", "!=", "<=", ">=", "//", "**"};
      std::string op(1, c);
      for (const char* t : two)
        if (s.compare(i, 2, t) == 0) op = t;
      if (std::string("+-*/%~()[]{}.,:|=<>!").find(c) == std::string::npos)
        return syntax(std::string("unexpected character '") + c + "'", base + i);
      out.push_back({Tok::kOp, op});
      i += op.size();
    }
  }
  out.push_back({Tok::kEnd, ""});
  return Status::ok_status();
}

// ---- expression parser (Jinja's precedence) ----
class ExprParser {
 public:
  ExprParser(std::vector<Tok> toks, size_t pos) : t_(std::move(toks)), pos_(pos) {}
  Status err;
  std::unique_ptr<Expr> parse() { return cond(); }
  bool at_end() const { return t_[i_].kind == Tok::kEnd; }
  const Tok& peek() const { return t_[i_]; }
  bool accept_name(const char* n) {
    if (t_[i_].kind == Tok::kName && t_[i_].text == n) return ++i_, true;
    return false;
  }
  bool accept_op(const char* o) {
    if (t_[i_].kind == Tok::kOp && t_[i_].text == o) return ++i_, true;
    return false;
  }
  void expect_op(const char* o) {
    if (!accept_op(o)) fail(std::string("expected '") + o + "'");
  }
  std::string expect_name() {
    if (t_[i_].kind != Tok::kName) return fail("expected a name"), "";
    return t_[i_++].text;
  }
  void fail(const std::string& what) {
    if (err.ok()) err = syntax(what + " (near '" + t_[i_].text + "')", pos_);
  }

 private:
  static std::unique_ptr<Expr> node(Expr::Kind k, std::string name = "") {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->name = std::move(name);
    return e;
  }
  std::unique_ptr<Expr> binary(std::string op, std::unique_ptr<Expr> a, std::unique_ptr<Expr> b) {
    auto e = node(Expr::kBinary, std::move(op));
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }
  std::unique_ptr<Expr> cond() {
    auto a = or_();
    if (accept_name("if")) {
      auto e = node(Expr::kCond);
      e->args.push_back(or_());
      e->args.push_back(std::move(a));
      e->args.push_back(accept_name("else") ? cond() : nullptr);
      return e;
    }
    return a;
  }
  // A left-associative chain `operand (op operand)*`, op a keyword (is_name) or a symbol.
  std::unique_ptr<Expr> chain(std::unique_ptr<Expr> (ExprParser::*operand)(), const char* op, bool is_name) {
    auto a = (this->*operand)();
    while (err.ok() && (is_name ? accept_name(op) : accept_op(op))) a = binary(op, std::move(a), (this->*operand)());
    return a;
  }
  std::unique_ptr<Expr> or_() { return chain(&ExprParser::and_, "or", true); }
  std::unique_ptr<Expr> and_() { return chain(&ExprParser::not_, "and", true); }
  std::unique_ptr<Expr> not_() {
    if (accept_name("not")) {
      auto e = node(Expr::kUnary, "not");
      e->args.push_back(not_());
      return e;
    }
    return compare();
  }
  std::unique_ptr<Expr> compare() {
    auto a = concat();
    while (err.ok()) {
      const Tok& t = peek();
      if (t.kind == Tok::kOp && (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == ">" ||
                                 t.text == "<=" || t.text == ">=")) {
        std::string op = t.text;
        ++i_;
        a = binary(op, std::move(a), concat());
      } else if (accept_name("in")) {
        a = binary("in", std::move(a), concat());
      } else if (t.kind == Tok::kName && t.text == "not" && t_[i_ + 1].kind == Tok::kName && t_[i_ + 1].text == "in") {
        i_ += 2;
        a = binary("not in", std::move(a), concat());
      } else if (accept_name("is")) {
        auto e = node(Expr::kTest);
        e->negate = accept_name("not");
        e->name = t_[i_].kind == Tok::kName ? t_[i_++].text : "";
        if (e->name.empty()) fail("expected a test name after 'is'");
        e->args.push_back(std::move(a));
        a = std::move(e);
      } else {
        break;
      }
    }
    return a;
  }
  std::unique_ptr<Expr> concat() { return chain(&ExprParser::add, "~", false); }
  std::unique_ptr<Expr> add() {
    auto a = mul();
    while (err.ok()) {
      if (accept_op("+")) a = binary("+", std::move(a), mul());
      else if (accept_op("-")) a = binary("-", std::move(a), mul());
      else break;
    }
    return a;
  }
  std::unique_ptr<Expr> mul() {
    auto a = unary();
    while (err.ok()) {
      const Tok& t = peek();
      if (t.kind == Tok::kOp && (t.text == "*" || t.text == "//" || t.text == "%")) {
        std::string op = t.text;
        ++i_;
        a = binary(op, std::move(a), unary());
      } else {
        break;
      }
    }
    return a;
  }
  std::unique_ptr<Expr> unary() {
    if (accept_op("-")) {
      auto e = node(Expr::kUnary, "-");
      e->args.push_back(unary());
      return e;
    }
    return postfix(primary());
  }
  std::unique_ptr<Expr> primary() {
    const Tok& t = peek();
    if (t.kind == Tok::kString || t.kind == Tok::kInt) {
      auto e = node(Expr::kLiteral);
      e->literal = t.kind == Tok::kString ? str_value(t.text) : Value{t.num};
      ++i_;
      // Adjacent string literals concatenate, as in Python.
      while (t.kind == Tok::kString && peek().kind == Tok::kString)
        e->literal = str_value(*e->literal.as_str() + t_[i_++].text);
      return e;
    }
    if (t.kind == Tok::kName) {
      std::string n = t_[i_++].text;
      auto e = node(Expr::kLiteral);
      if (n == "true" || n == "True") e->literal = Value{true};
      else if (n == "false" || n == "False") e->literal = Value{false};
      else if (n == "none" || n == "None") e->literal = Value{None{}};
      else e = node(Expr::kName, n);
      return e;
    }
    if (accept_op("(")) {
      auto e = cond();
      expect_op(")");
      return e;
    }
    if (accept_op("[")) {
      auto e = node(Expr::kList);
      while (err.ok() && !accept_op("]")) {
        e->args.push_back(cond());
        if (!accept_op(",")) {
          expect_op("]");
          break;
        }
      }
      return e;
    }
    fail("expected an expression");
    return node(Expr::kLiteral);
  }
  std::unique_ptr<Expr> postfix(std::unique_ptr<Expr> a) {
    while (err.ok()) {
      if (accept_op(".")) {
        auto e = node(Expr::kAttr, expect_name());
        e->args.push_back(std::move(a));
        a = std::move(e);
      } else if (accept_op("[")) {
        std::unique_ptr<Expr> parts[3];
        int n = 0;
        bool slice = false;
        while (err.ok()) {
          if (peek().kind == Tok::kOp && (peek().text == ":" || peek().text == "]")) {
          } else {
            parts[n] = cond();
          }
          if (accept_op(":")) {
            slice = true;
            if (++n > 2) fail("too many ':' in a slice");
            continue;
          }
          expect_op("]");
          break;
        }
        auto e = node(slice ? Expr::kSlice : Expr::kIndex);
        e->args.push_back(std::move(a));
        for (auto& p : parts) e->args.push_back(std::move(p));
        a = std::move(e);
      } else if (accept_op("(")) {
        auto e = node(Expr::kCall);
        e->args.push_back(std::move(a));
        call_args(*e);
        a = std::move(e);
      } else if (accept_op("|")) {
        auto e = node(Expr::kFilter, expect_name());
        e->args.push_back(std::move(a));
        if (accept_op("(")) call_args(*e);
        a = std::move(e);
      } else {
        break;
      }
    }
    return a;
  }
  void call_args(Expr& e) {
    while (err.ok() && !accept_op(")")) {
      if (peek().kind == Tok::kName && t_[i_ + 1].kind == Tok::kOp && t_[i_ + 1].text == "=") {
        std::string k = t_[i_].text;
        i_ += 2;
        e.kwargs.emplace_back(k, cond());
      } else {
        e.args.push_back(cond());
      }
      if (!accept_op(",")) {
        expect_op(")");
        break;
      }
    }
  }

  std::vector<Tok> t_;
  size_t i_ = 0;
  size_t pos_;
};

// ---- statement parser ----
class Parser {
 public:
  explicit Parser(std::vector<Piece> pieces) : p_(std::move(pieces)) {}
  Status err;

  // Parses nodes until one of `enders` (a statement keyword) or the end; returns the ender.
  std::string block(JinjaNode& into, std::initializer_list<const char*> enders) {
    while (err.ok() && i_ < p_.size()) {
      Piece& pc = p_[i_++];
      if (pc.kind == Piece::kText) {
        if (!pc.body.empty()) into.children.push_back(text(pc.body));
        continue;
      }
      ExprParser ep = expr_parser(pc);
      if (!err.ok()) return "";
      if (pc.kind == Piece::kExpr) {
        auto n = make(JinjaNode::kOutput);
        n->expr = ep.parse();
        finish(ep, pc);
        into.children.push_back(std::move(n));
        continue;
      }
      std::string kw = ep.expect_name();
      for (const char* e : enders)
        if (kw == e) {
          pending_ = std::make_unique<ExprParser>(std::move(ep));
          pending_pos_ = pc.pos;
          return kw;
        }
      if (kw == "if") {
        into.children.push_back(if_stmt(ep, pc));
      } else if (kw == "for") {
        into.children.push_back(for_stmt(ep, pc));
      } else if (kw == "set") {
        auto n = make(JinjaNode::kSet);
        n->text = ep.expect_name();
        if (ep.accept_op(".")) n->attr = ep.expect_name();
        ep.expect_op("=");
        n->expr = ep.parse();
        finish(ep, pc);
        into.children.push_back(std::move(n));
      } else {
        if (err.ok()) err = syntax("unsupported or unexpected statement '" + kw + "'", pc.pos);
        if (!ep.err.ok() && err.ok()) err = ep.err;
      }
    }
    if (enders.size() && err.ok()) err = syntax("missing '{% " + std::string(*enders.begin()) + " %}'", p_.empty() ? 0 : p_.back().pos);
    return "";
  }

 private:
  static std::unique_ptr<JinjaNode> make(JinjaNode::Kind k) {
    auto n = std::make_unique<JinjaNode>();
    n->kind = k;
    return n;
  }
  static std::unique_ptr<JinjaNode> text(const std::string& s) {
    auto n = make(JinjaNode::kText);
    n->text = s;
    return n;
  }
  ExprParser expr_parser(const Piece& pc) {
    std::vector<Tok> toks;
    Status s = lex_expr(pc.body, pc.pos, toks);
    if (!s.ok() && err.ok()) err = s;
    return ExprParser(std::move(toks), pc.pos);
  }
  void finish(ExprParser& ep, const Piece& pc) {
    if (!ep.err.ok()) {
      if (err.ok()) err = ep.err;
    } else if (!ep.at_end() && err.ok()) {
      err = syntax("unexpected '" + ep.peek().text + "'", pc.pos);
    }
  }
  std::unique_ptr<JinjaNode> if_stmt(ExprParser& ep, const Piece& pc) {
    auto n = make(JinjaNode::kIf);
    std::unique_ptr<Expr> cond = ep.parse();
    finish(ep, pc);
    while (err.ok()) {
      auto body = make(JinjaNode::kBlock);
      std::string end = block(*body, {"endif", "elif", "else"});
      n->branches.emplace_back(std::move(cond), std::move(body));
      if (!err.ok()) break;
      std::unique_ptr<ExprParser> next = std::move(pending_);
      Piece at{Piece::kStmt, "", pending_pos_};
      if (end == "endif") {
        finish(*next, at);
        break;
      }
      if (end == "elif") {
        cond = next->parse();
        finish(*next, at);
      } else {  // else: an always-true branch, then endif
        finish(*next, at);
        auto else_body = make(JinjaNode::kBlock);
        std::string e2 = block(*else_body, {"endif"});
        if (err.ok()) finish(*pending_, at);
        n->branches.emplace_back(nullptr, std::move(else_body));
        break;
      }
    }
    return n;
  }
  std::unique_ptr<JinjaNode> for_stmt(ExprParser& ep, const Piece& pc) {
    auto n = make(JinjaNode::kFor);
    n->text = ep.expect_name();
    if (!ep.accept_name("in")) ep.fail("expected 'in' in a for loop");
    n->expr = ep.parse();
    finish(ep, pc);
    if (!err.ok()) return n;
    std::string end = block(*n, {"endfor"});
    if (err.ok()) finish(*pending_, Piece{Piece::kStmt, "", pending_pos_});
    return n;
  }

  std::vector<Piece> p_;
  size_t i_ = 0;
  std::unique_ptr<ExprParser> pending_;  // the rest of the ender statement just met
  size_t pending_pos_ = 0;
};

// ---- evaluation ----
bool truthy(const Value& v) {
  switch (v.v.index()) {
    case 0: case 1: return false;
    case 2: return *v.as_bool();
    case 3: return *v.as_int() != 0;
    case 4: return !v.as_str()->empty();
    case 5: return !v.as_list()->empty();
    default: return !v.as_dict()->empty();
  }
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += static_cast<char>(c);
    else if (c == '\n') o += "\\n";
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += static_cast<char>(c);
  }
  return o + "\"";
}

std::string to_json(const Value& v) {
  if (auto s = v.as_str()) return json_string(*s);
  if (auto i = v.as_int()) return std::to_string(*i);
  if (auto b = v.as_bool()) return *b ? "true" : "false";
  if (auto l = v.as_list()) {
    std::string o = "[";
    for (size_t k = 0; k < l->size(); ++k) o += (k ? ", " : "") + to_json((*l)[k]);
    return o + "]";
  }
  if (auto d = v.as_dict()) {
    std::string o = "{";
    bool first = true;
    for (auto& [k, x] : *d) o += (first ? "" : ", ") + json_string(k) + ": " + to_json(x), first = false;
    return o + "}";
  }
  return "null";
}

std::string to_str(const Value& v) {
  if (auto s = v.as_str()) return *s;
  if (auto i = v.as_int()) return std::to_string(*i);
  if (auto b = v.as_bool()) return *b ? "True" : "False";
  if (v.is_none()) return "None";
  if (v.is_undefined()) return "";
  return to_json(v);
}

bool equal(const Value& a, const Value& b) {
  if (a.v.index() != b.v.index()) return false;
  if (a.as_str()) return *a.as_str() == *b.as_str();
  if (a.as_int()) return *a.as_int() == *b.as_int();
  if (a.as_bool()) return *a.as_bool() == *b.as_bool();
  if (a.is_none() || a.is_undefined()) return true;
  return to_json(a) == to_json(b);
}

bool is_py_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string strip(const std::string& s, const Value* chars, bool left, bool right) {
  auto in_set = [&](char c) { return chars && chars->as_str() ? chars->as_str()->find(c) != std::string::npos : is_py_space(c); };
  size_t b = 0, e = s.size();
  if (left) while (b < e && in_set(s[b])) ++b;
  if (right) while (e > b && in_set(s[e - 1])) --e;
  return s.substr(b, e - b);
}

struct Renderer {
  Status err;
  std::vector<Dict> scopes;
  std::string out;

  void fail(const std::string& what) {
    if (err.ok()) err = Status(ErrorCode::kInvalidArgument, "chat template: " + what);
  }
  Value lookup(const std::string& n) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return f->second;
    }
    return Value{};
  }
  // Python-style index normalisation; false when out of range.
  static bool norm_index(int64_t& i, size_t n) {
    if (i < 0) i += static_cast<int64_t>(n);
    return i >= 0 && i < static_cast<int64_t>(n);
  }
  Value member(const Value& obj, const Value& key) {
    if (auto d = obj.as_dict()) {
      auto s = key.as_str();
      if (!s) return Value{};
      auto it = d->find(*s);
      return it == d->end() ? Value{} : it->second;
    }
    if (auto i = key.as_int()) {
      int64_t k = *i;
      if (auto l = obj.as_list()) return norm_index(k, l->size()) ? (*l)[k] : Value{};
      if (auto s = obj.as_str()) return norm_index(k, s->size()) ? str_value(std::string(1, (*s)[k])) : Value{};
    }
    if (obj.is_undefined()) fail("attribute or index of an undefined value");
    return Value{};
  }
  Value slice(const Value& obj, const Value* a, const Value* b, const Value* c) {
    int64_t step = c && c->as_int() ? *c->as_int() : 1;
    if (step == 0) return fail("slice step 0"), Value{};
    // Signed: with a 32-bit size_t (Wasm), `step > 0 ? n : -1` would make -1 4294967295.
    const int64_t n = static_cast<int64_t>(obj.as_list() ? obj.as_list()->size() : obj.as_str() ? obj.as_str()->size() : 0);
    if (!obj.as_list() && !obj.as_str()) return fail("slice of a value that is not a list or string"), Value{};
    auto clampi = [&](const Value* v, int64_t def) {
      if (!v || !v->as_int()) return def;
      int64_t i = *v->as_int();
      if (i < 0) i += n;
      int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
      return std::min(std::max(i, lo), hi);
    };
    int64_t start = clampi(a, step > 0 ? 0 : n - 1), stop = clampi(b, step > 0 ? n : -1);
    List l;
    std::string s;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (obj.as_list()) l.push_back((*obj.as_list())[i]);
      else s += (*obj.as_str())[i];
    }
    return obj.as_list() ? list_value(std::move(l)) : str_value(s);
  }
  Value call_method(const Value& self, const std::string& m, const std::vector<Value>& a) {
    const std::string* s = self.as_str();
    if (!s) return fail("method '" + m + "' called on a value that is not a string"), Value{};
    const Value* a0 = a.empty() ? nullptr : &a[0];
    if (m == "startswith" || m == "endswith") {
      if (!a0 || !a0->as_str()) return fail(m + "() needs a string"), Value{};
      const std::string& x = *a0->as_str();
      bool r = x.size() <= s->size() && (m == "startswith" ? s->compare(0, x.size(), x) == 0
                                                           : s->compare(s->size() - x.size(), x.size(), x) == 0);
      return Value{r};
    }
    if (m == "strip") return str_value(strip(*s, a0, true, true));
    if (m == "lstrip") return str_value(strip(*s, a0, true, false));
    if (m == "rstrip") return str_value(strip(*s, a0, false, true));
    if (m == "upper" || m == "lower") {
      std::string r = *s;
      for (char& c : r) c = m == "upper" ? toupper(static_cast<unsigned char>(c)) : tolower(static_cast<unsigned char>(c));
      return str_value(r);
    }
    if (m == "split") {
      List parts;
      if (!a0 || a0->is_none()) {  // whitespace split, empty pieces dropped
        std::string cur;
        for (char c : *s) {
          if (is_py_space(c)) {
            if (!cur.empty()) parts.push_back(str_value(cur)), cur.clear();
          } else {
            cur += c;
          }
        }
        if (!cur.empty()) parts.push_back(str_value(cur));
        return list_value(std::move(parts));
      }
      if (!a0->as_str() || a0->as_str()->empty()) return fail("split() separator must be a non-empty string"), Value{};
      const std::string& sep = *a0->as_str();
      size_t b = 0;
      for (size_t f; (f = s->find(sep, b)) != std::string::npos; b = f + sep.size()) parts.push_back(str_value(s->substr(b, f - b)));
      parts.push_back(str_value(s->substr(b)));
      return list_value(std::move(parts));
    }
    if (m == "replace" && a.size() == 2 && a[0].as_str() && a[1].as_str() && !a[0].as_str()->empty()) {
      std::string r;
      const std::string &from = *a[0].as_str(), &to = *a[1].as_str();
      size_t b = 0;
      for (size_t f; (f = s->find(from, b)) != std::string::npos; b = f + from.size()) r += s->substr(b, f - b) + to;
      return str_value(r + s->substr(b));
    }
    return fail("unsupported string method '" + m + "'"), Value{};
  }
  Value eval(const Expr* e) {
    if (!err.ok() || !e) return Value{};
    switch (e->kind) {
      case Expr::kLiteral: return e->literal;
      case Expr::kName: return lookup(e->name);
      case Expr::kList: {
        List l;
        for (auto& a : e->args) l.push_back(eval(a.get()));
        return list_value(std::move(l));
      }
      case Expr::kAttr: return member(eval(e->args[0].get()), str_value(e->name));
      case Expr::kIndex: return member(eval(e->args[0].get()), eval(e->args[1].get()));
      case Expr::kSlice: {
        Value o = eval(e->args[0].get());
        Value p[3];
        for (int k = 0; k < 3; ++k) p[k] = eval(e->args[k + 1].get());
        return slice(o, e->args[1] ? &p[0] : nullptr, e->args[2] ? &p[1] : nullptr, e->args[3] ? &p[2] : nullptr);
      }
      case Expr::kCall: return call(e);
      case Expr::kFilter: return filter(e);
      case Expr::kTest: return Value{test(e) != e->negate};
      case Expr::kUnary: {
        Value a = eval(e->args[0].get());
        if (e->name == "not") return Value{!truthy(a)};
        if (auto i = a.as_int()) return Value{-*i};
        return fail("unary '-' of a non-number"), Value{};
      }
      case Expr::kCond: return truthy(eval(e->args[0].get())) ? eval(e->args[1].get()) : eval(e->args[2].get());
      case Expr::kBinary: return binary(e);
    }
    return Value{};
  }
  Value binary(const Expr* e) {
    const std::string& op = e->name;
    if (op == "and") {
      Value a = eval(e->args[0].get());
      return truthy(a) ? eval(e->args[1].get()) : a;
    }
    if (op == "or") {
      Value a = eval(e->args[0].get());
      return truthy(a) ? a : eval(e->args[1].get());
    }
    Value a = eval(e->args[0].get()), b = eval(e->args[1].get());
    if (!err.ok()) return Value{};
    if (op == "~") return str_value(to_str(a) + to_str(b));
    if (op == "==") return Value{equal(a, b)};
    if (op == "!=") return Value{!equal(a, b)};
    if (op == "in" || op == "not in") {
      bool r = false;
      if (auto hs = b.as_str()) {
        if (!a.as_str()) return fail("'in <string>' needs a string on the left"), Value{};
        r = hs->find(*a.as_str()) != std::string::npos;
      } else if (auto l = b.as_list()) {
        for (auto& x : *l) r = r || equal(a, x);
      } else if (auto d = b.as_dict()) {
        r = a.as_str() && d->count(*a.as_str());
      } else {
        return fail("'in' needs a string, list or mapping on the right"), Value{};
      }
      return Value{op == "in" ? r : !r};
    }
    if (op == "+" && a.as_str() && b.as_str()) return str_value(*a.as_str() + *b.as_str());
    if (op == "+" && a.as_list() && b.as_list()) {
      List l = *a.as_list();
      l.insert(l.end(), b.as_list()->begin(), b.as_list()->end());
      return list_value(std::move(l));
    }
    if (a.as_str() && b.as_str() && (op == "<" || op == ">" || op == "<=" || op == ">=")) {
      int c = a.as_str()->compare(*b.as_str());
      return Value{op == "<" ? c < 0 : op == ">" ? c > 0 : op == "<=" ? c <= 0 : c >= 0};
    }
    auto num = [](const Value& v, int64_t* out) {
      if (auto i = v.as_int()) return *out = *i, true;
      if (auto bb = v.as_bool()) return *out = *bb, true;
      return false;
    };
    int64_t x, y;
    if (!num(a, &x) || !num(b, &y)) return fail("operator '" + op + "' on " + to_json(a) + " and " + to_json(b)), Value{};
    if (op == "+") return Value{x + y};
    if (op == "-") return Value{x - y};
    if (op == "*") return Value{x * y};
    if (op == "<") return Value{x < y};
    if (op == ">") return Value{x > y};
    if (op == "<=") return Value{x <= y};
    if (op == ">=") return Value{x >= y};
    if (y == 0) return fail("division by zero"), Value{};
    if (op == "//") return Value{x / y - ((x % y != 0) && ((x < 0) != (y < 0)))};
    if (op == "%") return Value{((x % y) + y) % y};
    return fail("unsupported operator '" + op + "'"), Value{};
  }
  Value call(const Expr* e) {
    const Expr* f = e->args[0].get();
    std::vector<Value> a;
    for (size_t k = 1; k < e->args.size(); ++k) a.push_back(eval(e->args[k].get()));
    if (f->kind == Expr::kName && f->name == "namespace") {
      Dict d;
      for (auto& [k, v] : e->kwargs) d[k] = eval(v.get());
      return dict_value(std::move(d));
    }
    if (f->kind == Expr::kName && f->name == "raise_exception") {
      fail("the template raised: " + (a.empty() ? std::string() : to_str(a[0])));
      return Value{};
    }
    if (f->kind == Expr::kAttr) return call_method(eval(f->args[0].get()), f->name, a);
    return fail("unsupported function call"), Value{};
  }
  Value filter(const Expr* e) {
    Value a = eval(e->args[0].get());
    const std::string& n = e->name;
    if (n == "length" || n == "count") {
      if (auto s = a.as_str()) return Value{static_cast<int64_t>(s->size())};
      if (auto l = a.as_list()) return Value{static_cast<int64_t>(l->size())};
      if (auto d = a.as_dict()) return Value{static_cast<int64_t>(d->size())};
      return fail("length of a value without one"), Value{};
    }
    if (n == "trim") return str_value(strip(to_str(a), nullptr, true, true));
    if (n == "string") return str_value(to_str(a));
    if (n == "tojson") return str_value(to_json(a));
    if (n == "upper" || n == "lower") return call_method(str_value(to_str(a)), n, {});
    if (n == "first" || n == "last") {
      auto l = a.as_list();
      if (!l) return fail(n + " of a non-list"), Value{};
      return l->empty() ? Value{} : n == "first" ? l->front() : l->back();
    }
    return fail("unsupported filter '" + n + "'"), Value{};
  }
  bool test(const Expr* e) {
    Value a = eval(e->args[0].get());
    const std::string& n = e->name;
    if (n == "defined") return !a.is_undefined();
    if (n == "undefined") return a.is_undefined();
    if (n == "none") return a.is_none();
    if (n == "string") return a.as_str() != nullptr;
    if (n == "number" || n == "integer") return a.as_int() != nullptr;
    if (n == "boolean") return a.as_bool() != nullptr;
    if (n == "mapping") return a.as_dict() != nullptr;
    if (n == "iterable" || n == "sequence") return a.as_list() || a.as_str();
    if (n == "true") return a.as_bool() && *a.as_bool();
    if (n == "false") return a.as_bool() && !*a.as_bool();
    fail("unsupported test '" + n + "'");
    return false;
  }
  void exec(const JinjaNode& n) {
    if (!err.ok()) return;
    switch (n.kind) {
      case JinjaNode::kText: out += n.text; break;
      case JinjaNode::kOutput: {
        Value v = eval(n.expr.get());
        if (err.ok()) out += to_str(v);
        break;
      }
      case JinjaNode::kBlock:
        for (auto& c : n.children) exec(*c);
        break;
      case JinjaNode::kSet: {
        Value v = eval(n.expr.get());
        if (n.attr.empty()) {
          scopes.back()[n.text] = v;
        } else {
          Dict* d = lookup(n.text).as_dict();
          if (!d) return fail("'set " + n.text + "." + n.attr + "': " + n.text + " is not a namespace");
          (*d)[n.attr] = v;
        }
        break;
      }
      case JinjaNode::kIf:
        for (auto& [c, body] : n.branches) {
          if (!c || truthy(eval(c.get()))) {
            exec(*body);
            break;
          }
        }
        break;
      case JinjaNode::kFor: {
        Value it = eval(n.expr.get());
        if (it.is_undefined() || it.is_none()) break;  // as Jinja: an undefined iterable is empty
        List items;
        if (auto l = it.as_list()) items = *l;
        else if (auto d = it.as_dict()) for (auto& [k, v] : *d) items.push_back(str_value(k));
        else return fail("for loop over a value that is not a list");
        for (size_t i = 0; i < items.size() && err.ok(); ++i) {
          Dict loop{{"index0", Value{static_cast<int64_t>(i)}}, {"index", Value{static_cast<int64_t>(i + 1)}},
                    {"first", Value{i == 0}}, {"last", Value{i + 1 == items.size()}},
                    {"length", Value{static_cast<int64_t>(items.size())}},
                    {"revindex0", Value{static_cast<int64_t>(items.size() - 1 - i)}},
                    {"revindex", Value{static_cast<int64_t>(items.size() - i)}}};
          scopes.push_back(Dict{{n.text, items[i]}, {"loop", dict_value(std::move(loop))}});
          for (auto& c : n.children) exec(*c);
          scopes.pop_back();
        }
        break;
      }
    }
  }
};

}  // namespace

Result<ChatTemplate> ChatTemplate::parse(const std::string& source) {
  std::vector<Piece> pieces;
  WICK_RETURN_IF_ERROR(split_pieces(source, pieces));
  Parser p(std::move(pieces));
  auto root = std::make_shared<JinjaNode>();
  root->kind = JinjaNode::kBlock;
  p.block(*root, {});
  if (!p.err.ok()) return p.err;
  ChatTemplate t;
  t.root_ = std::move(root);
  return t;
}

Result<std::string> ChatTemplate::render(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                                         bool enable_thinking, const std::string& bos_token,
                                         const std::string& eos_token) const {
  if (!root_) return Status(ErrorCode::kInvalidArgument, "chat template: not parsed");
  List msgs;
  for (const ChatMessage& m : messages) msgs.push_back(dict_value(Dict{{"role", str_value(m.role)}, {"content", str_value(m.content)}}));
  Renderer r;
  r.scopes.push_back(Dict{{"messages", list_value(std::move(msgs))},
                          {"add_generation_prompt", Value{add_generation_prompt}},
                          {"enable_thinking", Value{enable_thinking}},
                          {"bos_token", str_value(bos_token)},
                          {"eos_token", str_value(eos_token)}});
  r.exec(*root_);
  if (!r.err.ok()) return r.err;
  return r.out;
}

}  // namespace wick::llm
