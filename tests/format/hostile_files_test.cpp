// Regression tests for what the ASan/UBSan run and the fuzzer found: real fixtures,
// mutated in code at the field that matters, must fail with an error that names what is
// wrong, never with undefined behaviour or an absurd allocation. Each test says which
// finding it pins down.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/tensor.h"
#include "pte_patch.h"
#include "vkgraph/vk_plan.h"

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

// The VH00 blob of a fixture, copied into `storage` (8-byte aligned) with `extra` zero
// bytes appended to its flatbuffer region and then, 16-byte aligned, a raw constant region
// of `raw` zero bytes (the header's offsets and sizes say so).
struct VulkanBlob {
  uint32_t fb_offset = 0, fb_size = 0, bytes_offset = 0;
  AlignedBuffer storage;
  uint8_t* data() { return storage.data(); }
};
VulkanBlob copy_vulkan_blob(const std::string& fixture, uint32_t extra, uint64_t raw = 0) {
  Pte pte(fixture);
  const std::string magic = "VH00";
  auto at = std::search(pte.bytes.begin(), pte.bytes.end(), magic.begin(), magic.end());
  EXPECT_NE(at, pte.bytes.end()) << fixture << " has no VH00 blob";
  const uint8_t* blob = &*at - 4;
  VulkanBlob out;
  std::memcpy(&out.fb_offset, blob + 10, 4);
  std::memcpy(&out.fb_size, blob + 14, 4);
  std::memcpy(&out.bytes_offset, blob + 18, 4);
  uint64_t bytes_size;
  std::memcpy(&bytes_size, blob + 22, 8);
  EXPECT_EQ(bytes_size, 0u) << fixture << ": these fixtures keep their constants in named data";
  // Exporters pad the flatbuffer to 16 bytes; the padding stays part of the copy.
  const uint32_t fb_end = out.bytes_offset;
  out.fb_size = fb_end - out.fb_offset;
  out.fb_size += extra;
  out.bytes_offset = (fb_end + extra + 15) / 16 * 16;
  out.storage = std::move(*AlignedBuffer::allocate(out.bytes_offset + raw));
  std::memcpy(out.data(), blob, fb_end);
  std::memcpy(out.data() + 14, &out.fb_size, 4);
  std::memcpy(out.data() + 18, &out.bytes_offset, 4);
  std::memcpy(out.data() + 22, &raw, 8);
  return out;
}

// Fuzzer (c_api_fuzzer): an IntList whose items offset was changed so that its int64
// elements sat at 4 mod 8. The verifier checks only the length word's alignment, and the
// reader then loaded the elements through an int64_t*. The reader now copies them out
// bytewise: here ops/permute's dims list, moved to 4 mod 8, reads as it did in place (the
// ASan/UBSan run of this test is where a misaligned load would stop it).
TEST(HostileFiles, MisalignedVulkanIntListReadsTheSame) {
  auto original = vkgraph::read_plan(copy_vulkan_blob("ops/permute/model.pte", 0).storage.bytes(), nullptr);
  ASSERT_TRUE(original.ok()) << original.status().to_string();
  size_t list = 0;
  while (list < original->values.size() && original->values[list].kind != vkgraph::ValueKind::kIntList) ++list;
  ASSERT_LT(list, original->values.size()) << "ops/permute has no IntList";
  const std::vector<int64_t>& dims = original->values[list].ints;
  ASSERT_GE(dims.size(), 2u);

  const uint32_t extra = 8 + 4 + 8 * static_cast<uint32_t>(dims.size());
  VulkanBlob moved = copy_vulkan_blob("ops/permute/model.pte", extra);
  auto parsed = vkgraph::parse_vk_blob(moved.storage.bytes());
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  const vk::IntList* ints = parsed->graph->values()->Get(static_cast<flatbuffers::uoffset_t>(list))->value_as_IntList();
  const uint8_t* field = reinterpret_cast<const flatbuffers::Table*>(ints)->GetAddressOf(vk::IntList::VT_ITEMS);
  ASSERT_NE(field, nullptr);
  // The new vector: its length word at 8k, so its elements at 8k + 4, past the old end.
  const size_t length_at = (moved.fb_offset + moved.fb_size - extra + 7) / 8 * 8;
  const size_t field_at = static_cast<size_t>(field - moved.data());
  const uint32_t n = static_cast<uint32_t>(dims.size()), rel = static_cast<uint32_t>(length_at - field_at);
  std::memcpy(moved.data() + length_at, &n, 4);
  std::memcpy(moved.data() + length_at + 4, dims.data(), 8 * dims.size());
  std::memcpy(moved.data() + field_at, &rel, 4);
  ASSERT_EQ(reinterpret_cast<uintptr_t>(moved.data() + length_at + 4) % 8, 4u);

  auto reread = vkgraph::read_plan(moved.storage.bytes(), nullptr);
  ASSERT_TRUE(reread.ok()) << reread.status().to_string();
  EXPECT_EQ(reread->values[list].ints, dims);
}

// A VH00 header whose flatbuffer offset is 4 bytes off: the verifier checks each scalar
// field's alignment relative to the flatbuffer's start, so a start at 4 mod 8 would verify
// and then load its int64 and double fields misaligned. The start must be 8-byte aligned
// (exporters write 32, in 16-byte aligned segments).
TEST(HostileFiles, MisalignedVulkanFlatbufferIsAnError) {
  for (uint32_t shift : {0u, 4u, 8u}) {
    VulkanBlob b = copy_vulkan_blob("ops/add/model.pte", shift);
    // The flatbuffer moves `shift` bytes later within the grown region.
    const uint32_t fb_size = b.fb_size - shift, fb_offset = b.fb_offset + shift;
    std::memmove(b.data() + fb_offset, b.data() + b.fb_offset, fb_size);
    std::memcpy(b.data() + 10, &fb_offset, 4);
    std::memcpy(b.data() + 14, &fb_size, 4);
    auto parsed = vkgraph::parse_vk_blob(b.storage.bytes());
    if (shift % 8 == 0) {
      EXPECT_TRUE(parsed.ok()) << "moved by " << shift << ": " << parsed.status().to_string();
    } else {
      EXPECT_TRUE(fails_naming(parsed.status(), ErrorCode::kInvalidProgram, {"VH00 blob", "offset 36", "not 8-byte aligned"}));
    }
  }
}

// Fuzzer (c_api_fuzzer): a Vulkan constant whose offset left its floats at an odd address;
// the CPU executor's conv kernels then loaded the bias through a misaligned float*. Every
// constant of ops/conv2d_1x1 is pointed at the blob's raw region (zeros), at offset 0, 16,
// or 2: only 2 must fail, naming the value.
TEST(HostileFiles, MisalignedVulkanConstantIsAnError) {
  for (uint64_t offset : {0u, 16u, 2u}) {
    VulkanBlob b = copy_vulkan_blob("ops/conv2d_1x1/model.pte", 0, 1 << 16);
    auto parsed = vkgraph::parse_vk_blob(b.storage.bytes());
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    ASSERT_NE(parsed->graph->constants(), nullptr);
    for (const vk::VkBytes* c : *parsed->graph->constants()) {
      const uint8_t* field = reinterpret_cast<const flatbuffers::Table*>(c)->GetAddressOf(vk::VkBytes::VT_OFFSET);
      ASSERT_NE(field, nullptr) << "a named constant stores offset 2^64-1";
      std::memcpy(b.data() + (field - b.data()), &offset, 8);
    }
    auto plan = vkgraph::read_plan(b.storage.bytes(), nullptr);
    if (offset % 4 == 0) {
      EXPECT_TRUE(plan.ok()) << "offset " << offset << ": " << plan.status().to_string();
    } else {
      EXPECT_TRUE(fails_naming(plan.status(), ErrorCode::kInvalidProgram,
                               {"VK00 graph: value", "not aligned to the 4 bytes", "(offset 2)"}));
    }
  }
}

}  // namespace
}  // namespace wick
