// Every file in scenarios/invalid/ must fail to load, naming the JSON pointer and a message
// substring listed for it in scenarios/invalid/expected.json (CONTRIBUTING.md, style habit 11).
// Entries with "stage": "run" load, and must fail the checks every command makes before a run
// (run/run_checks.hpp: the clock range of the costs and the run's worst-case horizon, a
// ModelError; the work limits, a LimitError), with the pointer and the substring in the message.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/scenario/loader.hpp"

using namespace ckptsim;

TEST_SUITE_BEGIN("scenario");

TEST_CASE("invalid corpus: each file fails with its expected pointer and message") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(CKPTSIM_SOURCE_ROOT) / "scenarios" / "invalid";
  std::ifstream in(folder / "expected.json");
  REQUIRE(in.good());
  const auto expected = nlohmann::json::parse(in);
  CHECK(expected.size() >= 18);

  // Every bad file has an expectation (a new file cannot be forgotten).
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name == "expected.json") continue;
    CAPTURE(name);
    CHECK(expected.contains(name));
  }

  for (const auto& item : expected.items()) {
    // Copies, not structured bindings: clang 14 cannot capture a binding in CAPTURE's lambda.
    const std::string name = item.key();
    const auto& want = item.value();
    CAPTURE(name);
    const std::string pointer = want.at("pointer").get<std::string>();
    const std::string contains = want.at("contains").get<std::string>();
    if (want.value("stage", "load") == "run") {
      const Scenario scenario = load_scenario_file((folder / name).string());
      std::string message;
      try {
        const RunChecks checks;
        const StrategyCosts costs = checked_strategy_costs(scenario, checks);
        (void)checked_run_model(scenario, costs, scenario.run.replicas, checks);
      } catch (const ModelError& e) {
        message = e.what();
      } catch (const LimitError& e) {
        message = e.what();
      }
      CAPTURE(message);
      // "file: /pointer: ..." (the file named first, then the field responsible)
      CHECK(message.find(name + ": " + pointer) != std::string::npos);
      CHECK(message.find(contains) != std::string::npos);
      continue;
    }
    bool threw = false;
    try {
      load_scenario_file((folder / name).string());
    } catch (const InputError& e) {
      threw = true;
      bool matched = false;
      for (const auto& p : e.problems())
        matched = matched || (p.pointer == pointer && format_problem(p).find(contains) != std::string::npos);
      CAPTURE(e.what());
      CHECK(matched);
    }
    CHECK(threw);
  }
}

TEST_SUITE_END();
