#pragma once
// Reading the JSON files the replay loop exchanges (plans, measured timelines, microbenchmarks;
// docs/timeline-format.md) in `ckptsim validate` and `ckptsim calibrate`. Their readers check the
// fields they use with pointers; these two guards catch what those checks do not cover, so no
// malformed document ever ends as an internal error:
//   - require_json_object: the document must be a JSON object (a bare string, number or array
//     is named as what was found);
//   - with_json_file_context: runs a reader and turns any nlohmann type or range error it hits
//     (a field of the wrong JSON type deeper in the document) into an InputError naming the file.
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"

namespace ckptsim::cli {

inline void require_json_object(const nlohmann::json& doc, const std::string& file, const std::string& what) {
  if (!doc.is_object()) throw InputError(file, "", what + " (a JSON object)", std::string("a JSON ") + doc.type_name());
}

template <class Reader>
auto with_json_file_context(const std::string& file, const std::string& what, Reader&& reader) {
  try {
    return std::forward<Reader>(reader)();
  } catch (const nlohmann::json::exception& e) {
    std::string message = e.what();
    if (const auto end = message.find("] "); !message.empty() && message.front() == '[' && end != std::string::npos)
      message.erase(0, end + 2);
    throw InputError(file, "", what + " in the format of docs/timeline-format.md", "a field of another JSON type: " + message);
  }
}

}  // namespace ckptsim::cli
