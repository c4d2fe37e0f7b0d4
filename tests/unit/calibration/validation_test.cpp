// The plan and measured-timeline readers of the calibration layer and the validation
// statistics, on a two-rank plan written here by hand: every expected value follows from the
// plan's planned times and a stretch factor f applied to all measured times (every relative
// error is then f - 1), or from counting.
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/plan_file.hpp"
#include "ckptsim/calibration/validation.hpp"
#include "ckptsim/core/error.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

// Ops: 0 marker; 1 all-gather [0, 0.1]; 2 forward compute [0.1, 0.3] (deps 1); 3 backward
// compute [0.3, 0.4]; 4 reduce-scatter [0.4, 0.45] (deps 3); 5 optimizer [0.45, 0.5]. One chunk
// per rank of 1e6 bytes to the other rank, alpha 1 ms, B 1e7 B/s: predicted send 0.101 s.
json plan_doc() {
  auto op = [](int id, const char* kind, const char* cat, json deps, double s, double e) {
    json o = {{"id", id}, {"kind", kind}, {"category", cat}, {"stage", 0}, {"deps", deps}, {"planned_start_s", s}, {"planned_end_s", e}};
    if (std::string(kind) == "compute") o["flops"] = 1e9, o["duration_s"] = e - s;
    if (std::string(kind) == "collective") o["bytes"] = 1e6;
    return o;
  };
  json ops = json::array({op(0, "marker", "marker", json::array(), 0, 0), op(1, "collective", "all-gather", {0}, 0, 0.1),
                          op(2, "compute", "forward", {1}, 0.1, 0.3), op(3, "compute", "backward", {2}, 0.3, 0.4),
                          op(4, "collective", "reduce-scatter", {3}, 0.4, 0.45), op(5, "compute", "optimizer", {4}, 0.45, 0.5)});
  auto rank = [](int r) {
    return json{{"rank", r}, {"peers", {1 - r}}, {"local_copy", {{"planned_start_s", 0.0}}},
                {"chunks", json::array({{{"index", 0}, {"copy", 0}, {"peer", 1 - r}, {"span", 0}, {"offset_s", 0.0},
                                         {"planned_start_s", 0.1}, {"bytes", 1e6}, {"sub_buffer", 0}}})}};
  };
  return {{"format", "ckptsim-plan/1"}, {"scenario", "hand"}, {"scheduler", "gemini"},
          {"cluster", {{"ranks", 2}, {"gpus_per_machine", 1}}},
          {"parameters", {{"shard_bytes", 1e6}, {"copies", 1}, {"sub_buffers", 1}, {"chunk_limit_bytes", 1e6}, {"alpha_s", 1e-3},
                          {"bandwidth_per_gpu_bytes_per_s", 1e7}, {"blocks_training", false}}},
          {"iteration", {{"iteration_time_s", 0.5}, {"profile", "simulated"},
                         {"idle_spans", json::array({{{"start_s", 0.1}, {"length_s", 0.3}, {"after_op", 1}}})}, {"operations", ops}}},
          {"ranks", json::array({rank(0), rank(1)})},
          {"summary", {{"iteration_time_with_checkpoint_s", 0.5}, {"checkpoint_time_s", 0.25}}}};
}

// The plan's prediction, every time stretched by f, as a measured timeline of that plan.
json measured_doc(const PlanFile& plan, double f, int iterations = 2) {
  MeasuredTimeline h;
  h.backend = "mpi";
  h.command_line = "test";
  h.plan_hash = plan.hash;
  h.plan_file = "plan.json";
  h.plan_scenario = "hand";
  h.plan_scheduler = "gemini";
  h.plan_ranks = 2;
  json ranks = json::array();
  for (int r = 0; r < 2; ++r) {
    MeasuredRank mr;
    mr.rank = r;
    for (int i = 0; i < iterations; ++i) {
      MeasuredIteration it;
      it.iteration = i;
      it.iteration_time_s = f * 0.5;
      it.checkpoint_time_s = f * 0.25;
      for (const PlanOp& p : plan.ops) {
        if (p.kind == OpKind::marker) continue;
        it.operations.push_back({p.id, to_string(p.kind), p.category, {f * p.planned_start_s, f * p.planned_end_s}, p.flops, p.bytes});
      }
      it.sends.push_back({0, 0, 1 - r, 1e6, {f * 0.1, f * (0.1 + 0.101)}});
      it.copies.push_back({1 - r, 0, 1e6, {f * 0.1, f * 0.2}, {f * 0.2, f * 0.25}});
      it.local_copy = {0, f * 0.01};
      mr.iterations.push_back(it);
    }
    ranks.push_back(measured_rank_json(mr));
  }
  return measured_timeline_json(h, ranks);
}

std::string pointer_of(const json& doc, const PlanFile& plan) {
  try {
    (void)validate(plan, parse_measured_timeline(doc, "m.json"), 0.1);
  } catch (const InputError& e) {
    return e.problems().front().pointer;
  }
  return "accepted";
}

}  // namespace

TEST_CASE("plan file: phases, hash and identity") {
  const PlanFile plan = parse_plan_file(plan_doc(), "plan.json", 1e12);
  // The all-gather feeds the forward op (its first consumer); the reduce-scatter's producer is
  // the backward op.
  CHECK(plan.ops[1].phase == "forward");
  CHECK(plan.ops[4].phase == "backward");
  CHECK(plan.ops[5].phase == "optimizer");
  CHECK(plan.optimizer_op == 5);
  CHECK(plan.alpha_s == doctest::Approx(1e-3));
  // The hash depends on the content, not on whitespace or key order: the same document dumped
  // pretty and reparsed hashes the same; a changed value does not.
  CHECK(plan.hash.size() == 16);
  CHECK(plan_hash(json::parse(plan_doc().dump(2))) == plan.hash);
  json other = plan_doc();
  other["parameters"]["alpha_s"] = 2e-3;
  CHECK(plan_hash(other) != plan.hash);
}

TEST_CASE("plan file: a zero bandwidth and missing planned times are refused at their pointers") {
  json d = plan_doc();
  d["parameters"]["bandwidth_per_gpu_bytes_per_s"] = 0;
  CHECK_THROWS_WITH_AS(parse_plan_file(d, "p.json", 1e12), doctest::Contains("/parameters/bandwidth_per_gpu_bytes_per_s"), InputError);
  d = plan_doc();
  d["iteration"]["operations"][2].erase("planned_start_s");
  CHECK_THROWS_WITH_AS(parse_plan_file(d, "p.json", 1e12), doctest::Contains("/iteration/operations/2/planned_start_s"), InputError);
}

TEST_CASE("measured timeline: written and read back unchanged") {
  const PlanFile plan = parse_plan_file(plan_doc(), "plan.json", 1e12);
  const json doc = measured_doc(plan, 1.0);
  const MeasuredTimeline t = parse_measured_timeline(doc, "m.json");
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.plan_hash == plan.hash);
  CHECK(t.ranks[1].iterations.size() == 2);
  CHECK(t.ranks[1].iterations[0].operations.size() == 5);
  CHECK(t.ranks[1].iterations[0].sends[0].span.end_s == doctest::Approx(0.201));
  // Writing what was read gives the same ranks.
  json again = json::array();
  for (const MeasuredRank& r : t.ranks) again.push_back(measured_rank_json(r));
  CHECK(again == doc["ranks"]);
}

TEST_CASE("validation: stretched times give f - 1 everywhere, per kind and per phase") {
  const PlanFile plan = parse_plan_file(plan_doc(), "plan.json", 1e12);
  const Validation v = validate(plan, parse_measured_timeline(measured_doc(plan, 1.2), "m.json"), 0.1);
  // 2 ranks x 2 iterations: each op kind has 2 x 2 x (ops of that kind) samples.
  CHECK(v.by_kind.at("compute").samples == 12);
  CHECK(v.by_kind.at("all-gather").samples == 4);
  CHECK(v.by_kind.at("checkpoint-send").samples == 4);
  for (const auto& [kind, s] : v.by_kind) CHECK(s.median == doctest::Approx(0.2));
  for (const auto& [phase, s] : v.by_phase) CHECK(s.median == doctest::Approx(0.2));
  CHECK(v.by_phase.at("forward").samples == 8);  // the forward op and the all-gather it consumes
  CHECK(v.iteration.median == doctest::Approx(0.2));
  // Idle: predicted 0.5 - (0.1 + 0.05) = 0.35 s; measured 1.2 x that.
  CHECK(v.idle.median == doctest::Approx(0.2));
  CHECK(v.checkpoint_completion.median == doctest::Approx(0.2));
  CHECK_FALSE(v.pass);
  CHECK(validate(plan, parse_measured_timeline(measured_doc(plan, 1.05), "m.json"), 0.1).pass);
}

TEST_CASE("validation statistics: median and p90 by linear interpolation") {
  // |e| = 0.1, 0.2, ..., 1.0 (ten values): median = (0.5 + 0.6)/2 = 0.55; p90 at position
  // 0.9 x 9 = 8.1: 0.9 + 0.1 x (1.0 - 0.9) = 0.91.
  std::vector<double> e;
  for (int i = 1; i <= 10; ++i) e.push_back(i % 2 ? -0.1 * i : 0.1 * i);
  const ErrorStats s = error_stats(e);
  CHECK(s.samples == 10);
  CHECK(s.median_abs == doctest::Approx(0.55));
  CHECK(s.p90_abs == doctest::Approx(0.91));
  CHECK(error_stats({}).samples == 0);
}

TEST_CASE("validation refuses measurements it cannot compare, naming the pointer") {
  const PlanFile plan = parse_plan_file(plan_doc(), "plan.json", 1e12);
  const json good = measured_doc(plan, 1.0);
  auto edited = [&](auto&& edit) {
    json d = good;
    edit(d);
    return pointer_of(d, plan);
  };
  CHECK(edited([](json&) {}) == "accepted");
  CHECK(edited([](json& d) { d["manifest"]["plan_hash"] = d["plan"]["hash"] = "0000000000000000"; }) == "/manifest/plan_hash");
  CHECK(edited([](json& d) { d["plan"]["scheduler"] = "blocking"; }) == "/plan/scheduler");
  CHECK(edited([](json& d) { d["ranks"][1]["iterations"] = json::array(); }) == "/ranks/1/iterations");
  CHECK(edited([](json& d) { d["ranks"][1]["rank"] = 0; }) == "/ranks/1/rank");
  CHECK(edited([](json& d) { d["ranks"][1]["rank"] = 5; }) == "/ranks/1/rank");
  CHECK(edited([](json& d) { d["ranks"].erase(1); }) == "/ranks");
  CHECK(edited([](json& d) { d["ranks"][0]["iterations"][0]["iteration_time_s"] = -1; }) == "/ranks/0/iterations/0/iteration_time_s");
  CHECK(edited([](json& d) { d["ranks"][0]["iterations"][0]["iteration_time_s"] = 0; }) == "/ranks/0/iterations/0/iteration_time_s");
  CHECK(edited([](json& d) { d["ranks"][0]["iterations"][0]["iteration_time_s"] = 1e300; }) == "/ranks/0/iterations/0/iteration_time_s");
  CHECK(edited([](json& d) { d["ranks"][1]["iterations"].erase(1); }) == "/ranks/1/iterations");
  CHECK(edited([](json& d) { d["ranks"][0]["iterations"][0]["sends"] = json::array(); }) == "/ranks/0/iterations/0/sends");
  CHECK(edited([](json& d) { d["ranks"][0]["iterations"][0]["operations"].erase(0); }) == "/ranks/0/iterations/0/operations");
  CHECK(edited([](json& d) { d["ranks"][0]["iterations"][0]["operations"][1] = d["ranks"][0]["iterations"][0]["operations"][0]; }) ==
        "/ranks/0/iterations/0/operations/1/id");
  CHECK(edited([](json& d) { d["ranks"][0]["iterations"][0]["operations"][0]["end_s"] = -0.5; }) == "/ranks/0/iterations/0/operations/0/end_s");
}
