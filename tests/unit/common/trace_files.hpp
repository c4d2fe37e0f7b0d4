#pragma once
// A failure trace written for one test: `body` (CSV in the traces/ format) into the temporary
// folder under `name`; returns its path. The caller removes it when the run has read it.
#include <filesystem>
#include <fstream>
#include <string>

namespace ckptsim::test {

inline std::string write_trace_file(const std::string& name, const std::string& body) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << body;
  return path.string();
}

}  // namespace ckptsim::test
