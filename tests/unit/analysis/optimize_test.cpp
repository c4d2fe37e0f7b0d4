// The optimizer (analysis/optimizer.hpp) and `ckptsim optimize`.
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/optimizer.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/vary_axis.hpp"
#include "ckptsim/core/error.hpp"

namespace ckptsim {
namespace {

using cli::parse_vary_axis;

const std::string kPaper40b = std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper/gpt2-40b-16xp3dn.json";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("--vary axes: JSON values where they parse, strings otherwise") {
  const VaryAxis a = parse_vary_axis("/strategy/replicas=2,3,4");
  CHECK(a.pointer == "/strategy/replicas");
  REQUIRE(a.values.size() == 3);
  CHECK(a.values[0] == 2);
  CHECK(a.values[2] == 4);
  const VaryAxis b = parse_vary_axis("/strategy/gpu_buffer=64MiB, 128MiB");
  REQUIRE(b.values.size() == 2);
  CHECK(b.values[0] == "64MiB");
  CHECK(b.values[1] == "128MiB");
  const VaryAxis c = parse_vary_axis("/training/activation_recomputation=true,false");
  CHECK(c.values[0] == true);
  CHECK_THROWS_AS((void)parse_vary_axis("/strategy/replicas"), cli::UsageError);
  CHECK_THROWS_AS((void)parse_vary_axis("strategy/replicas=2"), cli::UsageError);
  CHECK_THROWS_AS((void)parse_vary_axis("/strategy/replicas=2,,3"), cli::UsageError);
}

TEST_CASE("optimize: CPU memory rejections, the best ETTR and why the runner-up lost") {
  // GPT-2 40B on 16 x p3dn (768 GiB CPU memory each): a shard is 40.5e9 x 12 / 16 = 30.4 GB
  // (28.3 GiB), so m replicas need 2 m x 28.3 GiB: m = 16 needs 906 GiB and does not fit;
  // m = 2 and m = 4 fit. More replicas send m - 1 copies over the 100 Gbps NIC each iteration:
  // 1 copy (2.4 s) hides in the idle time, 3 copies (7.3 s) do not, so m = 4 stalls training
  // (first-order gemini costs) and loses on checkpoint stall.
  const nlohmann::json doc = read_json(kPaper40b);
  OptimizeOptions options;
  const OptimizeResult r =
      optimize(doc, kPaper40b, std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper",
               {parse_vary_axis("/strategy/replicas=2,4,16"), parse_vary_axis("/strategy/every_iterations=1")}, options);
  REQUIRE(r.candidates.size() == 3);
  CHECK(r.ranking == "closed form");
  CHECK(r.candidates[0].status == CandidateStatus::ok);
  CHECK(r.candidates[1].status == CandidateStatus::ok);
  CHECK(r.candidates[2].status == CandidateStatus::does_not_fit_cpu);
  CHECK(r.candidates[2].reason.find("/cluster/cpu_memory") != std::string::npos);
  REQUIRE(r.best);
  REQUIRE(r.runner_up);
  CHECK(*r.best == 0);
  CHECK(*r.runner_up == 1);
  CHECK(r.candidates[1].shares.at("checkpoint_stall") > r.candidates[0].shares.at("checkpoint_stall"));
  CHECK(r.why_runner_up_lost.find("checkpoint stall") != std::string::npos);
  CHECK(r.candidates[0].label() == "/strategy/replicas=2 /strategy/every_iterations=1");
}

TEST_CASE("optimize: combinations in order, last axis fastest; invalid values are reported, not thrown") {
  nlohmann::json doc = read_json(kPaper40b);
  // A 400 Gbps network, on which the checkpoint hides in one iteration's idle spans (p3dn's
  // 100 Gbps at the measured collective factor leaves too little idle time for that).
  doc["cluster"]["network_bandwidth"] = "400Gbps";
  OptimizeOptions options;
  const OptimizeResult r = optimize(doc, kPaper40b, "",
                                    {parse_vary_axis("/strategy/every_iterations=1,2"),
                                     parse_vary_axis("/strategy/replicas=2,\"two\"")},
                                    options);
  REQUIRE(r.candidates.size() == 4);
  CHECK(r.candidates[0].label() == "/strategy/every_iterations=1 /strategy/replicas=2");
  CHECK(r.candidates[1].label() == "/strategy/every_iterations=1 /strategy/replicas=two");
  CHECK(r.candidates[2].label() == "/strategy/every_iterations=2 /strategy/replicas=2");
  CHECK(r.candidates[1].status == CandidateStatus::invalid);
  CHECK(r.candidates[3].status == CandidateStatus::invalid);
  // Fewer lost iterations with a checkpoint every iteration: k = 1 wins over k = 2.
  REQUIRE(r.best);
  CHECK(*r.best == 0);
  CHECK(*r.runner_up == 2);
  CHECK(r.why_runner_up_lost.find("lost progress") != std::string::npos);
  // A pointer below a number cannot be written: an input error naming the number's pointer.
  try {
    (void)optimize(doc, kPaper40b, "", {parse_vary_axis("/strategy/replicas/x=1")}, options);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].pointer == "/strategy/replicas");
  }
  // Missing objects on the way are created: /cluster/network/x/y needs "x" under network, which
  // the loader then rejects as an unknown key (an invalid candidate, not an error).
  const OptimizeResult created = optimize(doc, kPaper40b, "", {parse_vary_axis("/cluster/network/x/y=1")}, options);
  REQUIRE(created.candidates.size() == 1);
  CHECK(created.candidates[0].status == CandidateStatus::invalid);
}

TEST_CASE("optimize: a GPU check hook rejects combinations; Monte Carlo ranking when replicas > 0") {
  const nlohmann::json doc = read_json(kPaper40b);
  OptimizeOptions options;
  options.replicas = 20;
  options.gpu_check = [](const Scenario& s) -> std::optional<std::string> {
    if (s.strategy.replicas > 2) return std::string("GPU buffer too large (test hook)");
    return std::nullopt;
  };
  const OptimizeResult r = optimize(doc, kPaper40b, "", {parse_vary_axis("/strategy/replicas=2,4")}, options);
  CHECK(r.gpu_checked);
  CHECK(r.ranking == "Monte Carlo mean (20 replicas)");
  CHECK(r.candidates[1].status == CandidateStatus::does_not_fit_gpu);
  REQUIRE(r.candidates[0].simulated);
  CHECK(r.candidates[0].simulated->replicas == 20);
  CHECK(r.candidates[0].ettr == r.candidates[0].simulated->at("ettr").mean);
  CHECK_FALSE(r.runner_up);
}

TEST_CASE("ckptsim optimize and analyze: usage errors, input errors, JSON output") {
  std::ostringstream out;
  std::ostringstream err;
  // No --vary: usage error (exit 2).
  CHECK(cli::dispatch({"optimize", kPaper40b}, out, err) == 2);
  CHECK(cli::dispatch({"optimize", kPaper40b, "--vary", "replicas=2"}, out, err) == 2);
  // A missing scenario file is an input error (exit 2).
  CHECK(cli::dispatch({"optimize", "/nonexistent.json", "--vary", "/strategy/replicas=2"}, out, err) == 2);
  CHECK(cli::dispatch({"analyze", "/nonexistent.json"}, out, err) == 2);
  CHECK(cli::dispatch({"analyze"}, out, err) == 2);
  // JSON: every combination, the best and the runner-up.
  std::ostringstream json_out;
  REQUIRE(cli::dispatch({"optimize", kPaper40b, "--vary", "/strategy/replicas=2,4,16", "--json"}, json_out, err) == 0);
  const auto doc = nlohmann::json::parse(json_out.str());
  CHECK(doc["candidates"].size() == 3);
  CHECK(doc["candidates"][2]["status"] == "does not fit (CPU memory)");
  CHECK(doc["best"]["settings"]["/strategy/replicas"] == 2);
  CHECK(doc["runner_up"]["settings"]["/strategy/replicas"] == 4);
  CHECK(doc["gpu_memory_checked"] == true);
  // analyze --json: closed form beside the simulation for the same metric names.
  std::ostringstream analyze_out;
  REQUIRE(cli::dispatch({"analyze", kPaper40b, "--json", "--replicas", "50"}, analyze_out, err) == 0);
  const auto a = nlohmann::json::parse(analyze_out.str());
  CHECK(a["closed_form"]["available"] == true);
  CHECK(a["metrics"]["ettr"].contains("closed"));
  CHECK(a["metrics"]["ettr"]["simulated"].contains("ci95"));
  CHECK(a["replicas"] == 50);
  CHECK(a["closed_form"]["intervals"].contains("daly_s"));
}

TEST_CASE("optimize: standby pool sizing by goodput per machine-hour") {
  // 16 machines. A standby machine removes the replacement wait of the hardware failures that
  // find it free, so ETTR cannot fall with more standbys (closed form: Erlang loss term), but
  // each costs a machine-hour per hour: goodput per machine-hour = ETTR x 16 / (16 + s).
  // At 1.5%/machine/day, half hardware, 4-7 min replacements (mean 5.5 min), the waits are about
  // 16 x 0.0075 x 330 s = 40 s a day (0.05% of the time) while one standby costs 1/17 = 5.9% of
  // the machine-hours: s = 0 wins, then s = 1; s = 16 halves the goodput.
  const nlohmann::json doc = read_json(kPaper40b);
  OptimizeOptions options;
  options.objective = OptimizeObjective::goodput_per_machine_hour;
  const OptimizeResult r = optimize(doc, kPaper40b, std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper",
                                    {parse_vary_axis("/cluster/standby_machines=16,1,0")}, options);
  REQUIRE(r.candidates.size() == 3);
  for (const auto& c : r.candidates) {
    REQUIRE(c.status == CandidateStatus::ok);
    CHECK(c.goodput_per_machine_hour == doctest::Approx(c.ettr * 16.0 / (16.0 + c.standby)));
  }
  CHECK(r.candidates[1].ettr >= r.candidates[2].ettr);  // a standby never lowers ETTR
  CHECK(r.candidates[0].ettr >= r.candidates[1].ettr);
  REQUIRE(r.best.has_value());
  REQUIRE(r.runner_up.has_value());
  CHECK(r.candidates[*r.best].standby == 0);
  CHECK(r.candidates[*r.runner_up].standby == 1);
  CHECK(r.why_runner_up_lost.find("standby") != std::string::npos);
  CHECK(r.ranking.find("goodput per machine-hour") != std::string::npos);
}

}  // namespace ckptsim
