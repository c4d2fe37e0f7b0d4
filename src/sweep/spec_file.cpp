// Reading a sweep spec file: a regular file of bounded size holding one JSON document of bounded
// depth with each key once, then the spec loader (spec.cpp). See spec.hpp.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ckptsim/core/error.hpp"
#include "ckptsim/sweep/json_file.hpp"
#include "ckptsim/sweep/spec.hpp"

namespace ckptsim::sweep {

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw InputError(path, "", "an existing " + what, "no such file");
  if (!fs::is_regular_file(status)) throw InputError(path, "", "a regular file (" + what + ")", "not a regular file");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxJsonFileBytes)
    throw InputError(path, "", "a " + what + " of at most 16 MiB", std::to_string(size) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable " + what, "a file that cannot be opened");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_json_text(buffer.str(), path, what);
}

nlohmann::json parse_json_text(const std::string& text, const std::string& label, const std::string& what) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(label, "", "a JSON object (" + what + ")", "an empty file");
  // Track the path of keys so a key written twice can be named; nlohmann keeps only the last.
  std::vector<std::pair<std::string, std::set<std::string>>> frames;
  std::string last_key;
  std::vector<std::string> duplicates;
  int too_deep = 0;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& value) {
      using E = nlohmann::json::parse_event_t;
      if (depth > kMaxJsonDepth) ++too_deep;
      if (event == E::object_start || event == E::array_start) {
        const std::string parent = frames.empty() ? "" : frames.back().first + "/" + last_key;
        frames.push_back({parent, {}});
        last_key = "-";
      } else if (event == E::object_end || event == E::array_end) {
        if (!frames.empty()) frames.pop_back();
      } else if (event == E::key && !frames.empty()) {
        last_key = value.get<std::string>();
        if (!frames.back().second.insert(last_key).second) duplicates.push_back(frames.back().first + "/" + last_key);
      }
      return too_deep == 0;
    });
  } catch (const nlohmann::json::parse_error& e) {
    if (too_deep > 0) throw InputError(label, "", "JSON nested at most 64 levels deep", "deeper nesting");
    std::string message = e.what();
    if (const auto end = message.find("] "); !message.empty() && message.front() == '[' && end != std::string::npos)
      message.erase(0, end + 2);
    throw InputError(label, "", "valid JSON", message);
  }
  if (too_deep > 0) throw InputError(label, "", "JSON nested at most 64 levels deep", "deeper nesting");
  if (!duplicates.empty()) {
    std::vector<Problem> problems;
    for (const auto& p : duplicates) problems.push_back({label, p, "each key once per object", "the key written more than once"});
    throw InputError(std::move(problems));
  }
  return doc;
}

SweepSpec load_sweep_spec_file(const std::string& path) {
  const nlohmann::json doc = read_json_file(path, "sweep spec");
  const auto parent = std::filesystem::path(path).parent_path();
  return load_sweep_spec_json(doc, path, parent.empty() ? std::string(".") : parent.string());
}

}  // namespace ckptsim::sweep
