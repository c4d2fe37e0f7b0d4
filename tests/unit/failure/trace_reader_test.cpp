// The failure trace CSV reader (failure/failure_process.hpp, load_failure_trace): a good file
// with every allowed form, and bad files reported with the file, the line and what was wrong.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/failure_process.hpp"

using namespace ckptsim;

namespace {

/// Writes `text` to a fresh file in the temporary folder and removes it when destroyed.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() / ("ckptsim_trace_test_" + name)) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

/// The problems load_failure_trace reports for `text` (fails the test when it does not throw).
std::vector<Problem> problems_of(const std::string& name, const std::string& text, int machines = 4) {
  const TempFile file(name, text);
  try {
    (void)load_failure_trace(file.path(), machines);
  } catch (const InputError& e) {
    for (const auto& p : e.problems()) CHECK(p.file == file.path());
    return e.problems();
  }
  FAIL("expected an InputError for " << name);
  return {};
}

}  // namespace

TEST_CASE("trace reader: comments, blank lines, seconds and duration strings, sorted by time") {
  const TempFile file("good.csv",
                      "# provenance: hand-written test input\n"
                      "\n"
                      "time,machine,type\n"
                      "7200,3,hardware\n"
                      "  90.5 , 0 , software \n"
                      "1h,2,software\r\n"
                      "# a comment between records\n"
                      "2min,1,hardware\n");
  const auto records = load_failure_trace(file.path(), 4);
  // Sorted: 90.5 s, 120 s, 3600 s, 7200 s.
  REQUIRE(records.size() == 4);
  CHECK(records[0].time == SimTime::from_seconds(90.5));
  CHECK(records[0].machine == 0);
  CHECK(records[0].type == FailureType::software);
  CHECK(records[1].time == minutes(2));
  CHECK(records[1].machine == 1);
  CHECK(records[1].type == FailureType::hardware);
  CHECK(records[2].time == hours(1));
  CHECK(records[2].machine == 2);
  CHECK(records[3].time == hours(2));
  CHECK(records[3].machine == 3);
  CHECK(records[3].type == FailureType::hardware);
}

TEST_CASE("trace reader: a header alone is an empty trace") {
  const TempFile file("empty.csv", "time,machine,type\n");
  CHECK(load_failure_trace(file.path(), 2).empty());
}

TEST_CASE("trace reader: every bad line is reported with its line number and cell") {
  // Line 1 header; line 2 a machine out of range (4 machines: 0..3); line 3 an unknown type;
  // line 4 a time that is not a duration; line 5 two cells.
  const auto p = problems_of("bad.csv",
                             "time,machine,type\n"
                             "10,4,hardware\n"
                             "20,1,disk\n"
                             "soon,1,software\n"
                             "30,1\n");
  REQUIRE(p.size() == 4);
  CHECK(p[0].pointer == "/line/2/machine");
  CHECK(p[0].expected.find("0..3") != std::string::npos);
  CHECK(p[0].found == "\"4\"");
  CHECK(p[1].pointer == "/line/3/type");
  CHECK(p[1].found == "\"disk\"");
  CHECK(p[2].pointer == "/line/4/time");
  CHECK(p[2].found == "\"soon\"");
  CHECK(p[3].pointer == "/line/5");
  CHECK(p[3].found == "2 cells");
}

TEST_CASE("trace reader: a wrong or missing header, a negative machine, an empty or missing file") {
  CHECK(problems_of("header.csv", "when,where,what\n10,0,hardware\n")[0].pointer == "/line/1");
  CHECK(problems_of("negative.csv", "time,machine,type\n10,-1,hardware\n")[0].pointer == "/line/2/machine");
  CHECK(problems_of("only_comments.csv", "# nothing here\n")[0].found == "no lines");
  const std::string missing = (std::filesystem::temp_directory_path() / "ckptsim_no_such_trace.csv").string();
  CHECK_THROWS_AS((void)load_failure_trace(missing, 4), InputError);
}
