// The sweep journal: self-checking lines; corrupt and torn lines are dropped, the rest kept.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/sweep/evaluate.hpp"
#include "ckptsim/sweep/journal.hpp"
#include "ckptsim/sweep/spec.hpp"
#include "ckptsim/sweep/sweep.hpp"

using namespace ckptsim;
using namespace ckptsim::sweep;
using nlohmann::json;

namespace {

PointRecord record(std::int64_t index) {
  PointRecord r;
  r.index = index;
  r.values = {index * 10};
  r.status = PointStatus::ok;
  r.result = {{"summary", {{"ettr", {{"mean", 0.5}, {"ci95", 0.01}}}}}};
  return r;
}

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("ckptsim-journal-test-") + name)).string();
}

void append_raw(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

}  // namespace

TEST_CASE("journal: a line is 16 hex digits of FNV-1a, a space, the JSON text and a newline") {
  // FNV-1a of the two bytes "{}": the offset basis xor '{' times the prime, then xor '}' times
  // the prime; any valid line must start with that value written as 16 hex digits.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : std::string("{}")) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  CHECK(journal_line(json::object()) == std::string(hex) + " {}\n");
}

TEST_CASE("journal: written records read back; header kept; a torn last line is dropped") {
  const std::string path = temp_path("torn");
  std::filesystem::remove(path);
  {
    JournalWriter writer(path, {{"ckptsim_sweep_journal", 1}, {"spec_hash", "abc"}}, {{0, record(0)}});
    PointRecord one = record(1);
    PointRecord two = record(2);
    writer.append(one);
    writer.append(two);
  }
  append_raw(path, journal_line(record_to_json(record(3))).substr(0, 40));  // killed mid-write
  const auto contents = read_journal(path);
  REQUIRE(contents.header.has_value());
  CHECK(contents.header->at("spec_hash") == "abc");
  CHECK(contents.records.size() == 3);  // 0, 1, 2; the torn 3 is not a record
  CHECK(contents.records.count(3) == 0);
  CHECK(contents.dropped_lines == 1);
  CHECK(record_to_json(contents.records.at(2)) == record_to_json(record(2)));
  // Reopening rewrites only the valid lines, so the next append does not join the torn bytes.
  {
    JournalWriter writer(path, *contents.header, contents.records);
    PointRecord three = record(3);
    writer.append(three);
  }
  const auto again = read_journal(path);
  CHECK(again.records.size() == 4);
  CHECK(again.dropped_lines == 0);
  std::filesystem::remove(path);
}

TEST_CASE("journal: a line whose checksum does not match its text is dropped") {
  const std::string path = temp_path("corrupt");
  std::filesystem::remove(path);
  { JournalWriter writer(path, {{"ckptsim_sweep_journal", 1}}, {}); }
  std::string line = journal_line(record_to_json(record(5)));
  line[line.find("50")] = '9';  // a flipped digit in the values: still JSON, wrong checksum
  append_raw(path, line);
  append_raw(path, journal_line(record_to_json(record(6))));
  append_raw(path, journal_line(json{{"not", "a record"}}));  // checksum fine, not a record
  const auto contents = read_journal(path);
  CHECK(contents.records.size() == 1);
  CHECK(contents.records.count(6) == 1);
  CHECK(contents.dropped_lines == 2);
  std::filesystem::remove(path);
}

TEST_CASE("journal: a line with a valid checksum but JSON nested 100,000 deep is dropped, not parsed") {
  // The checksum only proves the line is what was written; a crafted journal can still hold a
  // document nested far beyond the 64 levels any input may have. Such a line is dropped like a
  // torn one (the depth-checked parser refuses it), and the valid record after it is kept.
  const std::string path = temp_path("deep");
  std::filesystem::remove(path);
  { JournalWriter writer(path, {{"ckptsim_sweep_journal", 1}}, {}); }
  const std::string text = std::string(100000, '[') + std::string(100000, ']');
  append_raw(path, fmt::format("{:016x} {}\n", ckptsim::fnv1a_64(text), text));
  append_raw(path, journal_line(record_to_json(record(7))));
  const auto contents = read_journal(path);
  CHECK(contents.records.size() == 1);
  CHECK(contents.records.count(7) == 1);
  CHECK(contents.dropped_lines == 1);
  std::filesystem::remove(path);
}

TEST_CASE("journal: a missing file reads as empty") {
  const auto contents = read_journal(temp_path("missing-never-created"));
  CHECK_FALSE(contents.header.has_value());
  CHECK(contents.records.empty());
}

TEST_CASE("journal: a FIFO or a device is refused at once, a missing journal reads as empty") {
  const std::string fifo = temp_path("fifo");
  std::remove(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_AS(read_journal(fifo), InputError);  // a blocking read would wait for a writer for ever
  std::remove(fifo.c_str());
  CHECK_THROWS_AS(read_journal("/dev/zero"), InputError);  // would read without end
  const JournalContents none = read_journal(temp_path("absent"));
  CHECK(none.records.empty());
  CHECK_FALSE(none.header.has_value());
}

TEST_CASE("journal: --resume refuses a journal.jsonl that is not a journal, or a link, and leaves it alone") {
  namespace fs = std::filesystem;
  const fs::path dir = temp_path("resume-folder");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const SweepSpec spec = load_sweep_spec_json({{"base", {{"name", "b"}}}, {"axes", json::array()}}, "spec.json", ".");
  SweepOptions o;
  o.out_dir = dir.string();
  o.resume = true;
  { std::ofstream(dir / "journal.jsonl") << "my notes\n"; }
  CHECK_THROWS_AS(run_sweep(spec, o), InputError);
  std::ifstream kept(dir / "journal.jsonl");
  std::string line;
  std::getline(kept, line);
  CHECK(line == "my notes");
  // A link (even to a file outside the folder) is never written through.
  fs::remove(dir / "journal.jsonl");
  const fs::path outside = temp_path("outside.txt");
  { std::ofstream(outside) << "outside\n"; }
  fs::create_symlink(outside, dir / "journal.jsonl");
  CHECK_THROWS_AS(run_sweep(spec, o), InputError);
  std::ifstream still(outside);
  std::getline(still, line);
  CHECK(line == "outside");
  fs::remove_all(dir);
  fs::remove(outside);
}

TEST_CASE("point records: the three statuses round-trip by name; any other status is not a record") {
  // The names are the status column of points.csv and the journal's "status" (evaluate.hpp).
  for (const PointStatus s : {PointStatus::ok, PointStatus::invalid, PointStatus::error}) {
    PointRecord r;
    r.index = 3;
    r.status = s;
    CHECK(record_from_json(record_to_json(r)).status == s);
    CHECK(parse_status(status_name(s)) == s);
  }
  CHECK(status_name(PointStatus::invalid) == "invalid");
  CHECK_FALSE(parse_status("OK").has_value());
  // A journal line with a status no version wrote is a corrupt line (record_from_json throws).
  const nlohmann::json odd = {{"index", 0}, {"values", nlohmann::json::array()}, {"status", "done"}, {"result", nullptr}};
  CHECK_THROWS_AS(record_from_json(odd), std::invalid_argument);
}
