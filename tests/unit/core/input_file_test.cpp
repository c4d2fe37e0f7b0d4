// Guarded JSON parsing and input files (core/input_file.hpp): every refusal names the pointer.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

using namespace ckptsim;

namespace {

/// The single problem parse_json_strict reports for `text`.
Problem problem_of(const std::string& text) {
  try {
    (void)parse_json_strict(text, "f.json");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() >= 1);
    return e.problems().front();
  }
  FAIL("no error for " << text);
  return {};
}

}  // namespace

TEST_CASE("JSON nesting beyond the depth limit is refused before parsing") {
  // kMaxJsonDepth levels parse; one more is refused at the bracket that exceeds it.
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(parse_json_strict(ok, "f.json").is_array());
  const Problem p = problem_of(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']'));
  CHECK(p.expected.find("nested at most") != std::string::npos);
  // The (kMaxJsonDepth+1)-th bracket is at column kMaxJsonDepth+1 of line 1.
  CHECK(p.found.find("column " + std::to_string(kMaxJsonDepth + 1)) != std::string::npos);
  // Brackets inside strings do not count.
  CHECK(parse_json_strict("{\"a\": \"" + std::string(1000, '[') + "\"}", "f.json").is_object());
}

TEST_CASE("bytes after the document, NUL bytes and a BOM") {
  CHECK(problem_of("{\"a\": 1} x").expected == "nothing after the JSON document");
  // nlohmann would stop at a NUL byte and ignore what follows: it is refused with its place.
  const Problem nul = problem_of(std::string("{\"a\": 1}\0junk", 13));
  CHECK(nul.found == "a NUL byte at line 1, column 9");
  // A UTF-8 byte-order mark before the document is skipped.
  CHECK(parse_json_strict("\xEF\xBB\xBF{\"a\": 1}", "f.json").at("a") == 1);
}

TEST_CASE("a number beyond the double range names its pointer") {
  // 1e400 overflows a double; the pointer is that of the value being read (array index 1).
  const Problem p = problem_of("{\"a\": {\"b\": [1, 1e400]}}");
  CHECK(p.pointer == "/a/b/1");
  CHECK(p.expected.find("range of a double") != std::string::npos);
}

TEST_CASE("syntax errors name the pointer, line and column") {
  // The second key is missing its value: the parser fails in /x/c at line 2.
  const Problem p = problem_of("{\"x\": {\"b\": 1,\n \"c\": }}");
  CHECK(p.pointer == "/x/c");
  CHECK(p.found.find("line 2") != std::string::npos);
  CHECK(p.found.find("last read") == std::string::npos);
}

TEST_CASE("keys written twice are refused, with their pointers") {
  const Problem p = problem_of("{\"a\": [{\"k\": 1}, {\"k\": 2, \"k\": 3}]}");
  CHECK(p.pointer == "/a/1/k");
  CHECK(p.found == "the key written more than once");
  // The non-strict parse returns them instead.
  CHECK(parse_json_document("{\"k\": 1, \"k\": 2}", "f.json").duplicate_keys == std::vector<std::string>{"/k"});
}

TEST_CASE("non-regular and missing input files are refused with their kind") {
  auto found_for = [](const std::string& path) {
    try {
      (void)read_input_file(path, "a scenario file");
    } catch (const InputError& e) {
      return e.problems().front().found;
    }
    return std::string("no error");
  };
  CHECK(found_for("/dev/zero") == "a character device");
  CHECK(found_for("/") == "a directory");
  CHECK(found_for("/nonexistent/ckptsim.json") == "no such file");
}

TEST_CASE("a FIFO is refused without blocking, and a size limit of the reader's own") {
  const std::string dir = std::filesystem::temp_directory_path() / ("ckptsim-fifo-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = dir + "/journal.jsonl";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  try {
    // No writer: a blocking open would wait for ever; the guarded reader answers at once.
    (void)read_input_file(fifo, "a sweep journal");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.problems().front().found == "a FIFO (named pipe)");
    CHECK(e.problems().front().expected == "a sweep journal (a regular file)");
  }
  const std::string file = dir + "/small.txt";
  { std::ofstream(file) << "0123456789"; }  // 10 bytes
  CHECK(read_input_file(file, "a file", 10) == "0123456789");
  CHECK_THROWS_AS(read_input_file(file, "a file", 9), InputError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("one byte-order mark is skipped, a second is refused") {
  CHECK(parse_json_strict("\xEF\xBB\xBF[1]", "f.json").size() == 1);
  const Problem p = problem_of("\xEF\xBB\xBF\xEF\xBB\xBF[1]");
  CHECK(p.found.find("second byte-order mark") != std::string::npos);
  CHECK(strip_utf8_bom("\xEF\xBB\xBFx", "f.csv") == "x");
  CHECK_THROWS_AS(strip_utf8_bom("\xEF\xBB\xBF\xEF\xBB\xBFx", "f.csv"), InputError);
}

TEST_CASE("json_pointer_within compares whole reference tokens") {
  CHECK(json_pointer_within("/strategy/replicas", "/strategy"));
  CHECK(json_pointer_within("/strategy", "/strategy"));
  CHECK_FALSE(json_pointer_within("/strategyx", "/strategy"));
  CHECK_FALSE(json_pointer_within("/strategy", "/strategy/replicas"));
}
