// libFuzzer target for the C API behind the JavaScript API (src/wasm/c_api.cpp, built
// natively without WebGPU): a hostile program, then hostile arguments to every call.
// Every answer must be a value: 0/-1/null with a message in wick_last_error(), or JSON
// that parses (a method name holding byte 0xFF once aborted the JSON writer). A crash,
// sanitizer report or trap here is a bug.
//
// The whole input is the program (so the fixtures' .pte files are seeds as they are);
// its last 8 bytes also steer how the inputs are set: dtype, shape and index changes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"
#include "wasm/c_api.h"

namespace {

// A JSON answer must parse; a null answer must come with an error message.
nlohmann::json checked_json(const char* text) {
  if (text == nullptr) {
    if (wick_last_error()[0] == '\0') __builtin_trap();  // failed without saying why
    return nullptr;
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) __builtin_trap();  // not JSON
  return j;
}

void check_failed(int rc) {
  if (rc == 0 && wick_last_error()[0] == '\0') __builtin_trap();
}

struct Steer {
  uint8_t b[8] = {};
  explicit Steer(const uint8_t* data, size_t size) {
    if (size >= 8) std::memcpy(b, data + size - 8, 8);
  }
};

// `kept`: the inputs' bytes, which the caller keeps until execute returns (c_api.h).
void set_inputs(int method, const nlohmann::json& inputs, const Steer& s, std::vector<std::vector<uint8_t>>& kept) {
  for (size_t i = 0; i < inputs.size() && i < 16; ++i) {
    nlohmann::json in = inputs[i];  // copies: operator[] on a const json is unchecked
    int index = static_cast<int>(i);
    if (s.b[0] & 0x10) index += static_cast<int8_t>(s.b[6]);  // a wrong or negative index
    if (!in.contains("tensor")) {
      check_failed(wick_method_set_scalar(method, index, s.b[7] % 5, s.b[5] * 0.5, s.b[4], -(s.b[3] & 1)));
      continue;
    }
    nlohmann::json t = in["tensor"];
    int dtype = 6;  // Float
    for (int d = 0; d < 64; ++d)
      if (wick::is_valid_scalar_type(d) && t["dtype"] == wick::dtype_name(static_cast<wick::ScalarType>(d))) dtype = d;
    if (s.b[0] & 0x01) dtype = static_cast<int8_t>(s.b[1]);  // any number, valid or not
    std::vector<int32_t> sizes;
    for (const auto& v : t["sizes"]) sizes.push_back(v.is_number_integer() ? v.get<int32_t>() : 1);
    if (s.b[0] & 0x02)
      for (size_t d = 0; d < sizes.size(); ++d) sizes[d] += static_cast<int8_t>(s.b[2 + d % 4]);
    if ((s.b[0] & 0x04) && !sizes.empty()) sizes.pop_back();
    if (s.b[0] & 0x08) sizes.push_back(s.b[3]);
    int rank = static_cast<int>(sizes.size());
    if (s.b[0] & 0x20) rank = static_cast<int8_t>(s.b[4]);  // a rank that does not match the array
    if (rank > static_cast<int>(sizes.size())) sizes.resize(static_cast<size_t>(rank), 1);
    // The data is always as long as nbytes says (the caller's side of the contract);
    // a shape that needs more than 16 MiB is given a short buffer, which must be refused.
    uint64_t nbytes = 64;
    if (wick::is_valid_scalar_type(dtype)) {
      std::vector<int64_t> shape(sizes.begin(), sizes.begin() + std::max(rank, 0));
      auto need = wick::checked_nbytes(static_cast<wick::ScalarType>(dtype), shape);
      if (need && *need <= (16u << 20)) nbytes = *need;
    }
    if (s.b[0] & 0x40) nbytes ^= 4;
    std::vector<uint8_t>& data = kept.emplace_back(nbytes, s.b[5]);
    check_failed(wick_method_set_tensor(method, index, dtype, sizes.data(), rank,
                                        data.empty() ? nullptr : data.data(), data.size()));
  }
}

void run_method(int program, const std::string& name, const Steer& s) {
  nlohmann::json meta = checked_json(wick_method_meta(program, name.c_str()));
  if (meta.is_null()) return;
  const int method = wick_method_load(program, name.c_str());
  check_failed(method);
  if (method == 0) return;
  for (int round = 0; round < 2; ++round) {  // a second execute reuses the method
    std::vector<std::vector<uint8_t>> kept;
    if (meta.contains("inputs") && meta["inputs"].is_array()) set_inputs(method, meta["inputs"], s, kept);
    const int outputs = wick_method_execute(method);
    kept.clear();  // execute dropped its views of them
    if (outputs < 0 && wick_last_error()[0] == '\0') __builtin_trap();
    for (int i = -1; i <= outputs; ++i) {  // one before and one past the end too
      nlohmann::json out = checked_json(wick_method_output(method, i));
      const void* data = wick_method_output_data(method, i);
      if (!out.is_null() && out.value("tag", "") == "Tensor" && out.value("nbytes", uint64_t{0}) > 0) {
        volatile uint8_t first = *static_cast<const uint8_t*>(data);  // must be readable
        (void)first;
      }
    }
  }
  wick_method_free(method);
  check_failed(wick_method_execute(method) < 0 ? 0 : 1);  // a freed handle is an error
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // As in pte_reader_fuzzer: mutated sizes should meet Wick's limit, not libFuzzer's.
  wick_set_memory_limits(16 << 20, 16 << 20);
  wick_use_backend(2, 0);  // VulkanBackend delegates on the CPU executor
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Steer steer(data, size);
  const int program = wick_program_load(data, size, "fuzz.pte");
  check_failed(program);
  if (program == 0) return 0;
  nlohmann::json names = checked_json(wick_program_method_names(program));
  if (!names.is_array()) __builtin_trap();
  for (size_t i = 0; i < names.size() && i < 4; ++i) run_method(program, names[i].get<std::string>(), steer);
  checked_json(wick_method_meta(program, "no such method"));
  checked_json(wick_method_meta(program, nullptr));
  wick_program_free(program);
  checked_json(wick_program_method_names(program));  // freed: an error, not a crash
  return 0;
}
