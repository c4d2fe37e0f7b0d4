// The guarded JSON reader (core/input_file.hpp) on arrays of many objects, the shape of a
// profiler trace's events: the document read must be the one written, and an error deep in the
// array must still name its element's pointer, line and column, and keys written twice there.
// (Speed is measured by benchmarks/core/json_reader_benchmark.cpp, never here.)
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

using namespace ckptsim;

namespace {

constexpr long kLargeArrayObjects = 200'000;

/// {"zz": [{"a": 0, "b": "x0"},\n{"a": 1, "b": "x1"},\n ...]}: element k on line k + 1,
/// with `tail` appended inside element `at` (after its last member).
std::string large_array(long n, long at = -1, const std::string& tail = "") {
  std::string text = R"({"zz": [)";
  for (long k = 0; k < n; ++k) {
    text += fmt::format("{}{{\"a\": {}, \"b\": \"x{}\"{}}}", k > 0 ? ",\n" : "", k, k, k == at ? tail : "");
  }
  return text + "]}";
}

Problem large_array_problem(long at, const std::string& tail) {
  try {
    (void)parse_json_strict(large_array(kLargeArrayObjects, at, tail), "big.json");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    return e.problems().front();
  }
  FAIL("no error for a tail of " << tail << " in element " << at);
  return {};
}

}  // namespace

TEST_CASE("an array of 200,000 objects is read whole and in order") {
  const nlohmann::json doc = parse_json_strict(large_array(kLargeArrayObjects), "big.json");
  const nlohmann::json& zz = doc.at("zz");
  REQUIRE(zz.size() == static_cast<std::size_t>(kLargeArrayObjects));
  // Element k was written as {"a": k, "b": "xk"}: the first, a middle one and the last.
  for (long k : {0L, 123'457L, kLargeArrayObjects - 1}) {
    CHECK(zz.at(static_cast<std::size_t>(k)).at("a") == k);
    CHECK(zz.at(static_cast<std::size_t>(k)).at("b") == fmt::format("x{}", k));
    CHECK(zz.at(static_cast<std::size_t>(k)).size() == 2);
  }
  CHECK(parse_json_document(large_array(kLargeArrayObjects), "big.json").duplicate_keys.empty());
}

TEST_CASE("an error deep in a large array names the element, line and column") {
  // Element 150,000 (line 150,001) gets `, "c": }`: a key without a value. Its text is
  // {"a": 150000, "b": "x150000", "c": } and the parser stops at its "}", column 36: 35
  // characters come before it (1 for "{", 11 for "a": 150000, 2 for ", ", 14 for
  // "b": "x150000" with its quotes, 2 for ", ", 5 for "c": and its space), while reading the
  // value of /zz/150000/c.
  const Problem p = large_array_problem(150'000, R"(, "c": )");
  CHECK(p.file == "big.json");
  CHECK(p.pointer == "/zz/150000/c");
  CHECK(p.found.find("line 150001, column 36") != std::string::npos);
}

TEST_CASE("a number out of range deep in a large array names its element") {
  // 1e400 overflows a double: refused at the member being read, /zz/199998/c.
  const Problem p = large_array_problem(199'998, R"(, "c": 1e400)");
  CHECK(p.pointer == "/zz/199998/c");
  CHECK(p.expected.find("range of a double") != std::string::npos);
}

TEST_CASE("a key written twice in the last element of a large array is found") {
  // The last element repeats "a": its pointer is /zz/199999/a, and the value kept is the last one
  // written (7), as nlohmann/json keeps it.
  const std::string text = large_array(kLargeArrayObjects, kLargeArrayObjects - 1, R"(, "a": 7)");
  const JsonDocument doc = parse_json_document(text, "big.json");
  CHECK(doc.duplicate_keys == std::vector<std::string>{"/zz/199999/a"});
  CHECK(doc.value.at("zz").at(199'999).at("a") == 7);
  const Problem p = large_array_problem(kLargeArrayObjects - 1, R"(, "a": 7)");
  CHECK(p.pointer == "/zz/199999/a");
  CHECK(p.found == "the key written more than once");
}
