#include "ckptsim/core/json_file.hpp"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

nlohmann::json read_json_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(path, "", "a readable JSON file", "no such file");
  if (!S_ISREG(st.st_mode)) throw InputError(path, "", "a regular file", "a directory, device or pipe");
  if (static_cast<std::size_t>(st.st_size) > kMaxJsonFileBytes) {
    throw LimitError(fmt::format("{}: {} bytes, beyond the {} byte limit on JSON inputs", path, st.st_size, kMaxJsonFileBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable JSON file", "a file that cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  bool too_deep = false;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str(), [&too_deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth >= kMaxJsonDepth) too_deep = true;  // the outermost value has depth 0
      return !too_deep;
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, "", "valid JSON with nothing after the document", e.what());
  }
  if (too_deep) throw InputError(path, "", fmt::format("JSON nested at most {} deep", kMaxJsonDepth), "deeper nesting");
  return doc;
}

}  // namespace ckptsim
