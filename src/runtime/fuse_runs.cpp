// Fusing runs of delegate calls across host operators (see FusedRun in backend.h).
#include <cstdlib>
#include <cstring>
#include <cstdio>

#include "runtime/method_impl.h"

namespace wick {

namespace {

bool fusion_disabled() {
  const char* v = std::getenv("WICK_FUSE_DELEGATES");
  return v != nullptr && std::strcmp(v, "0") == 0;
}

// How often each value index appears in the method: instruction arguments, move ends,
// jump conditions, frees, and the method's outputs.
std::vector<int> count_references(const Method::Impl& m) {
  std::vector<int> refs(m.values.values.size(), 0);
  auto add = [&](int32_t v) {
    if (v >= 0 && static_cast<size_t>(v) < refs.size()) ++refs[static_cast<size_t>(v)];
  };
  for (const auto& chain : m.chains)
    for (const Instruction& in : chain) {
      for (int32_t v : in.args) add(v);
      if (in.kind == Instruction::kMove) add(in.a), add(in.b);
      if (in.kind == Instruction::kJumpFalse || in.kind == Instruction::kFree) add(in.a);
    }
  for (int32_t v : m.outputs) add(v);
  return refs;
}

struct Run {
  size_t first = 0, last = 0;  // instruction positions, both delegate calls
  Backend* backend = nullptr;
};

// The longest run starting at chain[i]: calls of `backend`'s delegates (each called only
// here) and operators it runs, ending with a delegate call; nullopt for fewer than two.
std::optional<Run> run_at(const std::vector<Instruction>& chain, size_t i, const std::vector<int>& calls,
                          std::span<const std::shared_ptr<Backend>> backends) {
  auto fusable_call = [&](const Instruction& in, const Backend* b) {
    if (in.kind != Instruction::kDelegate || in.a < 0 || static_cast<size_t>(in.a) >= backends.size()) return false;
    const size_t d = static_cast<size_t>(in.a);
    return calls[d] == 1 && backends[d] != nullptr && (b == nullptr || backends[d].get() == b);
  };
  if (!fusable_call(chain[i], nullptr)) return std::nullopt;
  Run run{i, i, backends[static_cast<size_t>(chain[i].a)].get()};
  int delegates = 1;
  for (size_t k = i + 1; k < chain.size(); ++k) {
    const Instruction& in = chain[k];
    if (fusable_call(in, run.backend)) {
      run.last = k;
      ++delegates;
    } else if (!(in.kind == Instruction::kKernel && run.backend->runs_operator(in.name))) {
      break;
    }
  }
  if (delegates < 2) return std::nullopt;
  return run;
}

}  // namespace

FusedRuns fuse_delegate_runs(Method::Impl& m, std::span<const DelegateInitContext> contexts,
                             std::span<const std::shared_ptr<Backend>> backends) {
  FusedRuns result;
  result.replaced.assign(contexts.size(), false);
  if (fusion_disabled()) return result;
  std::vector<int> calls(contexts.size(), 0);
  for (const auto& chain : m.chains)
    for (const Instruction& in : chain)
      if (in.kind == Instruction::kDelegate && in.a >= 0 && static_cast<size_t>(in.a) < calls.size())
        ++calls[static_cast<size_t>(in.a)];
  const std::vector<int> refs = count_references(m);
  std::vector<bool> is_output(m.values.values.size(), false);
  for (int32_t v : m.outputs) is_output[static_cast<size_t>(v)] = true;

  for (auto& chain : m.chains) {
    // Jump destinations are instruction positions: a chain with jumps is left as it is.
    bool has_jumps = false;
    for (const Instruction& in : chain) has_jumps |= in.kind == Instruction::kJumpFalse;
    if (has_jumps) continue;
    std::vector<Instruction> rewritten;
    for (size_t i = 0; i < chain.size();) {
      std::optional<Run> run = run_at(chain, i, calls, backends);
      if (!run) {
        rewritten.push_back(std::move(chain[i++]));
        continue;
      }
      FusedRun fr;
      fr.values = &m.values;
      std::vector<int> inside(m.values.values.size(), 0);
      std::string fused_ids;
      int host_ops = 0;
      for (size_t k = run->first; k <= run->last; ++k) {
        const Instruction& in = chain[k];
        FusedRunPart part;
        part.args = in.args;
        if (in.kind == Instruction::kDelegate) {
          part.delegate = static_cast<int>(fr.delegates.size());
          fr.delegates.push_back(contexts[static_cast<size_t>(in.a)]);
          fused_ids += (fused_ids.empty() ? "" : " ") + std::to_string(in.a);
        } else {
          part.op = in.name;
          ++host_ops;
        }
        for (int32_t v : in.args) ++inside[static_cast<size_t>(v)];
        fr.parts.push_back(std::move(part));
      }
      fr.read_after.resize(m.values.values.size());
      for (size_t v = 0; v < fr.read_after.size(); ++v) fr.read_after[v] = is_output[v] || refs[v] > inside[v];
      auto fused = run->backend->init_fused(fr);
      if (!fused.ok()) {  // the backend declined: the run stays as the program has it
        if (std::getenv("WICK_FUSE_DEBUG")) fprintf(stderr, "fuse declined: %s\n", fused.status().to_string().c_str());
        for (size_t k = run->first; k <= run->last; ++k) rewritten.push_back(std::move(chain[k]));
        i = run->last + 1;
        continue;
      }
      for (size_t k = run->first; k <= run->last; ++k)
        if (chain[k].kind == Instruction::kDelegate) result.replaced[static_cast<size_t>(chain[k].a)] = true;
      Instruction call;
      call.kind = Instruction::kDelegate;
      call.a = static_cast<int32_t>(contexts.size() + result.instances.size());
      call.args = std::move(fused->args);
      // "delegate N" first, as every delegate call's name (profiles key on it).
      call.name = "delegate " + std::to_string(call.a) + " (fused " + fused_ids + " + " + std::to_string(host_ops) +
                  " host op" + (host_ops == 1 ? "" : "s") + ")";
      result.instances.push_back(std::move(fused->instance));
      rewritten.push_back(std::move(call));
      i = run->last + 1;
    }
    chain = std::move(rewritten);
  }
  return result;
}

}  // namespace wick
