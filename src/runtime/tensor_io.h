// Tensors in files: the fixtures' raw little-endian `.bin` files (dtype and shape
// given separately) and NumPy `.npy` files. Used by the CLI, the tests and tools.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/value.h"

namespace wick {

Result<Value> read_raw_tensor(const std::string& path, ScalarType dtype, const std::vector<int64_t>& shape);
Result<Value> read_npy(const std::string& path);
// "FILE:dtype:d0,d1,..." (raw bytes; an empty shape list means a 0-dim tensor) or "FILE.npy".
Result<Value> read_input_spec(const std::string& spec);
Status write_raw_tensor(const std::string& path, const Tensor& tensor);
// NumPy format 1.0, little-endian, C order: what read_npy() and numpy.load() read back.
Status write_npy(const std::string& path, const Tensor& tensor);
// Parses "4,64" (or "" for a scalar shape).
Result<std::vector<int64_t>> parse_shape(const std::string& text);

}  // namespace wick
