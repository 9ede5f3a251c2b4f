// `wick inspect`: what a .pte holds — methods, signatures, operators, delegates, data.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/vk_summary.h"
#include "core/json_text.h"
#include "format/pte_file.h"
#include "runtime/program.h"

namespace wick::cli {

namespace {

std::string value_sig(const ValueMeta& v) {
  if (v.tag != ValueTag::kTensor) return value_tag_name(v.tag);
  std::string s = std::string(dtype_name(v.tensor.dtype)) + shape_to_string(v.tensor.sizes);
  if (v.tensor.dynamism != ShapeDynamism::kStatic) s += " (dynamic, upper bound)";
  return s;
}

nlohmann::json value_json(const ValueMeta& v) {
  nlohmann::json j;
  j["type"] = value_tag_name(v.tag);
  if (v.tag == ValueTag::kTensor) {
    j["dtype"] = dtype_name(v.tensor.dtype);
    j["shape"] = v.tensor.sizes;
    j["dynamic"] = v.tensor.dynamism != ShapeDynamism::kStatic;
    j["memory_planned"] = v.tensor.memory_planned;
  }
  return j;
}

// The delegates of method `name` in the file, in the order method_meta lists them.
const flatbuffers::Vector<flatbuffers::Offset<fb::BackendDelegate>>* plan_delegates(const PteFile& file,
                                                                                   const std::string& name) {
  for (const fb::ExecutionPlan* plan : *file.program().execution_plan())
    if (plan && plan->name() && plan->name()->str() == name) return plan->delegates();
  return nullptr;
}

}  // namespace

int inspect(const std::vector<std::string>& args) {
  std::string path, backend = "auto";
  bool json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") json = true;
    else if (a == "--backend" && i + 1 < args.size()) backend = args[++i];
    else if (path.empty() && a.rfind("--", 0) != 0) path = a;
    else {
      std::fprintf(stderr, "wick inspect: unexpected argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "wick inspect: missing MODEL.pte\n");
    return 2;
  }
  auto program = Program::load_file(path);
  if (!program.ok()) {
    std::fprintf(stderr, "wick: %s\n", program.status().to_string().c_str());
    return 1;
  }
  const PteFile& file = (*program)->file();
  const ExtendedHeader& h = file.header();
  const auto* segments = file.program().segments();
  nlohmann::json doc;
  doc["file"] = path;
  doc["bytes"] = file.bytes().size();
  doc["extended_header"] = h.present ? nlohmann::json{{"program_size", h.program_size},
                                                      {"segment_base_offset", h.segment_base_offset},
                                                      {"segment_data_size", h.segment_data_size}}
                                     : nlohmann::json(nullptr);
  doc["segments"] = segments ? segments->size() : 0;
  doc["constant_bytes"] = file.constant_segment_bytes();
  size_t named_bytes = 0;
  std::vector<std::string> keys = file.keys();
  for (const auto& k : keys) {
    auto d = file.get(k);
    if (d.ok()) named_bytes += d->size();
  }
  doc["named_data"] = {{"entries", keys.size()}, {"bytes", named_bytes}};
  doc["methods"] = nlohmann::json::array();
  for (const std::string& name : (*program)->method_names()) {
    auto meta = (*program)->method_meta(name);
    if (!meta.ok()) {
      std::fprintf(stderr, "wick: %s\n", meta.status().to_string().c_str());
      return 1;
    }
    nlohmann::json m;
    m["name"] = name;
    m["inputs"] = nlohmann::json::array();
    for (const auto& v : meta->inputs) m["inputs"].push_back(value_json(v));
    m["outputs"] = nlohmann::json::array();
    for (const auto& v : meta->outputs) m["outputs"].push_back(value_json(v));
    m["operators"] = meta->operators;
    m["delegates"] = nlohmann::json::array();
    const auto* fb_delegates = plan_delegates(file, name);
    for (size_t i = 0; i < meta->delegates.size(); ++i) {
      const auto& d = meta->delegates[i];
      nlohmann::json dj = {{"backend", d.backend_id}, {"bytes", d.blob_bytes},
                           {"location", d.inline_blob ? "inline" : "segment"},
                           {"compile_specs", d.compile_spec_keys}};
      // A Vulkan delegate's graph: its operators and largest tensor (cli/vk_summary.h).
      if (d.backend_id == "VulkanBackend" && fb_delegates && i < fb_delegates->size()) {
        auto blob = file.delegate_blob(*fb_delegates->Get(static_cast<flatbuffers::uoffset_t>(i)));
        dj["graph"] = blob.ok() ? vk_delegate_summary(*blob) : nlohmann::json{{"error", blob.status().to_string()}};
      }
      m["delegates"].push_back(std::move(dj));
    }
    m["planned_buffer_bytes"] = meta->planned_buffer_sizes;
    m["values"] = meta->num_values;
    m["instructions"] = meta->num_instructions;
    doc["methods"].push_back(std::move(m));
  }
  // Which executor would run the delegated parts (--backend, auto by default).
  bool delegated = false;
  for (const auto& m : doc["methods"]) delegated |= !m["delegates"].empty();
  doc["backend"] = nullptr;
  if (delegated) {
    if (!select_backend(backend, false)) return 1;
    doc["backend"] = chosen_backend();
  }
  if (json) {
    std::printf("%s\n", json_text(doc, 2).c_str());
    return 0;
  }
  std::printf("%s: %zu bytes\n", path.c_str(), file.bytes().size());
  if (h.present)
    std::printf("  extended header: program %llu bytes, segments at %llu (%llu bytes)\n",
                (unsigned long long)h.program_size, (unsigned long long)h.segment_base_offset,
                (unsigned long long)h.segment_data_size);
  else
    std::printf("  no extended header\n");
  std::printf("  segments: %zu, constant bytes: %zu, named data: %zu entries, %zu bytes\n",
              static_cast<size_t>(doc["segments"]), file.constant_segment_bytes(), keys.size(), named_bytes);
  if (delegated) std::printf("  delegates: %s\n", backend_line().c_str());
  for (const auto& m : doc["methods"]) {
    std::printf("method %s: %zu values, %zu instructions, planned buffers %s\n",
                m["name"].get<std::string>().c_str(), m["values"].get<size_t>(),
                m["instructions"].get<size_t>(), m["planned_buffer_bytes"].dump().c_str());
    auto meta = (*program)->method_meta(m["name"].get<std::string>());
    for (size_t i = 0; i < meta->inputs.size(); ++i)
      std::printf("  input %zu: %s\n", i, value_sig(meta->inputs[i]).c_str());
    for (size_t i = 0; i < meta->outputs.size(); ++i)
      std::printf("  output %zu: %s\n", i, value_sig(meta->outputs[i]).c_str());
    for (const auto& op : meta->operators) std::printf("  operator %s\n", op.c_str());
    for (const auto& d : meta->delegates)
      std::printf("  delegate %s: %zu bytes (%s)\n", d.backend_id.c_str(), d.blob_bytes,
                  d.inline_blob ? "inline" : "segment");
  }
  return 0;
}

}  // namespace wick::cli
