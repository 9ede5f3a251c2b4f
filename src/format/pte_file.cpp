#include "format/pte_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "flat_tensor_generated.h"
#include "format/vector_alignment.h"

namespace wick {

namespace {

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // the format is little-endian, as is every host Wick targets
}
uint64_t read_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// True when [offset, offset + size) lies inside [0, limit), without overflow.
bool range_ok(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

Status invalid(const std::string& file, const std::string& what) {
  return Status(ErrorCode::kInvalidProgram, file + ": " + what);
}

// Flatbuffers' verifier limits: generous for real models, bounded for hostile input.
flatbuffers::Verifier::Options verifier_options() {
  flatbuffers::Verifier::Options o;
  o.max_depth = 128;
  o.max_tables = 100000000;
  o.check_alignment = true;
  return o;
}

// Every vector of 8-byte scalars in the program (see format/vector_alignment.h), so that
// no reader meets a misaligned one later.
Status check_vector_alignment(const fb::Program& program, const std::string& file) {
  auto misaligned = [&](const std::string& what) {
    return invalid(file, what + " is not 8-byte aligned (corrupt offset)");
  };
  if (program.constant_segment() && !elements_aligned(program.constant_segment()->offsets()))
    return misaligned("constant_segment.offsets");
  if (const auto* mds = program.mutable_data_segments())
    for (const fb::SubsegmentOffsets* md : *mds)
      if (md && !elements_aligned(md->offsets())) return misaligned("mutable_data_segments offsets");
  for (const fb::ExecutionPlan* plan : *program.execution_plan()) {
    if (plan == nullptr) continue;
    const std::string where = "method '" + (plan->name() ? plan->name()->str() : std::string("?")) + "': ";
    if (!elements_aligned(plan->non_const_buffer_sizes())) return misaligned(where + "non_const_buffer_sizes");
    if (plan->values() == nullptr) continue;
    for (flatbuffers::uoffset_t i = 0; i < plan->values()->size(); ++i) {
      const fb::EValue* ev = plan->values()->Get(i);
      if (ev == nullptr) continue;
      const auto* ints = ev->val_as_IntList();
      const auto* doubles = ev->val_as_DoubleList();
      if ((ints && !elements_aligned(ints->items())) || (doubles && !elements_aligned(doubles->items())))
        return misaligned(where + "the list of value " + std::to_string(i));
    }
  }
  return {};
}

}  // namespace

Result<std::vector<uint8_t>> read_file_bytes(const std::string& path) {
  // Ask the file system first: an ifstream opens a directory on Linux, reports a huge size,
  // and the allocation below then throws std::bad_alloc instead of saying what is wrong.
  std::error_code ec;
  std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found)
    return Status(ErrorCode::kNotFound, path + ": cannot open file: no such file");
  if (st.type() == std::filesystem::file_type::directory)
    return Status(ErrorCode::kInvalidArgument, path + ": is a directory, expected a file");
  if (ec) return Status(ErrorCode::kInvalidArgument, path + ": " + ec.message());
  if (st.type() != std::filesystem::file_type::regular)
    return Status(ErrorCode::kInvalidArgument, path + ": not a regular file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    int err = errno;
    return Status(err == EACCES ? ErrorCode::kInvalidArgument : ErrorCode::kNotFound,
                  path + (err == EACCES ? ": cannot open file: permission denied" : ": cannot open file"));
  }
  std::streamoff size = in.tellg();
  if (size < 0) return Status(ErrorCode::kInvalidArgument, path + ": cannot read file size");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size))
    return Status(ErrorCode::kInvalidArgument, path + ": read failed");
  return bytes;
}

Result<std::shared_ptr<PteFile>> PteFile::read(const std::string& path) {
  WICK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file_bytes(path));
  return parse(bytes, path);
}

Result<std::shared_ptr<PteFile>> PteFile::parse(std::span<const uint8_t> bytes, std::string name) {
  auto file = std::shared_ptr<PteFile>(new PteFile());
  file->name_ = std::move(name);
  const std::string& fname = file->name_;
  if (bytes.size() < 8)
    return invalid(fname, "file is " + std::to_string(bytes.size()) + " bytes, too small for a .pte header");
  if (std::memcmp(bytes.data() + 4, "ET12", 4) != 0) {
    if (bytes[4] == 'E' && bytes[5] == 'T')
      return Status(ErrorCode::kNotSupported,
                    fname + ": program identifier '" + std::string(bytes.begin() + 4, bytes.begin() + 8) +
                        "' is an incompatible version (Wick reads ET12)");
    return invalid(fname, "not a .pte file: bytes 4..7 are not the identifier 'ET12'");
  }
  WICK_ASSIGN_OR_RETURN(file->data_, AlignedBuffer::allocate(bytes.size(), fname + ": a copy of the file"));
  std::memcpy(file->data_.data(), bytes.data(), bytes.size());
  const uint8_t* d = file->data_.data();
  const uint64_t size = bytes.size();

  ExtendedHeader& h = file->header_;
  h.program_size = size;
  if (size >= 12 && std::memcmp(d + 8, "eh00", 4) == 0) {
    if (size < 8 + 24) return invalid(fname, "extended header 'eh00' is truncated");
    h.present = true;
    h.length = read_u32(d + 12);
    if (h.length < 24) return invalid(fname, "extended header length " + std::to_string(h.length) + " < 24");
    if (!range_ok(8, h.length, size)) return invalid(fname, "extended header runs past the end of the file");
    h.program_size = read_u64(d + 16);
    h.segment_base_offset = read_u64(d + 24);
    h.segment_data_size = h.length >= 32 ? read_u64(d + 32) : 0;
    if (h.program_size > size || h.program_size < 8 + h.length)
      return invalid(fname, "extended header program_size " + std::to_string(h.program_size) +
                                " is outside the file (" + std::to_string(size) + " bytes)");
    if (h.segment_base_offset != 0 && h.segment_base_offset < h.program_size)
      return invalid(fname, "segment_base_offset " + std::to_string(h.segment_base_offset) +
                                " lies inside the program flatbuffer");
    uint64_t base = h.segment_base_offset == 0 ? h.program_size : h.segment_base_offset;
    if (!range_ok(base, h.segment_data_size, size))
      return invalid(fname, "segment data (" + std::to_string(h.segment_data_size) + " bytes at " +
                                std::to_string(base) + ") runs past the end of the file (" +
                                std::to_string(size) + " bytes): truncated?");
  }

  flatbuffers::Verifier verifier(d, static_cast<size_t>(h.program_size), verifier_options());
  if (!fb::VerifyProgramBuffer(verifier))
    return invalid(fname, "program flatbuffer failed verification (corrupt or truncated)");
  file->program_ = fb::GetProgram(d);
  if (file->program_->execution_plan() == nullptr)
    return invalid(fname, "program has no execution_plan table");
  WICK_RETURN_IF_ERROR(check_vector_alignment(*file->program_, fname));
  return file;
}

Result<std::span<const uint8_t>> PteFile::segment(uint32_t index) const {
  const auto* segs = program_->segments();
  if (segs == nullptr || index >= segs->size())
    return invalid(name_, "segment index " + std::to_string(index) + " out of range (" +
                              std::to_string(segs ? segs->size() : 0) + " segments)");
  const fb::DataSegment* seg = segs->Get(index);
  if (seg == nullptr) return invalid(name_, "segment " + std::to_string(index) + " is null");
  if (seg->size() == 0) return std::span<const uint8_t>();
  if (!header_.present)
    return invalid(name_, "segment " + std::to_string(index) + " has data but the file has no extended header");
  uint64_t base = header_.segment_base_offset;
  // Pre-1.0 headers (length 24) carry no segment_data_size: the data runs to the end.
  uint64_t limit = header_.segment_data_size != 0 || header_.length >= 32
                       ? header_.segment_data_size
                       : (base <= data_.size() ? data_.size() - base : 0);
  if (!range_ok(seg->offset(), seg->size(), limit) ||
      !range_ok(base + seg->offset(), seg->size(), data_.size()))
    return invalid(name_, "segment " + std::to_string(index) + " (offset " + std::to_string(seg->offset()) +
                              ", " + std::to_string(seg->size()) + " bytes) runs past the segment data");
  return std::span<const uint8_t>(data_.data() + base + seg->offset(), static_cast<size_t>(seg->size()));
}

size_t PteFile::constant_segment_bytes() const {
  const auto* cs = program_->constant_segment();
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    auto seg = segment(cs->segment_index());
    return seg.ok() ? seg->size() : 0;
  }
  size_t total = 0;
  if (const auto* cb = program_->constant_buffer())
    for (const auto* b : *cb)
      if (b && b->storage()) total += b->storage()->size();
  return total;
}

Result<std::span<const uint8_t>> PteFile::constant_data(uint32_t buffer_index, size_t nbytes) const {
  const auto* cs = program_->constant_segment();
  const std::string where = "constant buffer " + std::to_string(buffer_index);
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    if (buffer_index >= cs->offsets()->size())
      return invalid(name_, where + " out of range (" + std::to_string(cs->offsets()->size()) + " offsets)");
    WICK_ASSIGN_OR_RETURN(auto seg, segment(cs->segment_index()));
    uint64_t off = cs->offsets()->Get(buffer_index);
    if (!range_ok(off, nbytes, seg.size()))
      return invalid(name_, where + " (" + std::to_string(nbytes) + " bytes at " + std::to_string(off) +
                                ") runs past the constant segment (" + std::to_string(seg.size()) + " bytes)");
    return seg.subspan(static_cast<size_t>(off), nbytes);
  }
  const auto* cb = program_->constant_buffer();
  if (cb == nullptr || buffer_index >= cb->size())
    return invalid(name_, where + " not found: no constant segment and " +
                              std::to_string(cb ? cb->size() : 0) + " inline buffers");
  const fb::Buffer* b = cb->Get(buffer_index);
  if (b == nullptr || b->storage() == nullptr || b->storage()->size() < nbytes)
    return invalid(name_, where + " holds fewer than " + std::to_string(nbytes) + " bytes");
  return std::span<const uint8_t>(b->storage()->data(), nbytes);
}

Result<std::span<const uint8_t>> PteFile::mutable_data(uint32_t buffer_index, size_t nbytes) const {
  const auto* mds = program_->mutable_data_segments();
  if (mds == nullptr || mds->size() == 0) return std::span<const uint8_t>();
  const fb::SubsegmentOffsets* md = mds->Get(0);
  const std::string where = "mutable data buffer " + std::to_string(buffer_index);
  if (md == nullptr || md->offsets() == nullptr || buffer_index >= md->offsets()->size())
    return invalid(name_, where + " out of range");
  WICK_ASSIGN_OR_RETURN(auto seg, segment(md->segment_index()));
  uint64_t off = md->offsets()->Get(buffer_index);
  if (!range_ok(off, nbytes, seg.size())) return invalid(name_, where + " runs past its segment");
  return seg.subspan(static_cast<size_t>(off), nbytes);
}

Result<std::span<const uint8_t>> PteFile::delegate_blob(const fb::BackendDelegate& delegate) const {
  const fb::BackendDelegateDataReference* ref = delegate.processed();
  std::string id = delegate.id() ? delegate.id()->str() : "?";
  if (ref == nullptr) return invalid(name_, "delegate '" + id + "' has no processed data reference");
  if (ref->location() == fb::DataLocation::SEGMENT) {
    auto seg = segment(ref->index());
    if (!seg.ok()) return seg.status().with_context("delegate '" + id + "'");
    return seg;
  }
  const auto* inl = program_->backend_delegate_data();
  if (inl == nullptr || ref->index() >= inl->size())
    return invalid(name_, "delegate '" + id + "' inline data index " + std::to_string(ref->index()) + " out of range");
  const fb::BackendDelegateInlineData* blob = inl->Get(ref->index());
  if (blob == nullptr || blob->data() == nullptr) return std::span<const uint8_t>();
  return std::span<const uint8_t>(blob->data()->data(), blob->data()->size());
}

Result<std::span<const uint8_t>> PteFile::get(std::string_view key) const {
  if (const auto* nd = program_->named_data()) {
    for (const fb::NamedData* entry : *nd) {
      if (entry == nullptr || entry->key() == nullptr || entry->key()->string_view() != key) continue;
      auto seg = segment(entry->segment_index());
      if (!seg.ok()) return seg.status().with_context("named data '" + std::string(key) + "'");
      return seg;
    }
  }
  return Status(ErrorCode::kNotFound, name_ + ": no named data with key '" + std::string(key) + "'");
}

std::vector<std::string> PteFile::keys() const {
  std::vector<std::string> out;
  if (const auto* nd = program_->named_data())
    for (const fb::NamedData* entry : *nd)
      if (entry && entry->key()) out.push_back(entry->key()->str());
  return out;
}

// ---- .ptd ----

Result<std::shared_ptr<PtdFile>> PtdFile::parse(std::span<const uint8_t> bytes, std::string name) {
  auto file = std::shared_ptr<PtdFile>(new PtdFile());
  file->name_ = std::move(name);
  const std::string& fname = file->name_;
  if (bytes.size() < 48) return invalid(fname, "file is too small for a .ptd header");
  if (std::memcmp(bytes.data() + 4, "FT01", 4) != 0)
    return invalid(fname, "not a .ptd file: bytes 4..7 are not the identifier 'FT01'");
  if (std::memcmp(bytes.data() + 8, "FH01", 4) != 0) return invalid(fname, "missing the 'FH01' header");
  WICK_ASSIGN_OR_RETURN(file->data_, AlignedBuffer::allocate(bytes.size(), fname + ": a copy of the file"));
  std::memcpy(file->data_.data(), bytes.data(), bytes.size());
  const uint8_t* d = file->data_.data();
  uint32_t length = read_u32(d + 12);
  if (length < 40) return invalid(fname, "FH01 header length " + std::to_string(length) + " < 40");
  uint64_t fb_offset = read_u64(d + 16);
  uint64_t fb_size = read_u64(d + 24);
  file->segment_base_offset_ = read_u64(d + 32);
  uint64_t seg_size = read_u64(d + 40);
  if (!range_ok(fb_offset, fb_size, bytes.size()))
    return invalid(fname, "flatbuffer region runs past the end of the file");
  if (!range_ok(file->segment_base_offset_, seg_size, bytes.size()))
    return invalid(fname, "segment data runs past the end of the file: truncated?");
  size_t region = static_cast<size_t>(fb_offset + fb_size);
  flatbuffers::Verifier verifier(d, region, verifier_options());
  if (!ptd::VerifyFlatTensorBuffer(verifier)) return invalid(fname, "FlatTensor flatbuffer failed verification");
  file->root_ = ptd::GetFlatTensor(d);
  return file;
}

Result<std::span<const uint8_t>> PtdFile::get(std::string_view key) const {
  const auto* root = static_cast<const ptd::FlatTensor*>(root_);
  const auto* segs = root->segments();
  if (const auto* nd = root->named_data()) {
    for (const ptd::NamedData* entry : *nd) {
      if (entry == nullptr || entry->key() == nullptr || entry->key()->string_view() != key) continue;
      if (segs == nullptr || entry->segment_index() >= segs->size())
        return invalid(name_, "named data '" + std::string(key) + "' points at a missing segment");
      const ptd::DataSegment* seg = segs->Get(entry->segment_index());
      if (seg == nullptr || !range_ok(segment_base_offset_ + seg->offset(), seg->size(), data_.size()) ||
          seg->offset() > data_.size())
        return invalid(name_, "named data '" + std::string(key) + "' runs past the end of the file");
      return std::span<const uint8_t>(data_.data() + segment_base_offset_ + seg->offset(),
                                      static_cast<size_t>(seg->size()));
    }
  }
  return Status(ErrorCode::kNotFound, name_ + ": no named data with key '" + std::string(key) + "'");
}

std::vector<std::string> PtdFile::keys() const {
  std::vector<std::string> out;
  const auto* root = static_cast<const ptd::FlatTensor*>(root_);
  if (const auto* nd = root->named_data())
    for (const ptd::NamedData* entry : *nd)
      if (entry && entry->key()) out.push_back(entry->key()->str());
  return out;
}

}  // namespace wick
