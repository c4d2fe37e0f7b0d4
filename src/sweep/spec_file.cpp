// Reading a sweep spec file: a regular file of at most 16 MiB read and parsed by the guarded
// reader of core/input_file.hpp, then the spec loader (spec.cpp). See spec.hpp.
#include <filesystem>
#include <string>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/sweep/json_file.hpp"
#include "ckptsim/sweep/spec.hpp"

namespace ckptsim::sweep {

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  // The guarded reader and parser every other input uses (core/input_file.hpp): regular files
  // only, the size (16 MiB here) checked on the open descriptor, depth checked before parsing,
  // numbers beyond a double and duplicate keys refused.
  return parse_json_text(read_input_file(path, "a " + what, kMaxJsonFileBytes), path, what);
}

nlohmann::json parse_json_text(const std::string& text, const std::string& label, const std::string& what) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(label, "", "a JSON object (" + what + ")", "an empty file");
  return parse_json_strict(text, label);
}

SweepSpec load_sweep_spec_file(const std::string& path) {
  const nlohmann::json doc = read_json_file(path, "sweep spec");
  const auto parent = std::filesystem::path(path).parent_path();
  return load_sweep_spec_json(doc, path, parent.empty() ? std::string(".") : parent.string());
}

}  // namespace ckptsim::sweep
