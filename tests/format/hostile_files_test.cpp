// Regression tests for what the ASan/UBSan run and the fuzzer found: real fixtures,
// mutated in code at the field that matters, must fail with an error that names what is
// wrong, never with undefined behaviour or an absurd allocation. Each test says which
// finding it pins down.
#include <gtest/gtest.h>

#include <cstring>

#include "pte_patch.h"

namespace wick {
namespace {

using test::fails_naming;
using test::load_and_run;
using Pte = test::PtePatch;

// samples/apple_add.pte: no extended header, so the program flatbuffer is the whole file
// and bytes appended to it are inside the verified buffer. Planned buffer 1 is 48 bytes;
// x, y and the output are floats at offsets 0, 16 and 32 of it.
constexpr const char* kAppleAdd = "samples/apple_add.pte";

// Appends the vector [0, 48] (the file's own non_const_buffer_sizes) at an address
// that is 8-byte aligned or not, and points the field at it.
std::vector<uint8_t> move_buffer_sizes(bool misaligned) {
  Pte pte(kAppleAdd);
  const size_t field = pte.field(&pte.plan(), fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES);
  std::vector<uint8_t> b = pte.bytes;
  // The length word sits 4 bytes before the elements, which go at 8k (or 8k + 4).
  size_t elements = (b.size() + 4 + 7) / 8 * 8 + (misaligned ? 4 : 0);
  b.resize(elements + 16, 0);
  uint32_t length = 2;
  int64_t sizes[2] = {0, 48};
  std::memcpy(b.data() + elements - 4, &length, 4);
  std::memcpy(b.data() + elements, sizes, 16);
  uint32_t rel = static_cast<uint32_t>(elements - 4 - field);  // uoffset: from the field itself
  std::memcpy(b.data() + field, &rel, 4);
  return b;
}

// ASan/UBSan run, Corrupt.ByteFlipsNeverCrash: a flipped offset left non_const_buffer_sizes
// at 4 mod 8; the flatbuffers verifier accepted it and reading it was a misaligned int64
// load. The reader now checks every 8-byte vector (format/vector_alignment.h).
TEST(HostileFiles, MisalignedInt64VectorIsAnError) {
  std::vector<uint8_t> aligned = move_buffer_sizes(false);
  ASSERT_TRUE(load_and_run(aligned).ok()) << "the relocation itself must keep the file valid";
  auto program = Program::load_bytes(move_buffer_sizes(true), "mutated.pte");
  EXPECT_TRUE(fails_naming(program.status(), ErrorCode::kInvalidProgram, {"non_const_buffer_sizes", "8-byte aligned"}));
}

// Fuzzer, first finding: malloc(17179875840) from a planned buffer size in the file. The
// size is now checked against MemoryLimits::max_planned_bytes before the arena exists.
TEST(HostileFiles, HugePlannedBufferIsRefusedBeforeAllocating) {
  Pte pte(kAppleAdd);
  const auto* sizes = pte.plan().non_const_buffer_sizes();
  pte.put<int64_t>(pte.at(sizes->data() + 1), 17179875840);
  auto program = Program::load_bytes(pte.bytes, "mutated.pte");
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto meta = (*program)->method_meta("forward");  // describing it allocates nothing
  ASSERT_TRUE(meta.ok()) << meta.status().to_string();
  EXPECT_EQ(meta->planned_buffer_sizes, std::vector<int64_t>{17179875840});
  auto method = (*program)->load_method("forward");
  EXPECT_TRUE(fails_naming(method.status(), ErrorCode::kOutOfResources,
                           {"method 'forward'", "planned memory", "17179875840", "max_planned_bytes"}));
}

// The limits are the caller's: low ones refuse the intact file, naming the limit.
TEST(HostileFiles, MemoryLimitsAreConfigurable) {
  Pte pte(kAppleAdd);
  ASSERT_TRUE(load_and_run(pte.bytes).ok());
  MemoryLimits planned;
  planned.max_planned_bytes = 47;
  EXPECT_TRUE(fails_naming(load_and_run(pte.bytes, planned), ErrorCode::kOutOfResources,
                           {"48 bytes, over the limit of 47", "max_planned_bytes"}));
  MemoryLimits io;
  io.max_io_bytes = 7;  // two float inputs
  EXPECT_TRUE(fails_naming(load_and_run(pte.bytes, io), ErrorCode::kOutOfResources,
                           {"tensor inputs", "8 bytes, over the limit of 7", "max_io_bytes"}));
  io.max_io_bytes = 8;
  EXPECT_TRUE(load_and_run(pte.bytes, io).ok());
}

// A planned offset that is not a multiple of the element size: kernels would read floats
// through a misaligned pointer. Exporters align planned tensors to 16.
TEST(HostileFiles, MisalignedPlannedTensorIsAnError) {
  Pte pte(kAppleAdd);
  const fb::AllocationDetails* alloc = pte.tensor(1).allocation_info();
  pte.put<uint32_t>(pte.field(alloc, fb::AllocationDetails::VT_MEMORY_OFFSET_LOW), 17);
  EXPECT_TRUE(fails_naming(load_and_run(pte.bytes), ErrorCode::kInvalidProgram,
                           {"value 1", "offset 17 in planned buffer 1", "not aligned", "float32"}));
}

}  // namespace
}  // namespace wick
