#include "llm/llm_metadata.h"

#include <algorithm>

#include "runtime/program.h"

namespace wick::llm {

namespace {

// A constant method: no inputs, Int/Bool outputs. Returns them as int64.
Result<std::vector<int64_t>> run_getter(Program& program, const std::string& name) {
  auto fail = [&](const std::string& why) {
    return Status(ErrorCode::kInvalidProgram, "metadata method '" + name + "': " + why);
  };
  auto method = program.load_method(name);
  if (!method.ok()) return method.status().with_context("metadata method '" + name + "'");
  if (!(*method)->meta().inputs.empty()) return fail("takes inputs; a getter takes none");
  auto outs = (*method)->forward({});
  if (!outs.ok()) return outs.status().with_context("metadata method '" + name + "'");
  if (outs->empty()) return fail("returns nothing");
  std::vector<int64_t> values;
  for (const Value& v : *outs) {
    if (v.tag == ValueTag::kInt || v.tag == ValueTag::kBool) values.push_back(v.scalar_as_int());
    else if (v.is_tensor() && v.tensor.numel() == 1 &&
             (v.tensor.dtype == ScalarType::kLong || v.tensor.dtype == ScalarType::kInt))
      values.push_back(v.tensor.dtype == ScalarType::kLong ? *v.tensor.data_as<int64_t>() : *v.tensor.data_as<int32_t>());
    else return fail(std::string("returns a ") + value_tag_name(v.tag) + ", expected Int or Bool");
  }
  return values;
}

}  // namespace

Result<LlmGetters> read_llm_getters(Program& program) {
  const auto names = program.method_names();
  auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  LlmGetters g;
  auto one = [&](const char* name, auto& dst) -> Status {
    if (!has(name)) return {};
    WICK_ASSIGN_OR_RETURN(auto v, run_getter(program, name));
    dst = static_cast<std::decay_t<decltype(*dst)>>(v[0]);
    return {};
  };
  WICK_RETURN_IF_ERROR(one("get_max_seq_len", g.max_seq_len));
  WICK_RETURN_IF_ERROR(one("get_max_context_len", g.max_context_len));
  WICK_RETURN_IF_ERROR(one("use_kv_cache", g.use_kv_cache));
  if (!g.use_kv_cache) WICK_RETURN_IF_ERROR(one("get_use_kv_cache", g.use_kv_cache));  // QNN's name
  WICK_RETURN_IF_ERROR(one("enable_dynamic_shape", g.enable_dynamic_shape));
  WICK_RETURN_IF_ERROR(one("get_bos_id", g.bos_id));
  WICK_RETURN_IF_ERROR(one("get_vocab_size", g.vocab_size));
  WICK_RETURN_IF_ERROR(one("get_n_layers", g.n_layers));
  for (const char* name : {"get_eos_ids", "get_eos_id"}) {
    if (!has(name)) continue;
    WICK_ASSIGN_OR_RETURN(g.eos_ids, run_getter(program, name));
    break;
  }
  return g;
}

Result<ForwardSignature> read_forward_signature(Program& program, const std::string& method) {
  WICK_ASSIGN_OR_RETURN(MethodMeta meta, program.method_meta(method));
  auto fail = [&](const std::string& why) {
    return Status(ErrorCode::kNotSupported, "method '" + method + "': " + why +
                                                " (an LLM decoder takes tokens[1,S] and input_pos[1] or cache_position[S])");
  };
  if (meta.inputs.empty() || meta.inputs.size() > 2) return fail(std::to_string(meta.inputs.size()) + " inputs");
  if (meta.outputs.empty() || meta.outputs[0].tag != ValueTag::kTensor) return fail("output 0 is not a tensor of logits");
  const ValueMeta& tok = meta.inputs[0];
  if (tok.tag != ValueTag::kTensor || tok.tensor.sizes.size() != 2 || tok.tensor.sizes[0] != 1)
    return fail("input 0 is not a [1, S] tensor of tokens");
  ForwardSignature s;
  s.token_dtype = tok.tensor.dtype;
  if (s.token_dtype != ScalarType::kLong && s.token_dtype != ScalarType::kInt)
    return fail(std::string("tokens are ") + dtype_name(s.token_dtype) + ", expected int64 or int32");
  s.max_tokens = tok.tensor.sizes[1];
  s.dynamic_tokens = tok.tensor.dynamism != ShapeDynamism::kStatic;
  if (s.max_tokens < 1) return fail("tokens hold no token");
  s.has_position = meta.inputs.size() == 2;
  if (s.has_position) {
    const ValueMeta& pos = meta.inputs[1];
    if (pos.tag != ValueTag::kTensor || pos.tensor.sizes.size() != 1) return fail("input 1 is not a 1-D position tensor");
    s.position_dtype = pos.tensor.dtype;
    if (s.position_dtype != ScalarType::kLong && s.position_dtype != ScalarType::kInt)
      return fail(std::string("positions are ") + dtype_name(s.position_dtype) + ", expected int64 or int32");
    // ExecuTorch's runner tells the two apart the same way (populate_start_pos_or_cache_position).
    s.cache_position = pos.tensor.sizes[0] > 1;
  }
  const auto& out = meta.outputs[0].tensor;
  if (out.dtype != ScalarType::kFloat) return fail(std::string("logits are ") + dtype_name(out.dtype) + ", Wick samples float32 logits");
  if (out.sizes.size() != 2 && out.sizes.size() != 3) return fail("logits are neither [1, vocab] nor [1, S, vocab]");
  s.vocab = out.sizes.back();
  return s;
}

}  // namespace wick::llm
