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

namespace ckptsim {

TEST_CASE("placement command: a placement without an exact method gets a Monte Carlo window estimate") {
  // Random placement, N = 60, m = 3: 60 distinct holder sets in one component (more than the
  // 22 of inclusion-exclusion, more machines than enumeration takes): no exact counts, so the
  // window probability comes from the Monte Carlo estimates of every P_k.
  const Run r = run({"--machines", "60", "--replicas", "3", "--scheme", "random", "--failures", "3",
                     "--window-probability", "1%", "--json"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& s = doc["schemes"]["random"];
  CHECK(s["exact"] == false);
  CHECK(s["method"] == "monte carlo");
  const auto& w = s["window"];
  CHECK(w["relative_error_bound"].is_null());  // Monte Carlo: no error bound
  const double p = w["probability"].get<double>();
  CHECK(w["failure_probability"].get<double>() == doctest::Approx(1.0 - p));
  CHECK(w["expected_storage_machines"].get<double>() == doctest::Approx(60 * (1.0 - p)));
  // 60 holder sets of 3: sum p^3 = 60 x 1e-6.
  CHECK(w["expected_lost_checkpoints"].get<double>() == doctest::Approx(6e-5));
  // P(some set of 3 all failed) <= 60 x 1e-6 (union bound), so P(recover) >= 0.99994; the
  // estimate of P_k is 1 for the k that carry the weight (k <= 3 with ~98% of it), so it is near 1.
  CHECK(p >= 0.999);
  CHECK(p <= 1.0);
}

TEST_CASE("placement command: a ring past the closed form's memory limit falls back to Monte Carlo") {
  const Run r = run({"--machines", "200000", "--replicas", "3", "--scheme", "ring", "--failures", "3", "--json"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& s = doc["schemes"]["ring"];
  CHECK(s["method"] == "monte carlo");
  CHECK(s["k"] == nlohmann::json::array({3}));
  // P_3 = 1 - 6 / ((N-1)(N-2)) = 1 - 1.5e-10: every one of the 10,000 samples recovers.
  CHECK(s["probability"][0].get<double>() == 1.0);
}

}  // namespace ckptsim
