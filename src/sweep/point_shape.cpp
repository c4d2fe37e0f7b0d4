// The shape of a point's result per command (point_shape.hpp).
#include "ckptsim/sweep/point_shape.hpp"

#include <memory>
#include <vector>

#include "ckptsim/core/input_file.hpp"
#include "ckptsim/output/analyze_report.hpp"
#include "ckptsim/output/restart_report.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/sweep/evaluate.hpp"
#include "ckptsim/sweep/placement_point.hpp"

namespace ckptsim::sweep {
namespace {

using nlohmann::json;

/// A key that matches any key (the per-cause metrics are keyed by the scenario's cause names).
constexpr const char* kAnyKey = "*";

/// Costs with every optional part present: multi-level, erasure-coded and adaptive at once.
StrategyCosts every_cost() {
  StrategyCosts c;
  c.tier = CheckpointTier::multi_level;
  c.group_size = 1;
  c.adaptive_interval = true;
  return c;
}

/// A summary holding every metric a replica reports, with one cause named "*".
RunSummary every_metric() {
  ReplicaResult r;
  r.causes = std::make_shared<const std::vector<FailureCause>>(std::vector<FailureCause>{{kAnyKey, {}, {}}});
  r.failures_by_cause = {1};
  r.lost_by_cause = {SimTime::zero()};
  r.software_failures = 1;
  r.just_in_time = true;
  return summarize({r});
}

/// The costs JSON with every strategy's own members (each strategy adds its own: run/strategy.hpp).
json every_costs_json() {
  json costs = json::object();
  for (const auto& entry : strategy_registry().entries()) {
    StrategyCosts c = every_cost();
    c.strategy = entry.factory->kind();
    costs.update(costs_json(c));
  }
  return costs;
}

/// The restart phases' members (output/restart_report.hpp), in-job and new-job both.
json every_restart_json() {
  Scenario s;
  s.cluster.machines = 1;
  s.failures.restart_from_phases = true;
  s.failures.restart_tiers.enabled = true;
  s.failures.restart_tiers.new_job_overhead_from_phases = true;
  return restart_phases_json(s);
}

json run_shape() {
  return {{"scenario_hash", ""}, {"costs", every_costs_json()}, {"summary", summary_json(every_metric())},
          {"restart", every_restart_json()}};
}

json analyze_shape() {
  AnalyzeReport report;
  report.prediction.available = true;
  report.summary = every_metric();
  report.standby = StandbySizing{0, 0, {{0.99, 0}, {0.999, 0}}};  // closed_form.standby_sizing's members
  for (const AnalyzeMetric& m : analyze_metrics()) {
    report.prediction.metrics[m.key] = 0.0;
    AnalyzeComparison row;
    row.key = m.key;
    row.closed_valid = true;
    report.rows.push_back(row);
  }
  // every_cost() holds every strategy's fields, so the writer adds the erasure-coded member (and
  // the multi-level one for that tier): their models need a placeable cluster, as placement_shape.
  Scenario s;
  s.cluster.machines = 16;
  s.strategy.replicas = 2;
  s.strategy.group_size = 4;
  s.strategy.parity = 1;
  StrategyCosts costs = every_cost();
  costs.group_size = 4;
  costs.parity = 1;
  json shape = analyze_report_json(s, costs, report);
  shape["costs"] = every_costs_json();  // every strategy's own costs members, as run_shape
  shape["restart"] = every_restart_json();
  shape.erase("scenario");
  shape["scenario_hash"] = "";
  return shape;
}

json placement_shape() {
  // 16 machines give the k = 0..16 arrays; group replicas and erasure-coded groups both; the
  // Monte Carlo estimate's intervals beside the exact curve.
  Scenario s;
  s.cluster.machines = 16;
  s.strategy.replicas = 2;
  s.strategy.placement = PlacementScheme::group;
  json placement = placement_point_json(s, 1.0, "");
  s.strategy.kind = StrategyKind::erasure_coded;
  s.strategy.group_size = 4;
  s.strategy.parity = 1;
  placement.update(placement_point_json(s, 1.0, ""));
  placement["ci95_low"] = placement["probability"];
  placement["ci95_high"] = placement["probability"];
  return {{"scenario_hash", ""}, {"placement", placement}};
}

json iteration_shape() { return {{"scenario_hash", ""}, {"costs", iteration_costs_json(IterationCosts{})}}; }

const json& shape_of(PointCommand command) {
  static const json run = run_shape();
  static const json iteration = iteration_shape();
  static const json analyze = analyze_shape();
  static const json placement = placement_shape();
  switch (command) {
    case PointCommand::run: return run;
    case PointCommand::iteration: return iteration;
    case PointCommand::analyze: return analyze;
    case PointCommand::placement: return placement;
  }
  return run;
}

bool walk(const json& shape, const std::vector<std::string>& tokens, std::size_t i) {
  if (i == tokens.size()) return true;
  if (shape.is_object()) {
    if (const auto it = shape.find(tokens[i]); it != shape.end()) return walk(*it, tokens, i + 1);
    if (const auto any = shape.find(kAnyKey); any != shape.end()) return walk(*any, tokens, i + 1);
    return false;
  }
  if (shape.is_array()) {
    const std::string& t = tokens[i];
    if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos) return false;
    const std::size_t index = std::stoul(t);
    return index < shape.size() && walk(shape[index], tokens, i + 1);
  }
  return false;
}

/// Under /scenario: a field of the parameter table, or a place inside a cause table.
bool scenario_pointer(const std::vector<std::string>& tokens) {
  std::string pointer;
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    pointer += "/" + escape_json_pointer_token(tokens[i]);
    if (const Field* f = find_field(pointer)) {
      if (i + 1 == tokens.size()) return true;
      if (f->unit == Unit::cause_table) return true;
    }
  }
  return tokens.size() == 1;  // the whole effective scenario
}

}  // namespace

bool metric_pointer_possible(PointCommand command, const std::string& pointer) {
  json::json_pointer p(pointer);
  std::vector<std::string> tokens;
  for (; !p.empty(); p.pop_back()) tokens.insert(tokens.begin(), p.back());
  if (!tokens.empty() && tokens.front() == "scenario") return scenario_pointer(tokens);
  return walk(shape_of(command), tokens, 0);
}

}  // namespace ckptsim::sweep
