#include "webgpu/ops/op_kit.h"

#include <cctype>
#include <cstring>

namespace wick::webgpu {

namespace {

struct Token {
  char kind;           // T I F B L V S O *
  bool nullable;       // X?
  bool omittable;      // [X]
};

struct Schema {
  std::vector<Token> args;
  size_t num_inputs = 0;
};

Result<Schema> parse_schema(const char* text) {
  Schema s;
  bool arrow = false;
  const char* p = text;
  while (*p) {
    while (*p == ' ') ++p;
    if (!*p) break;
    const char* end = p;
    while (*end && *end != ' ') ++end;
    std::string tok(p, end);
    p = end;
    if (tok == "->") {
      if (arrow) return Status(ErrorCode::kInternal, std::string("schema \"") + text + "\": two \"->\"");
      arrow = true;
      s.num_inputs = s.args.size();
      continue;
    }
    Token t{0, false, false};
    if (tok.size() >= 2 && tok.front() == '[' && tok.back() == ']') {
      t.omittable = true;
      tok = tok.substr(1, tok.size() - 2);
    }
    if (tok.size() == 2 && tok[1] == '?') {
      t.nullable = true;
      tok.pop_back();
    }
    if (tok.size() != 1 || !std::strchr("TIFBLVSO*", tok[0]))
      return Status(ErrorCode::kInternal, std::string("schema \"") + text + "\": unknown token \"" + tok + "\"");
    t.kind = tok[0];
    s.args.push_back(t);
  }
  if (s.args.empty()) return Status(ErrorCode::kInternal, std::string("schema \"") + text + "\" is empty");
  if (!arrow) s.num_inputs = s.args.size() - 1;  // the last argument is the output
  return s;
}

const char* kind_name(GValue::Kind k) {
  switch (k) {
    case GValue::kNone: return "None";
    case GValue::kInt: return "an int";
    case GValue::kDouble: return "a double";
    case GValue::kBool: return "a bool";
    case GValue::kString: return "a string";
    case GValue::kIntList: return "an int list";
    case GValue::kDoubleList: return "a double list";
    case GValue::kBoolList: return "a bool list";
    case GValue::kValueList: return "a value list";
    case GValue::kSymInt: return "a SymInt";
    case GValue::kTensor: return "a tensor";
  }
  return "an unknown value";
}

const char* expected_name(char kind) {
  switch (kind) {
    case 'T': return "a tensor";
    case 'I': return "an int";
    case 'F': return "a scalar";
    case 'B': return "a bool";
    case 'L': return "an int list";
    case 'V': return "a value list";
    case 'S': return "a string";
    case 'O': return "a tensor or a list of tensors";
  }
  return "anything";
}

bool is_int_like(GValue::Kind k) {
  return k == GValue::kInt || k == GValue::kBool || k == GValue::kSymInt || k == GValue::kDouble;
}

bool kind_fits(char kind, GValue::Kind k) {
  switch (kind) {
    case 'T': return k == GValue::kTensor;
    case 'I': case 'F': case 'B': return is_int_like(k);
    case 'L': return k == GValue::kIntList || k == GValue::kBoolList || k == GValue::kValueList;
    case 'V': return k == GValue::kValueList;
    case 'S': return k == GValue::kString;
    case 'O': return k == GValue::kTensor || k == GValue::kValueList;
  }
  return true;
}

}  // namespace

Status op_error(ErrorCode code, const char* op, const std::string& what) {
  return Status(code, std::string(op) + ": " + what);
}

Status set_output_dims(const std::string& op, GpuTensor* out, const std::vector<int64_t>& shape) {
  for (int64_t d : shape)
    if (d < 0) return Status(ErrorCode::kInvalidArgument, op + ": negative size in result shape " + shape_to_string(shape));
  if (shape.size() != out->max_dims.size() || shape_numel(shape) > out->max_numel())
    return Status(ErrorCode::kInvalidArgument, op + ": result shape " + shape_to_string(shape) +
                                                   " does not fit the output " + shape_to_string(out->max_dims));
  out->dims = shape;
  return {};
}

Result<KernelDispatch> add_kernel(Graph& g, const std::string& op, const gpu::PipelineKey& key, size_t params_bytes,
                                  std::initializer_list<const gpu::Buffer*> buffers) {
  KernelDispatch k;
  WICK_ASSIGN_OR_RETURN(auto pipeline, g.pipeline(key));
  WICK_ASSIGN_OR_RETURN(k.params, g.params(params_bytes, op));
  gpu::Dispatch d;
  d.pipeline = pipeline;
  uint32_t binding = 0;
  for (const gpu::Buffer* b : buffers) d.bindings.push_back({binding++, b == kParamsSlot ? k.params->buffer() : b});
  WICK_ASSIGN_OR_RETURN(k.index, g.add_dispatch(std::move(d)));
  return k;
}

Result<int64_t> set_linear_output(const char* op, const GpuTensor* x, int64_t k, int64_t n, GpuTensor* y) {
  if (x->dims.empty() || x->dims.back() != k)
    return op_error(ErrorCode::kInvalidArgument, op, "input " + shape_to_string(x->dims) + " does not end in K=" + std::to_string(k));
  std::vector<int64_t> shape = x->dims;
  shape.back() = n;
  if (shape_numel(shape) > y->max_numel())
    return op_error(ErrorCode::kInvalidArgument, op,
                    "output " + shape_to_string(shape) + " exceeds its bound " + shape_to_string(y->max_dims));
  y->dims = shape;
  return x->numel() / k;
}

Status check_schema(const char* schema) { return parse_schema(schema).status(); }

bool schema_accepts(const char* schema, size_t nargs) {
  auto parsed = parse_schema(schema);
  if (!parsed.ok()) return false;
  size_t required = 0;
  for (const Token& t : parsed.value().args) required += t.omittable ? 0 : 1;
  return nargs == parsed.value().args.size() || nargs == required;
}

Result<OpArgs> OpArgs::bind(Graph& g, const OpEntry& entry, const std::vector<int32_t>& ids) {
  auto parsed = parse_schema(entry.schema);
  if (!parsed.ok()) return parsed.status().with_context(entry.name);
  const Schema& s = parsed.value();
  size_t required = 0;
  for (const Token& t : s.args) required += t.omittable ? 0 : 1;
  OpArgs a(g, entry);
  a.num_inputs_ = s.num_inputs;
  if (ids.size() == s.args.size()) {
    a.ids_ = ids;
  } else if (ids.size() == required) {
    size_t next = 0;
    for (const Token& t : s.args) a.ids_.push_back(t.omittable ? -1 : ids[next++]);
  } else {
    std::string want = std::to_string(s.args.size());
    if (required != s.args.size()) want = std::to_string(required) + " or " + want;
    return op_error(ErrorCode::kInvalidProgram, entry.name,
                    "expected " + want + " arguments (" + entry.schema + "), got " + std::to_string(ids.size()));
  }
  for (size_t i = 0; i < s.args.size(); ++i) {
    const Token& t = s.args[i];
    const int32_t id = a.ids_[i];
    if (id < 0) continue;  // left out
    auto v = g.value(id);
    if (!v.ok())
      return op_error(ErrorCode::kInvalidProgram, entry.name,
                      "argument " + std::to_string(i) + ": value id " + std::to_string(id) + " out of range");
    const GValue::Kind k = v.value()->kind;
    if (t.kind == '*' || (k == GValue::kNone && t.nullable)) continue;
    if (!kind_fits(t.kind, k))
      return op_error(ErrorCode::kInvalidProgram, entry.name,
                      "argument " + std::to_string(i) + " (value " + std::to_string(id) + ") is " + kind_name(k) +
                          ", expected " + expected_name(t.kind) + (t.nullable ? " or None" : ""));
    if (t.kind == 'L' && k == GValue::kValueList) {
      auto list = g.int_list(id, entry.name);  // every item an int or SymInt
      if (!list.ok())
        return op_error(ErrorCode::kInvalidProgram, entry.name,
                        "argument " + std::to_string(i) + " (value " + std::to_string(id) + ") is not an int list");
    }
  }
  return a;
}

Status OpBuilder::operator()(Graph& graph, const std::vector<int32_t>& args) const {
  WICK_ASSIGN_OR_RETURN(OpArgs a, OpArgs::bind(graph, *entry_, args));
  return entry_->build(graph, a);
}

GValue* OpArgs::value(size_t i) const {
  // bind() checked every id that is not -1.
  return g_->value(ids_.at(i)).value();
}

bool OpArgs::is_none(size_t i) const {
  const int32_t id = ids_.at(i);
  return id < 0 || g_->is_none(id);
}

bool OpArgs::is_tensor(size_t i) const { return !is_none(i) && value(i)->kind == GValue::kTensor; }

GpuTensor* OpArgs::tensor(size_t i) const { return is_none(i) ? nullptr : &value(i)->tensor; }

int64_t OpArgs::integer(size_t i) const { return opt_integer(i).value_or(0); }

std::optional<int64_t> OpArgs::opt_integer(size_t i) const {
  if (is_none(i)) return std::nullopt;
  auto r = g_->int_arg(ids_[i], name());
  return r.ok() ? std::optional<int64_t>(r.value()) : std::nullopt;
}

double OpArgs::scalar(size_t i) const { return opt_scalar(i).value_or(0.0); }

std::optional<double> OpArgs::opt_scalar(size_t i) const {
  if (is_none(i)) return std::nullopt;
  auto r = g_->scalar_arg(ids_[i], name());
  return r.ok() ? std::optional<double>(r.value()) : std::nullopt;
}

std::vector<int64_t> OpArgs::ints(size_t i) const {
  if (is_none(i)) return {};
  auto r = g_->int_list(ids_[i], name());
  return r.ok() ? r.value() : std::vector<int64_t>{};
}

const std::vector<int32_t>& OpArgs::items(size_t i) const {
  static const std::vector<int32_t> kEmpty;
  return is_none(i) ? kEmpty : value(i)->items;
}

const std::string& OpArgs::str(size_t i) const {
  static const std::string kEmpty;
  return is_none(i) ? kEmpty : value(i)->s;
}

Result<std::vector<GpuTensor*>> OpArgs::tensors(size_t i, size_t count) const {
  const std::vector<int32_t>& list = items(i);
  if (count != 0 && list.size() != count)
    return invalid("argument " + std::to_string(i) + ": expected " + std::to_string(count) + " tensors, got " +
                   std::to_string(list.size()));
  std::vector<GpuTensor*> out;
  for (int32_t id : list) {
    if (g_->is_none(id)) {
      out.push_back(nullptr);
      continue;
    }
    WICK_ASSIGN_OR_RETURN(GpuTensor * t, g_->tensor(id, name()));
    out.push_back(t);
  }
  return out;
}

Result<std::vector<GpuTensor*>> OpArgs::outputs(size_t i) const {
  if (is_tensor(i)) return std::vector<GpuTensor*>{tensor(i)};
  WICK_ASSIGN_OR_RETURN(std::vector<GpuTensor*> outs, tensors(i));
  if (outs.empty() || !outs[0]) return invalid("argument " + std::to_string(i) + ": empty output list");
  return outs;
}

Result<GValue*> OpArgs::symint_out() const {
  if (num_inputs_ >= ids_.size() || ids_[num_inputs_] < 0) return invalid("no output");
  GValue* out = value(num_inputs_);
  if (out->kind != GValue::kSymInt && out->kind != GValue::kInt) return invalid("output is not a SymInt");
  return out;
}

Status OpArgs::expect_float(std::initializer_list<const GpuTensor*> ts, const char* what) const {
  for (const GpuTensor* t : ts)
    if (t && !t->is_float()) return unsupported(what);
  return {};
}

}  // namespace wick::webgpu
