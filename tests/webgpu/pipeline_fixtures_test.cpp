// Two-program pipelines (SAM2 and Whisper: encoder -> decoder) end to end on the WebGPU
// delegate: the decoder is fed what Wick's encoder computed, not the encoder's reference
// outputs, and must still match the decoder's references within its tolerance.
//
// Which decoder input comes from which encoder output is read from the manifests: the
// decoder's case inputs that are byte-identical to an encoder reference output (same
// sha256 prefix) are the links.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runtime/program.h"
#include "test_util.h"
#include "webgpu/backend.h"

namespace wick {
namespace {

struct Link {
  size_t encoder_output;
  size_t decoder_input;
};

// Links for decoder case `c`, matched against every encoder output of case `c`.
std::vector<Link> links(const test::Fixture& encoder, const test::Fixture& decoder, size_t c) {
  std::map<std::string, size_t> by_hash;
  const auto& enc_outputs = encoder.manifest["cases"][c]["outputs"];
  for (size_t o = 0; o < enc_outputs.size(); ++o) by_hash[enc_outputs[o]["sha256_prefix"]] = o;
  std::vector<Link> out;
  const auto& dec_inputs = decoder.manifest["cases"][c]["inputs"];
  for (size_t i = 0; i < dec_inputs.size(); ++i) {
    auto it = by_hash.find(dec_inputs[i]["sha256_prefix"]);
    if (it != by_hash.end()) out.push_back({it->second, i});
  }
  return out;
}

class PipelineFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(PipelineFixture, DecoderMatchesOnEncoderOutputs) {
  ASSERT_TRUE(webgpu::register_webgpu_backend().ok());
  test::Fixture encoder, decoder;
  ASSERT_TRUE(test::load_fixture(GetParam() + "_encoder", &encoder));
  ASSERT_TRUE(test::load_fixture(GetParam() + "_decoder", &decoder));
  auto enc_program = Program::load_file(encoder.pte());
  auto dec_program = Program::load_file(decoder.pte());
  ASSERT_TRUE(enc_program.ok() && dec_program.ok());
  auto enc = (*enc_program)->load_method(encoder.method);
  auto dec = (*dec_program)->load_method(decoder.method);
  ASSERT_TRUE(enc.ok()) << enc.status().to_string();
  ASSERT_TRUE(dec.ok()) << dec.status().to_string();
  ASSERT_EQ(encoder.cases.size(), decoder.cases.size());
  for (size_t c = 0; c < decoder.cases.size(); ++c) {
    const std::vector<Link> linked = links(encoder, decoder, c);
    ASSERT_FALSE(linked.empty()) << "case " << c << ": no decoder input is an encoder output";
    auto encoded = (*enc)->forward(encoder.cases[c].inputs);
    ASSERT_TRUE(encoded.ok()) << encoded.status().to_string();
    std::vector<Value> inputs = decoder.cases[c].inputs;
    for (const Link& l : linked) inputs[l.decoder_input] = (*encoded)[l.encoder_output];
    auto outputs = (*dec)->forward(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.status().to_string();
    ASSERT_EQ(outputs->size(), decoder.cases[c].outputs.size());
    for (size_t o = 0; o < outputs->size(); ++o) {
      EXPECT_TRUE(test::values_close((*outputs)[o], decoder.cases[c].outputs[o], decoder.atol,
                                     decoder.rtol))
          << GetParam() << " case " << c << " decoder output " << o << " (" << linked.size()
          << " inputs from the encoder)";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Demos, PipelineFixture,
                         ::testing::Values("demos/sam2_tiny", "demos/whisper_tiny"),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace wick
