// Mutating a real .pte in a test: find a field of its program flatbuffer by walking the
// parsed file, then overwrite that field in a copy of the bytes. Tests of hostile input
// use this to build each broken file from a fixture, at the field that matters.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "format/pte_file.h"
#include "runtime/program.h"
#include "test_util.h"

namespace wick::test {

struct PtePatch {
  std::vector<uint8_t> bytes;
  std::shared_ptr<PteFile> file;  // parsed copy of the original bytes, to find fields by address

  explicit PtePatch(const std::string& rel) {
    auto r = read_file_bytes(fixtures_dir() + "/" + rel);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (r.ok()) bytes = *r;
    auto f = PteFile::parse(bytes, rel);
    EXPECT_TRUE(f.ok()) << f.status().to_string();
    if (f.ok()) file = *f;
  }
  const fb::ExecutionPlan& plan() const { return *file->program().execution_plan()->Get(0); }
  const fb::EValue& value(flatbuffers::uoffset_t index) const { return *plan().values()->Get(index); }
  const fb::Tensor& tensor(flatbuffers::uoffset_t index) const { return *value(index).val_as_Tensor(); }
  // Offset in `bytes` of a pointer into the parsed copy.
  size_t at(const void* p) const { return static_cast<const uint8_t*>(p) - file->bytes().data(); }
  // Offset of a table's field, or 0 when the field is not stored (it holds its default).
  size_t field(const void* table, flatbuffers::voffset_t vt) const {
    const uint8_t* p = reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(vt);
    return p ? at(p) : 0;
  }
  // Offset of the int_val of Int value `index`, or 0 when it is the default 0.
  size_t int_field(flatbuffers::uoffset_t index) const {
    return field(value(index).val_as_Int(), fb::Int::VT_INT_VAL);
  }
  template <class T>
  void put(size_t offset, T v) {
    ASSERT_NE(offset, 0u) << "patching a field that is not stored";
    std::memcpy(bytes.data() + offset, &v, sizeof v);
  }
  // A copy of the bytes with `v` at `offset`.
  template <class T>
  std::vector<uint8_t> with(size_t offset, T v) const {
    std::vector<uint8_t> b = bytes;
    std::memcpy(b.data() + offset, &v, sizeof v);
    return b;
  }
};

// What the fuzzer does with a file: load it, load each method (within `limits`) and run it
// on zero inputs of the declared shapes. Returns the first error.
inline Status load_and_run(std::span<const uint8_t> bytes, const MemoryLimits& limits = {}) {
  auto program = Program::load_bytes(bytes, "mutated.pte");
  if (!program.ok()) return program.status();
  for (const std::string& name : (*program)->method_names()) {
    auto meta = (*program)->method_meta(name);
    if (!meta.ok()) return meta.status();
    auto method = (*program)->load_method(name, limits);
    if (!method.ok()) return method.status();
    std::vector<Value> inputs;
    for (const auto& in : meta->inputs) {
      if (in.tag != ValueTag::kTensor) return Status(ErrorCode::kNotSupported, "non-tensor input");
      inputs.push_back(Value::make_tensor(Tensor::make_owned(in.tensor.dtype, in.tensor.sizes)));
    }
    auto out = (*method)->forward(inputs);
    if (!out.ok()) return out.status();
  }
  return {};
}

// An error of `code` whose message contains every one of `words`.
inline ::testing::AssertionResult fails_naming(const Status& s, ErrorCode code, const std::vector<std::string>& words) {
  if (s.ok()) return ::testing::AssertionFailure() << "was accepted";
  if (s.code() != code) return ::testing::AssertionFailure() << "wrong code: " << s.to_string();
  for (const std::string& w : words)
    if (s.message().find(w) == std::string::npos)
      return ::testing::AssertionFailure() << "'" << w << "' not in: " << s.to_string();
  return ::testing::AssertionSuccess();
}

}  // namespace wick::test
