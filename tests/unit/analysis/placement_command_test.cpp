// `ckptsim placement` end to end through cli::dispatch (src/cli/command_placement.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim {
namespace {

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  std::vector<std::string> argv{"placement"};
  argv.insert(argv.end(), args.begin(), args.end());
  const int code = cli::dispatch(argv, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("placement command: JSON by scheme and k") {
  const Run r = run({"--machines", "4", "--replicas", "2", "--failures", "1..3", "--scheme", "group,ring", "--json"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  // Group N=4, m=2: k=1 -> 1, k=2 -> 4/6 (the two groups are the only lost pairs), k=3 -> 0.
  CHECK(doc["schemes"]["group"]["k"] == nlohmann::json::array({1, 2, 3}));
  CHECK(doc["schemes"]["group"]["probability"][1].get<double>() == doctest::Approx(4.0 / 6.0));
  CHECK(doc["schemes"]["group"]["probability"][2].get<double>() == 0.0);
  CHECK(doc["schemes"]["group"]["log10_probability"][2].is_null());  // log10 0
  // Ring N=4, m=2: the 4 cycle edges are lost pairs: k=2 -> 2/6.
  CHECK(doc["schemes"]["ring"]["probability"][1].get<double>() == doctest::Approx(2.0 / 6.0));
  CHECK(doc["schemes"]["ring"]["exact"] == true);
  CHECK(doc["machines"] == 4);
  CHECK(doc["manifest"]["command_line"].get<std::string>().find("placement") != std::string::npos);
}

TEST_CASE("placement command: a scheme that cannot place is reported, not fatal") {
  const Run r = run({"--machines", "5", "--replicas", "2", "--scheme", "all", "--json", "--window-probability", "1%"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["schemes"]["group"]["applicable"] == false);
  CHECK(doc["schemes"]["mixed"]["applicable"] == true);
  CHECK(doc["schemes"]["random"]["applicable"] == true);
  CHECK(doc["schemes"]["ring"]["window"]["probability"].get<double>() > 0.99);
  const Run table = run({"--machines", "5", "--replicas", "2"});
  CHECK(table.code == 0);
  CHECK(table.out.find("n/a") != std::string::npos);
  CHECK(table.out.find("not applicable") != std::string::npos);
}

TEST_CASE("placement command: Monte Carlo when no exact method applies") {
  // Random placement on 40 machines with m = 3: 40 distinct triples linking all machines into
  // one component, too many for inclusion-exclusion or enumeration.
  const Run r = run({"--machines", "40", "--replicas", "3", "--scheme", "random", "--samples", "2000", "--json"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["schemes"]["random"]["exact"] == false);
  CHECK(doc["schemes"]["random"]["monte_carlo"]["samples"] == 2000);
  CHECK(doc["schemes"]["random"]["probability"][0].get<double>() == 1.0);
}

TEST_CASE("placement command: usage errors and memory that does not fit exit with 2") {
  CHECK(run({"--machines", "4", "--replicas", "5"}).code == 2);
  CHECK(run({"--machines", "4"}).code == 2);
  CHECK(run({"--machines", "4", "--replicas", "2", "--scheme", "nosuch"}).code == 2);
  CHECK(run({"--machines", "4", "--replicas", "2", "--failures", "3..2"}).code == 2);
  CHECK(run({"--machines", "4", "--replicas", "2", "--failures", "x"}).code == 2);
  CHECK(run({"--machines", "4", "--replicas", "2", "--cpu-memory", "1TB"}).code == 2);
  CHECK(run({"--machines", "4", "--replicas", "2", "--bogus"}).code == 2);
  CHECK(run({"--help"}).code == 0);
  // 2 buffers x 2 shards x 100 GB = 400 GB per machine.
  const Run tight = run({"--machines", "4", "--replicas", "2", "--shard-bytes", "100GB", "--cpu-memory", "300GB"});
  CHECK(tight.code == 2);
  CHECK(tight.err.find("--cpu-memory") != std::string::npos);
  CHECK(run({"--machines", "4", "--replicas", "2", "--shard-bytes", "100GB", "--cpu-memory", "400GB"}).code == 0);
}

TEST_CASE("placement command: explicit placement file") {
  const auto path = std::filesystem::temp_directory_path() / "ckptsim_placement_command_test.json";
  {
    std::ofstream out(path);
    out << R"({"machines": 4, "holders": [[0, 1], [1, 0], [2, 3], [3, 2]]})";
  }
  const Run r = run({"--placement-file", path.string(), "--failures", "2", "--json"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  // The file is group placement of N=4, m=2: P_2 = 4/6.
  CHECK(doc["schemes"]["file"]["probability"][0].get<double>() == doctest::Approx(4.0 / 6.0));
  CHECK(run({"--placement-file", path.string(), "--machines", "5", "--replicas", "2"}).code == 2);
  {
    std::ofstream out(path);
    out << R"({"machines": 4, "holders": [[0, 1]]})";
  }
  const Run bad = run({"--placement-file", path.string()});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("/holders") != std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace ckptsim
