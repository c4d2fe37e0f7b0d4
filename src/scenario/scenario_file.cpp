// Reading a scenario file: a guarded regular file, JSON syntax and keys written twice (core/input_file.hpp), then the loader
// proper (load_scenario_json, loader.cpp). See loader.hpp.
#include <filesystem>
#include <string>
#include <vector>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "field_read.hpp"

namespace ckptsim {

Scenario load_scenario_file(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string text = read_input_file(path, "a scenario file");
  if (strip_utf8_bom(text).find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(path, "", "a JSON object (the scenario)", "an empty file");
  JsonDocument parsed = parse_json_document(text, path);
  const nlohmann::json& doc = parsed.value;
  const std::vector<std::string>& duplicates = parsed.duplicate_keys;
  const fs::path parent = fs::path(path).parent_path();
  if (duplicates.empty())
    return load_scenario_json(doc, path, parent.empty() ? std::string(".") : parent.string());
  // A repeated key would silently keep only its last value: report it with the other problems.
  std::vector<Problem> problems;
  for (const std::string& pointer : duplicates)
    problems.push_back({path, pointer, "each key once per object", "the key written more than once"});
  try {
    load_scenario_json(doc, path, parent.empty() ? std::string(".") : parent.string());
  } catch (const InputError& e) {
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
  }
  throw InputError(std::move(problems));
}

}  // namespace ckptsim
