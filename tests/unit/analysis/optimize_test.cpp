// The optimizer (analysis/optimizer.hpp) and `ckptsim optimize`.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/just_in_time_model.hpp"
#include "ckptsim/analysis/optimizer.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/analysis/optimize_study.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/resolve_costs.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/scenario/loader.hpp"

namespace ckptsim {
namespace {


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
  CHECK_THROWS_AS((void)parse_vary_axis("/strategy/replicas"), ModelError);
  CHECK_THROWS_AS((void)parse_vary_axis("strategy/replicas=2"), ModelError);
  CHECK_THROWS_AS((void)parse_vary_axis("/strategy/replicas=2,,3"), ModelError);
}

TEST_CASE("optimizer axes from a pointer and values (the Python module's dict), and the axes' checks") {
  // The values are kept as given (JSON), in order; the errors name the parameter "vary".
  const VaryAxis a = make_vary_axis("/strategy/gpu_buffer", {"64MiB", 128});
  CHECK(a.pointer == "/strategy/gpu_buffer");
  CHECK(a.values == std::vector<nlohmann::json>{"64MiB", 128});
  const auto parameter_of = [](auto call) {
    try {
      call();
    } catch (const ModelError& e) {
      return e.parameter();
    }
    return std::string("nothing thrown");
  };
  CHECK(parameter_of([] { (void)make_vary_axis("strategy/replicas", {2}); }) == "vary");  // no leading '/'
  CHECK(parameter_of([] { (void)make_vary_axis("/strategy/~2", {2}); }) == "vary");       // "~2" is no RFC 6901 escape
  CHECK(parameter_of([] { (void)make_vary_axis("/strategy/replicas", {}); }) == "vary");  // no values
  CHECK(parameter_of([] { check_vary_axes({}); }) == "vary");                              // no axis
  // The same pointer twice, and an enclosing pointer after an enclosed one (it would replace it).
  const VaryAxis replicas = make_vary_axis("/strategy/replicas", {2});
  CHECK(parameter_of([&] { check_vary_axes({replicas, replicas}); }) == "vary");
  CHECK(parameter_of([&] { check_vary_axes({replicas, make_vary_axis("/strategy", {nlohmann::json::object()})}); }) ==
        "vary");
  CHECK_NOTHROW(check_vary_axes({make_vary_axis("/strategy", {nlohmann::json::object()}), replicas}));
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

TEST_CASE("optimize: just-in-time with frequent fallbacks ranks by Monte Carlo, which picks the shortest interval") {
  // Issue 38, item 5: the just-in-time closed form leaves out the fallback to the periodic
  // checkpoint; with nothing listed in omitted_terms, optimize ranked by that form, which sees
  // only the periodic stalls and so always prefers the longest interval (8 h here).
  // The case (the small scenario of tests/unit/common/test_scenarios.hpp as a document): 16
  // machines, G = 2 (machines j and j + 8 hold one shard), T = 60 s, C = 12 GB, storage 100 MB/s:
  // stall S = 120 s per periodic checkpoint, save J = 120 s, retrieval 120.75 s. Failures 100 %
  // per machine per day (lambda = 1/day, Lambda = 16/day: segments Exp with mean 5400 s), all
  // hardware, 2 h replacements, no standby: each failure keeps the job down
  // L = 15 + max(J, 7200) + 120.75 + 60 = 7395.75 s, Lambda L = 1.37, so episodes hold about
  // e^1.37 = 3.9 failures, and the other holder of a failed machine's shard fails within one L
  // with probability 1 - e^{-7395.75/86400} = 0.082 per failure: fallbacks are frequent.
  // A fallback rolls back to the latest periodic checkpoint of the segment before the episode,
  // else to the segment's start (the previous recovery's state, in storage). Interval 8 h: a
  // segment reaches its first checkpoint with probability e^{-28800/5400} = 0.005, so the whole
  // segment is lost, 5400 s on average. Interval 1 h: checkpoints every D = 3600 + 120 s of
  // segment time, rollback E[X mod D] = 5400 - D q / (1 - q), q = e^{-D/5400} = 0.502: 1649 s,
  // about 3750 s less per fallback; its price is e^{-3600/5400} / (1 - q) = 1.03 stalls, 124 s,
  // per segment. So 1 h beats 8 h once more than 124 / 3750 = 3.3 % of episodes fall back.
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"machines": 16, "gpus_per_machine": 8, "gpu_memory": "40GB", "cpu_memory": "1TB",
                "gpu_peak_flops": "312TFLOPS", "gpu_memory_bandwidth": "1555GB/s", "gpu_cpu_bandwidth": "25GB/s",
                "nvlink_bandwidth": "300GB/s", "network_bandwidth": "8Gbps"},
    "storage": {"bandwidth": "100MB/s"},
    "model": {"parameters": 1e9, "layers": 24, "hidden": 2048, "ffn": 8192, "heads": 16, "vocabulary": 50257},
    "training": {"serialization_bandwidth": "1GB/s", "iteration_time": "60s"},
    "strategy": {"kind": "just-in-time", "replica_groups": 2, "interval": "3h"},
    "failures": {"process": "exponential", "rate": "100%/machine/day", "hardware_fraction": 1.0,
                 "detection": "15s", "restart": "60s", "replacement": "2h"},
    "run": {"duration": "10d", "replicas": 200, "seed": 7}
  })");
  const VaryAxis intervals = parse_vary_axis("/strategy/interval=1h,2h,4h,8h");
  const OptimizeResult r = optimize(doc, "fallbacks.json", "", {intervals}, OptimizeOptions{});
  REQUIRE(r.candidates.size() == 4);
  // The closed form names the fallback, so every candidate is simulated (its run.replicas).
  CHECK(r.ranking.find("Monte Carlo mean (200 replicas)") == 0);
  CHECK(std::find(r.closed_form_omits.begin(), r.closed_form_omits.end(), kJitFallbackOmitted) !=
        r.closed_form_omits.end());
  // The run model on its own, interval by interval: the best is optimize's best, and it is 1 h,
  // clear of 8 h beyond both intervals, with the fallback share the argument above needs.
  std::vector<Summary> ettr;
  for (const nlohmann::json& interval : intervals.values) {
    nlohmann::json edited = doc;
    edited["strategy"]["interval"] = interval;
    const Scenario s = load_scenario_json(edited, "fallbacks.json", "");
    MonteCarloOptions mc;
    mc.replicas = s.run.replicas;
    const RunSummary summary = summarize(run_replicas(RunModel(s, resolve_strategy_costs(s)), mc));
    ettr.push_back(summary.metrics.at("ettr"));
    if (interval == "1h")
      CHECK(summary.metrics.at("recoveries.jit_fallback").mean > 0.033 * summary.metrics.at("episodes").mean);
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < ettr.size(); ++i)
    if (ettr[i].mean > ettr[best].mean) best = i;
  CHECK(best == 0);
  CHECK(ettr[0].mean - ettr[3].mean > ettr[0].ci95 + ettr[3].ci95);
  REQUIRE(r.best.has_value());
  CHECK(*r.best == best);
  CHECK(r.candidates[*r.best].ettr == doctest::Approx(ettr[best].mean).epsilon(1e-12));
}

}  // namespace ckptsim
