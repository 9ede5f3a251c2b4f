// JSON text from a nlohmann::json document, safe for strings from untrusted files.
//
// nlohmann's dump() throws type_error.316 on a string that is not valid UTF-8 (which a
// method name in a .pte may be: the flatbuffer verifier does not check), and an exception
// aborts the CLI and reaches JavaScript as a bare number from the Wasm build. json_text
// escapes such bytes first (core/utf8.h: byte 0xFF becomes the text \xFF), in keys and
// values at any depth, so it cannot throw for that reason. Every JSON answer of the CLI and
// the C API goes through it. Header-only: only the layers that write JSON include it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/utf8.h"

namespace wick {

// `j` with every string (and object key) that is not valid UTF-8 escaped; the rest as is.
inline nlohmann::json utf8_safe_json(const nlohmann::json& j) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    return is_valid_utf8(s) ? j : nlohmann::json(escape_invalid_utf8(s));
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const nlohmann::json& item : j) out.push_back(utf8_safe_json(item));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[escape_invalid_utf8(it.key())] = utf8_safe_json(it.value());
    return out;
  }
  return j;
}

// The JSON text of `j` (indent < 0: one line), invalid UTF-8 escaped.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  // After escaping no invalid byte is left; `replace` is a second guard, never a throw.
  return utf8_safe_json(j).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace wick
