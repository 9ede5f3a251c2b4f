#include "test_util.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "runtime/program.h"
#include "runtime/tensor_io.h"

namespace wick::test {

std::string fixtures_dir() { return WICK_FIXTURES_DIR; }
std::string source_dir() { return WICK_SOURCE_DIR; }

CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed: " + command};
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

nlohmann::json fixture_index() {
  std::ifstream in(fixtures_dir() + "/index.json");
  if (!in) return nlohmann::json::object();
  return nlohmann::json::parse(in, nullptr, false);
}

std::vector<std::string> fixtures_in_groups(const std::vector<std::string>& groups) {
  std::vector<std::string> out;
  nlohmann::json index = fixture_index();
  if (!index.contains("fixtures")) return out;
  for (const auto& f : index["fixtures"])
    for (const auto& g : groups)
      if (f["group"] == g) out.push_back(f["path"].get<std::string>());
  return out;
}

namespace {
bool load_tensors(const std::string& dir, const nlohmann::json& list, std::vector<Value>* out) {
  for (const auto& t : list) {
    auto dtype = parse_dtype(t["dtype"].get<std::string>());
    if (!dtype) {
      ADD_FAILURE() << "unknown dtype " << t["dtype"];
      return false;
    }
    std::vector<int64_t> shape = t["shape"].get<std::vector<int64_t>>();
    auto v = read_raw_tensor(dir + "/" + t["file"].get<std::string>(), *dtype, shape);
    if (!v.ok()) {
      ADD_FAILURE() << v.status().to_string();
      return false;
    }
    out->push_back(std::move(v).value());
  }
  return true;
}
}  // namespace

bool load_fixture(const std::string& rel, Fixture* f) { return load_fixture_at(fixtures_dir() + "/" + rel, rel, f); }

bool load_fixture_at(const std::string& dir, const std::string& rel, Fixture* f) {
  f->rel = rel;
  f->dir = dir;
  std::ifstream in(f->dir + "/manifest.json");
  if (!in) {
    ADD_FAILURE() << "missing fixture manifest " << f->dir << "/manifest.json";
    return false;
  }
  f->manifest = nlohmann::json::parse(in);
  if (f->manifest.contains("method")) f->method = f->manifest["method"].get<std::string>();
  const auto& tol = f->manifest["tolerance"];
  f->atol = tol.value("atol", 1e-3);
  f->rtol = tol.value("rtol", 1e-3);
  f->stateful = f->manifest.value("stateful", false);
  for (const auto& c : f->manifest["cases"]) {
    FixtureCase fc;
    if (!load_tensors(f->dir, c["inputs"], &fc.inputs) || !load_tensors(f->dir, c["outputs"], &fc.outputs))
      return false;
    f->cases.push_back(std::move(fc));
  }
  return true;
}

namespace {
double element_as_double(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case ScalarType::kFloat: return t.data_as<float>()[i];
    case ScalarType::kDouble: return t.data_as<double>()[i];
    case ScalarType::kHalf: return half_to_float(t.data_as<uint16_t>()[i]);
    case ScalarType::kBFloat16: return bf16_to_float(t.data_as<uint16_t>()[i]);
    case ScalarType::kLong: return static_cast<double>(t.data_as<int64_t>()[i]);
    case ScalarType::kInt: return t.data_as<int32_t>()[i];
    case ScalarType::kShort: return t.data_as<int16_t>()[i];
    case ScalarType::kChar: return t.data_as<int8_t>()[i];
    case ScalarType::kByte: case ScalarType::kBool: return t.data_as<uint8_t>()[i];
    default: return NAN;
  }
}
}  // namespace

::testing::AssertionResult values_close(const Value& got, const Value& ref, double atol, double rtol) {
  if (!got.is_tensor() || !ref.is_tensor())
    return ::testing::AssertionFailure() << "expected tensors, got " << value_tag_name(got.tag);
  const Tensor& g = got.tensor;
  const Tensor& r = ref.tensor;
  if (g.dtype != r.dtype)
    return ::testing::AssertionFailure() << "dtype " << dtype_name(g.dtype) << " != reference " << dtype_name(r.dtype);
  if (g.sizes != r.sizes)
    return ::testing::AssertionFailure() << "shape " << g.shape_string() << " != reference " << r.shape_string();
  const bool exact = !is_floating(r.dtype);
  double worst = 0;
  int64_t bad = 0, first_bad = -1;
  for (int64_t i = 0; i < r.numel(); ++i) {
    double a = element_as_double(g, i), b = element_as_double(r, i);
    double err = std::fabs(a - b);
    bool ok = exact ? a == b : (err <= atol + rtol * std::fabs(b) || (std::isnan(a) && std::isnan(b)));
    if (std::isnan(err) && !(std::isnan(a) && std::isnan(b))) ok = false;
    if (!ok) {
      if (first_bad < 0) first_bad = i;
      ++bad;
    }
    if (!std::isnan(err)) worst = std::max(worst, err);
  }
  if (bad > 0)
    return ::testing::AssertionFailure() << bad << " of " << r.numel() << " elements off (first at " << first_bad
                                         << ": " << element_as_double(g, first_bad) << " vs "
                                         << element_as_double(r, first_bad) << "), max abs err " << worst
                                         << ", atol " << atol << ", rtol " << rtol;
  return ::testing::AssertionSuccess() << "max abs err " << worst;
}

std::string param_name(const std::string& rel) {
  std::string s;
  for (char c : rel) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

void expect_fixture_matches(const Fixture& f) {
  auto program = Program::load_file(f.pte());
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto method = (*program)->load_method(f.method);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  for (size_t c = 0; c < f.cases.size(); ++c) {
    auto outputs = (*method)->forward(f.cases[c].inputs);
    ASSERT_TRUE(outputs.ok()) << "case " << c << ": " << outputs.status().to_string();
    ASSERT_EQ(outputs->size(), f.cases[c].outputs.size());
    for (size_t o = 0; o < outputs->size(); ++o)
      EXPECT_TRUE(values_close((*outputs)[o], f.cases[c].outputs[o], f.atol, f.rtol))
          << f.rel << " case " << c << " output " << o;
  }
}

}  // namespace wick::test
