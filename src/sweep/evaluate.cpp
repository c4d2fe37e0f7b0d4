// Evaluating one sweep point (evaluate.hpp).
#include "ckptsim/sweep/evaluate.hpp"

#include <array>
#include <new>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/output/numbers.hpp"
#include "ckptsim/output/analyze_report.hpp"
#include "ckptsim/output/restart_report.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/output/warnings.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/run/unread_fields.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/sweep/placement_point.hpp"
#include "ckptsim/sweep/points.hpp"

namespace ckptsim::sweep {

nlohmann::json iteration_costs_json(const IterationCosts& c) {
  return {{"iteration_time_s", c.iteration_time.seconds()},
          {"iteration_time_with_checkpoint_s", c.iteration_time_with_checkpoint.seconds()},
          {"checkpoint_time_s", c.checkpoint_time.seconds()},
          {"blocking_checkpoint_time_s", c.blocking_checkpoint_time.seconds()},
          {"gpu_buffer_bytes", c.gpu_buffer_bytes},
          {"oom", c.oom},
          {"min_every_iterations", c.min_every_iterations}};
}

namespace {

/// {"scenario_hash", "scenario"}: the effective scenario is built once and hashed as
/// scenario_hash() does (FNV-1a of its compact dump), not built twice.
nlohmann::json scenario_part(const Scenario& scenario) {
  nlohmann::json effective = effective_scenario_json(scenario);
  const std::string hash = fmt::format("{:016x}", fnv1a_64(effective.dump()));
  return {{"scenario_hash", hash}, {"scenario", std::move(effective)}};
}

/// What a refused point's error ends with: a sweep has no --force.
constexpr const char* kSweepWayOut =
    "a sweep never forces a point: change the axis values, or run the point's scenario alone with --force";

/// The checks of the point's command (run/run_checks.hpp), on one thread, never forced.
const RunChecks kPointChecks{1, false, kSweepWayOut};

IterationCostsFn cached_model(CostCache& cache) {
  return [&cache](const Scenario& s) { return cache.get(s); };
}

nlohmann::json run_point(const Scenario& scenario, CostCache& cache) {
  const StrategyCosts costs = checked_strategy_costs(scenario, kPointChecks, cached_model(cache));
  const RunModel model = checked_run_model(scenario, costs, scenario.run.replicas, kPointChecks);
  MonteCarloOptions options;
  options.replicas = scenario.run.replicas;
  options.jobs = 1;
  const RunSummary summary = summarize(run_replicas(model, options));
  nlohmann::json result = scenario_part(scenario);
  result["costs"] = costs_json(costs);
  result["summary"] = summary_json(summary);
  if (nlohmann::json restart = restart_phases_json(scenario); !restart.is_null()) result["restart"] = std::move(restart);
  return result;
}

nlohmann::json analyze_point(const Scenario& scenario, CostCache& cache) {
  const StrategyCosts costs = checked_strategy_costs(scenario, kPointChecks, cached_model(cache));
  nlohmann::json result = analyze_report_json(scenario, costs, make_analyze_report(scenario, costs, kPointChecks));
  result.erase("scenario");  // scenario_part adds it with its hash
  result.update(scenario_part(scenario));
  return result;
}

nlohmann::json placement_point(const Scenario& scenario) {
  nlohmann::json result = scenario_part(scenario);
  result["placement"] = placement_point_json(scenario, scenario.checkpoint_bytes_per_machine(), kSweepWayOut);
  return result;
}

/// As `ckptsim iteration` checks it: the iteration model's work first.
nlohmann::json iteration_point(const Scenario& scenario, CostCache& cache) {
  enforce_work_limits(estimate_iteration_work(scenario), false, kSweepWayOut);
  nlohmann::json result = scenario_part(scenario);
  result["costs"] = iteration_costs_json(cache.get(scenario));
  add_warnings(result, unread_field_messages(scenario, UnreadFor::iteration));  // as `ckptsim iteration` prints them
  return result;
}

nlohmann::json evaluate_result(PointCommand command, const Scenario& scenario, CostCache& cache) {
  switch (command) {
    case PointCommand::run: return run_point(scenario, cache);
    case PointCommand::iteration: return iteration_point(scenario, cache);
    case PointCommand::analyze: return analyze_point(scenario, cache);
    case PointCommand::placement: return placement_point(scenario);
  }
  return nullptr;
}

/// A point's result with its numbers as the commands' result files write them (numbers.hpp).
nlohmann::json evaluate_command(PointCommand command, const Scenario& scenario, CostCache& cache) {
  return tidy_numbers(evaluate_result(command, scenario, cache));
}

std::string joined_problems(const InputError& e) {
  std::string text;
  for (const auto& p : e.problems()) text += (text.empty() ? "" : "; ") + format_problem(p);
  return text;
}

}  // namespace

IterationCosts CostCache::get(const Scenario& scenario) {
  const std::string key = iteration_cost_key(scenario);
  {
    std::lock_guard lock(mutex_);
    if (const auto it = costs_.find(key); it != costs_.end()) {
      ++hits_;
      return it->second;
    }
  }
  IterationCosts costs = compute_iteration_costs(scenario);
  std::lock_guard lock(mutex_);
  ++misses_;
  costs_.emplace(key, costs);
  return costs;
}

std::int64_t CostCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

std::int64_t CostCache::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

std::string iteration_cost_key(const Scenario& s) { return iteration_fields_key(s); }

PointRecord evaluate_point(const SweepSpec& spec, std::int64_t index, CostCache& cache) {
  PointRecord record;
  record.index = index;
  record.values = point_values(spec, index);
  try {
    const nlohmann::json doc = point_scenario(spec, record.values);
    Scenario scenario = load_scenario_json(doc, spec.base_label, spec.base_dir);
    if (!axes_set_seed(spec)) scenario.run.seed = point_seed(spec.seed, index);
    record.result = evaluate_command(spec.command, scenario, cache);
    record.status = PointStatus::ok;
  } catch (const InputError& e) {
    record.status = PointStatus::invalid;
    record.error = joined_problems(e);
  } catch (const ModelError& e) {
    record.status = PointStatus::invalid;
    record.error = e.what();
  } catch (const LimitError& e) {
    record.status = PointStatus::invalid;
    record.error = e.what();
  } catch (const std::bad_alloc&) {
    // Beyond what the estimates foresaw: this point is refused, the sweep goes on (and a
    // --resume does not die at the same point again).
    record.status = PointStatus::invalid;
    record.error = "out of memory: the point asks for more than this machine has (see docs/limits.md)";
  } catch (const std::exception& e) {
    // A bug (e.g. ClockOverflow): recorded for the report, and the sweep still finishes.
    record.status = PointStatus::error;
    record.error = fmt::format("internal error (please report): {}", e.what());
  }
  return record;
}

namespace {

constexpr std::array<std::pair<PointStatus, std::string_view>, 3> kStatusNames{
    {{PointStatus::ok, "ok"}, {PointStatus::invalid, "invalid"}, {PointStatus::error, "error"}}};

}  // namespace

std::string_view status_name(PointStatus status) {
  for (const auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "error";
}

std::optional<PointStatus> parse_status(std::string_view name) {
  for (const auto& [value, text] : kStatusNames)
    if (text == name) return value;
  return std::nullopt;
}

nlohmann::json record_to_json(const PointRecord& r) {
  nlohmann::json j = {{"index", r.index}, {"values", r.values}, {"status", std::string(status_name(r.status))}};
  if (!r.error.empty()) j["error"] = r.error;
  j["result"] = r.result;
  return j;
}

const std::string& record_text(PointRecord& r) {
  if (r.text.empty()) r.text = record_to_json(r).dump();
  return r.text;
}

PointRecord record_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("index") || !j.at("index").is_number_integer() || !j.contains("values") ||
      !j.at("values").is_array() || !j.contains("status") || !j.at("status").is_string() || !j.contains("result"))
    throw std::invalid_argument("not a sweep point record");
  PointRecord r;
  r.index = j.at("index").get<std::int64_t>();
  r.values.assign(j.at("values").begin(), j.at("values").end());
  const std::optional<PointStatus> status = parse_status(j.at("status").get<std::string>());
  if (!status) throw std::invalid_argument("not a sweep point status");
  r.status = *status;
  if (j.contains("error") && j.at("error").is_string()) r.error = j.at("error").get<std::string>();
  r.result = j.at("result");
  return r;
}

}  // namespace ckptsim::sweep
