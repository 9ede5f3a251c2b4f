// A generated corpus of broken .pte files: every one must give an error (or, for byte
// flips that happen to stay valid, run) without crashing. Under ASan/UBSan (see
// scripts/test.sh) this also proves no out-of-bounds read or undefined behaviour.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "format/pte_file.h"
#include "runtime/program.h"
#include "test_util.h"

namespace wick {
namespace {

std::vector<uint8_t> read(const std::string& rel) {
  auto r = read_file_bytes(test::fixtures_dir() + "/" + rel);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : std::vector<uint8_t>{};
}

// Loads, inspects and (for loadable methods) runs with zero inputs. Returns the first error.
Status exercise(std::span<const uint8_t> bytes) {
  auto program = Program::load_bytes(bytes, "corrupt.pte");
  if (!program.ok()) return program.status();
  for (const std::string& name : (*program)->method_names()) {
    auto meta = (*program)->method_meta(name);
    if (!meta.ok()) return meta.status();
    auto method = (*program)->load_method(name);
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

void expect_named_error(const Status& s, const std::string& what) {
  EXPECT_FALSE(s.ok()) << what << " was accepted";
  if (!s.ok()) {
    EXPECT_FALSE(s.message().empty()) << what;
  }
}

const char* kSources[] = {"cpu/mlp_cpu/model.pte", "cpu/cnn_cpu/model.pte", "ops_undelegated/log/model.pte",
                          "ops_undelegated/maximum/model.pte", "samples/arduino_add.pte", "samples/apple_add.pte",
                          "samples/module_linear_inline_constants.pte"};

class Corrupt : public ::testing::TestWithParam<const char*> {};

TEST_P(Corrupt, TruncationsAreErrors) {
  std::vector<uint8_t> bytes = read(GetParam());
  ASSERT_TRUE(exercise(bytes).ok()) << "the intact file must work";
  std::vector<size_t> cuts = {0, 1, 4, 7, 8, 11, 12, 20, 31, 32, 40, 64};
  for (int k = 1; k < 64; ++k) cuts.push_back(bytes.size() * k / 64);
  cuts.push_back(bytes.size() - 1);
  for (size_t cut : cuts) {
    if (cut >= bytes.size()) continue;
    std::vector<uint8_t> t(bytes.begin(), bytes.begin() + static_cast<long>(cut));
    expect_named_error(exercise(t), "truncation at " + std::to_string(cut));
  }
}

TEST_P(Corrupt, WrongMagicIsAnError) {
  std::vector<uint8_t> bytes = read(GetParam());
  for (int pos = 4; pos < 8; ++pos) {
    std::vector<uint8_t> b = bytes;
    b[pos] ^= 0x20;
    Status s = exercise(b);
    expect_named_error(s, "magic byte " + std::to_string(pos));
  }
}

TEST_P(Corrupt, ByteFlipsNeverCrash) {
  std::vector<uint8_t> bytes = read(GetParam());
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> b = bytes;
    int flips = 1 + trial % 4;
    for (int f = 0; f < flips; ++f) {
      // Bias toward the flatbuffer, where the structure lives.
      size_t limit = trial % 2 ? std::min<size_t>(b.size(), 4096) : b.size();
      b[rng() % limit] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    Status s = exercise(b);
    if (!s.ok()) {
      EXPECT_FALSE(s.message().empty());
    }
  }
}

TEST_P(Corrupt, OffsetsAndSizesOutsideTheFileAreErrors) {
  std::vector<uint8_t> bytes = read(GetParam());
  auto file = PteFile::parse(bytes, "x");
  ASSERT_TRUE(file.ok());
  const uint8_t* base = (*file)->bytes().data();
  auto patch64 = [&](const void* field, uint64_t value, const std::string& what) {
    std::vector<uint8_t> b = bytes;
    size_t off = static_cast<const uint8_t*>(field) - base;
    std::memcpy(b.data() + off, &value, 8);
    expect_named_error(exercise(b), what);
  };
  if ((*file)->header().present) {
    for (uint64_t v : {uint64_t{0}, uint64_t(bytes.size() + 1), ~uint64_t{0}, uint64_t{1} << 62}) {
      std::vector<uint8_t> b = bytes;
      std::memcpy(b.data() + 16, &v, 8);  // program_size
      if (v != 0) expect_named_error(exercise(b), "program_size " + std::to_string(v));
      b = bytes;
      uint64_t big = bytes.size() + 4096 + v % 4096;
      std::memcpy(b.data() + 32, &big, 8);  // segment_data_size
      expect_named_error(exercise(b), "segment_data_size");
    }
  }
  // Patch each segment's offset and size in place (flatbuffer scalars are stored inline,
  // unless they equal the default 0, in which case there is nothing to patch).
  const auto* segs = (*file)->program().segments();
  if (segs)
    for (const fb::DataSegment* seg : *segs) {
      if (seg->size() == 0) continue;
      const uint8_t* size_field = reinterpret_cast<const flatbuffers::Table*>(seg)->GetAddressOf(fb::DataSegment::VT_SIZE);
      if (size_field) patch64(size_field, uint64_t(bytes.size()) * 4, "segment size");
      const uint8_t* off_field = reinterpret_cast<const flatbuffers::Table*>(seg)->GetAddressOf(fb::DataSegment::VT_OFFSET);
      if (off_field) patch64(off_field, ~uint64_t{0} - 8, "segment offset");
    }
  const auto* cs = (*file)->program().constant_segment();
  if (cs && cs->offsets() && cs->offsets()->size() > 1) {
    const uint64_t* last = cs->offsets()->data() + cs->offsets()->size() - 1;
    patch64(last, uint64_t(bytes.size()) * 8, "constant offset");
  }
}

INSTANTIATE_TEST_SUITE_P(Files, Corrupt, ::testing::ValuesIn(kSources), [](const auto& info) {
  return test::param_name(info.param);
});

}  // namespace
}  // namespace wick
