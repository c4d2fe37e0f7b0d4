// read_json_file: the guards every JSON input path shares (regular file, depth, trailing bytes).
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/json_file.hpp"

using namespace ckptsim;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("ckptsim-json-file-test-" + name);
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("read_json_file reads a document and rejects what is not one") {
  // A small valid document round-trips.
  const std::string ok = write_temp("ok.json", "{\"a\": [1, 2]}\n");
  CHECK(read_json_file(ok).at("a").at(1).get<int>() == 2);
  // Bytes after the document are an error (a truncated-then-appended file must not load).
  CHECK_THROWS_AS(read_json_file(write_temp("trailing.json", "{\"a\": 1} {\"b\": 2}")), InputError);
  // kMaxJsonDepth (32) nested arrays load; one more level does not.
  const std::string deep_ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  const std::string too_deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  CHECK_NOTHROW(read_json_file(write_temp("deep-ok.json", deep_ok)));
  CHECK_THROWS_AS(read_json_file(write_temp("too-deep.json", too_deep)), InputError);
  // A directory and a missing path are input errors, not crashes.
  CHECK_THROWS_AS(read_json_file(std::filesystem::temp_directory_path().string()), InputError);
  CHECK_THROWS_AS(read_json_file("/nonexistent/ckptsim/plan.json"), InputError);
}
