// VK00 operator name -> declaration. Each family declares its operators in a table
// (ops/<family>/register.cpp), one line per operator: name, argument schema, builder and,
// where one builder serves several operators, a variant code. The schema language and the
// builders' view of the arguments are in ops/op_kit.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/status.h"

namespace wick::webgpu {

class Graph;
class OpArgs;

// A builder reads its checked arguments and records the op's dispatches and steps.
using OpBody = Status (*)(Graph& graph, const OpArgs& args);

struct OpEntry {
  const char* name;    // "aten.add.Tensor", as the VK00 chain spells it
  const char* schema;  // "T T F -> T": see ops/op_kit.h
  OpBody build;
  uint32_t variant = 0;  // OpArgs::variant(): which of the builder's operators this is

  constexpr OpEntry(const char* n, const char* s, OpBody b) : name(n), schema(s), build(b) {}
  template <class V>
    requires std::is_enum_v<V> || std::is_integral_v<V>
  constexpr OpEntry(const char* n, const char* s, OpBody b, V v)
      : name(n), schema(s), build(b), variant(static_cast<uint32_t>(v)) {}
};

// What Graph calls for an operator: checks the call's value ids against the schema (the
// error names the op, the argument and what it expected), then runs the builder.
class OpBuilder {
 public:
  constexpr OpBuilder(std::nullptr_t = nullptr) {}
  explicit OpBuilder(const OpEntry* entry) : entry_(entry) {}
  // args: the OperatorCall's value ids (schema arguments in order, then the outputs).
  Status operator()(Graph& graph, const std::vector<int32_t>& args) const;
  bool operator==(std::nullptr_t) const { return entry_ == nullptr; }
  const OpEntry* entry() const { return entry_; }

 private:
  const OpEntry* entry_ = nullptr;
};

const std::vector<OpEntry>& all_ops();
OpBuilder find_op(std::string_view name);

}  // namespace wick::webgpu
