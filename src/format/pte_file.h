// The .pte container: the 8-byte flatbuffer preamble, the optional `eh00` extended
// header, the Program flatbuffer (verified), and the segments after it. Every offset
// and size read from the file is checked against the file before it is used.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "format/named_data.h"
#include "program_generated.h"

namespace wick {

struct ExtendedHeader {
  bool present = false;
  uint32_t length = 0;
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

class PteFile : public NamedDataMap {
 public:
  // Copies `bytes` into 16-byte aligned storage, then parses and verifies.
  static Result<std::shared_ptr<PteFile>> parse(std::span<const uint8_t> bytes, std::string name);
  static Result<std::shared_ptr<PteFile>> read(const std::string& path);

  const std::string& name() const { return name_; }
  std::span<const uint8_t> bytes() const { return data_.bytes(); }
  const ExtendedHeader& header() const { return header_; }
  const fb::Program& program() const { return *program_; }

  // Segment `index` as a view into the file.
  Result<std::span<const uint8_t>> segment(uint32_t index) const;
  // Constant buffer `index` (>0) of `nbytes`, from the constant segment or, in older
  // files, the inline `constant_buffer` table.
  Result<std::span<const uint8_t>> constant_data(uint32_t buffer_index, size_t nbytes) const;
  // Initial state of a mutable (planned) tensor, or an empty span if the file has none.
  Result<std::span<const uint8_t>> mutable_data(uint32_t buffer_index, size_t nbytes) const;
  // The processed blob of a delegate (inline or in a segment).
  Result<std::span<const uint8_t>> delegate_blob(const fb::BackendDelegate& delegate) const;
  size_t constant_segment_bytes() const;

  // NamedDataMap: the program's own named_data (Vulkan weights keyed by sha256).
  Result<std::span<const uint8_t>> get(std::string_view key) const override;
  std::vector<std::string> keys() const override;

 private:
  std::string name_;
  AlignedBuffer data_;
  ExtendedHeader header_;
  const fb::Program* program_ = nullptr;
};

// A .ptd file (FlatTensor, `FH01` header): named data only.
class PtdFile : public NamedDataMap {
 public:
  static Result<std::shared_ptr<PtdFile>> parse(std::span<const uint8_t> bytes, std::string name);
  Result<std::span<const uint8_t>> get(std::string_view key) const override;
  std::vector<std::string> keys() const override;

 private:
  std::string name_;
  AlignedBuffer data_;
  uint64_t segment_base_offset_ = 0;
  const void* root_ = nullptr;  // const ptd::FlatTensor*
};

Result<std::vector<uint8_t>> read_file_bytes(const std::string& path);

}  // namespace wick
