// Reading a scenario file: existence, text, JSON syntax and keys written twice, then the loader
// proper (load_scenario_json, loader.cpp). See loader.hpp.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "field_read.hpp"

namespace ckptsim {
namespace {

/// Finds keys written twice in one object while the parser runs (nlohmann keeps the last).
class DuplicateKeys {
 public:
  void observe(nlohmann::json::parse_event_t event, const nlohmann::json& value) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start: {
        std::string path;
        if (!frames_.empty()) path = frames_.back().path + (frames_.back().is_array ? "/-" : "/" + frames_.back().key);
        frames_.push_back({path, event == E::array_start, {}, {}});
        break;
      }
      case E::object_end:
      case E::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case E::key:
        if (!frames_.empty() && value.is_string()) {
          Frame& f = frames_.back();
          f.key = escape_pointer_token(value.get<std::string>());
          if (!f.keys.insert(f.key).second) found_.push_back(f.path + "/" + f.key);
        }
        break;
      case E::value: break;
    }
  }
  [[nodiscard]] const std::vector<std::string>& found() const { return found_; }

 private:
  struct Frame {
    std::string path;  ///< pointer of this object or array
    bool is_array;
    std::string key;   ///< the latest key read (escaped)
    std::set<std::string> keys;
  };
  std::vector<Frame> frames_;
  std::vector<std::string> found_;
};

std::string strip_json_exception_prefix(std::string text) {
  // nlohmann messages start with "[json.exception.parse_error.101] ".
  if (!text.empty() && text.front() == '[') {
    const auto end = text.find("] ");
    if (end != std::string::npos) text.erase(0, end + 2);
  }
  return text;
}

}  // namespace

Scenario load_scenario_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, "", "an existing scenario file", "no such file");
  if (fs::is_directory(path, ec)) throw InputError(path, "", "a scenario file", "a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable scenario file", "a file that cannot be opened");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(path, "", "a JSON object (the scenario)", "an empty file");
  nlohmann::json doc;
  DuplicateKeys duplicates;
  try {
    doc = nlohmann::json::parse(text, [&duplicates](int, nlohmann::json::parse_event_t event, nlohmann::json& value) {
      duplicates.observe(event, value);
      return true;
    });
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for "1e400"
    throw InputError(path, "", "valid JSON", strip_json_exception_prefix(e.what()));
  }
  const fs::path parent = fs::path(path).parent_path();
  if (duplicates.found().empty())
    return load_scenario_json(doc, path, parent.empty() ? std::string(".") : parent.string());
  // A repeated key would silently keep only its last value: report it with the other problems.
  std::vector<Problem> problems;
  for (const std::string& pointer : duplicates.found())
    problems.push_back({path, pointer, "each key once per object", "the key written more than once"});
  try {
    load_scenario_json(doc, path, parent.empty() ? std::string(".") : parent.string());
  } catch (const InputError& e) {
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
  }
  throw InputError(std::move(problems));
}

}  // namespace ckptsim
