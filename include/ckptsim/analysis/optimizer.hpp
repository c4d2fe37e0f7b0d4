#pragma once
// Parameter search for the best effective training time ratio (`ckptsim optimize`).
//
// Axes are JSON pointers into the raw scenario document with the values to try
// (/strategy/replicas: 2, 3, 4). Every combination (the Cartesian product, first axis slowest) is
// written into a copy of the document and loaded by the scenario loader, which also checks that
// the in-memory checkpoints fit in CPU memory: a combination the loader rejects is reported as
// "does not fit" (CPU memory) or "invalid" with the loader's reason, never as a crash. The GPU
// memory check (the iteration model's `oom`, e.g. a GPU buffer too large) is a caller-supplied
// hook, so this layer does not depend on whether the iteration model is built.
//
// Each fitting combination is evaluated with the ETTR closed form (analytic_models.hpp) and,
// when `replicas` > 0, with the run model's Monte Carlo replicas too. The ranking uses the
// Monte Carlo mean when replicas > 0, else the closed form, unless some fitting combination has
// no closed form or one that leaves part of its failure model out (omitted_terms): then every
// combination is simulated with its scenario's run.replicas and ranked by the Monte Carlo mean
// (closed_form_omits lists the terms). The runner-up "lost because of" the
// time-breakdown part (stall, lost progress, detection, replacement wait, retrieval, restart)
// whose share of the wall time exceeds the winner's by the most.
// Standby pool sizing: every candidate also reports its goodput per machine-hour,
//   G = ETTR x N / (N + s),
// the training machine-hours bought per machine-hour paid when N machines train and s standby
// machines (cluster.standby_machines) wait idle for the whole run: a standby machine shortens
// the replacement waits of hardware failures (the run model, and the closed form's Erlang-loss
// term) and costs a machine-hour per hour. With objective goodput_per_machine_hour the ranking
// uses G, so `--vary /cluster/standby_machines=0,1,2,4,8` chooses the pool size.
// Cost: combinations x (loader + closed form [+ replicas x failures per replica]).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// One searched parameter (`--vary POINTER=V1,V2,...` parsed into it: analysis/optimize_study.hpp).
struct VaryAxis {
  std::string pointer;                 ///< RFC 6901, e.g. "/strategy/replicas"
  std::vector<nlohmann::json> values;  ///< as they will be written into the document
};

enum class CandidateStatus { ok, does_not_fit_cpu, does_not_fit_gpu, invalid };
[[nodiscard]] std::string to_string(CandidateStatus status);

struct Candidate {
  std::vector<std::pair<std::string, nlohmann::json>> settings;  ///< pointer, value
  CandidateStatus status = CandidateStatus::ok;
  std::string reason;  ///< why it does not fit / is invalid
  StrategyCosts costs;
  AnalyticPrediction closed;
  std::optional<RunSummary> simulated;
  double ettr = 0;     ///< from the ranking source (Monte Carlo mean or closed form)
  int machines = 0;    ///< N, training machines
  int standby = 0;     ///< s, standby machines
  double goodput_per_machine_hour = 0;  ///< ETTR x N / (N + s)
  /// Share of the wall time per breakdown part, from the ranking source.
  std::map<std::string, double> shares;
  [[nodiscard]] std::string label() const;  ///< "/strategy/replicas=2 /strategy/every_iterations=1"
};

/// What the search maximises.
enum class OptimizeObjective { ettr, goodput_per_machine_hour };

struct OptimizeOptions {
  OptimizeObjective objective = OptimizeObjective::ettr;
  int replicas = 0;  ///< Monte Carlo replicas per combination; 0 = closed form only
  int jobs = 1;
  bool force = false;  ///< --force: a combination's Monte Carlo skips the run's work limits (run_checks.hpp)
  std::optional<std::uint64_t> seed;
  /// GPU memory check: returns a reason when the scenario does not fit (nullopt when it does).
  std::function<std::optional<std::string>(const Scenario&)> gpu_check;
  /// Strategy costs of a loaded scenario (defaults to resolve_strategy_costs).
  std::function<StrategyCosts(const Scenario&)> costs;
};

struct OptimizeResult {
  std::vector<Candidate> candidates;  ///< in combination order
  std::optional<std::size_t> best;
  std::optional<std::size_t> runner_up;
  std::string ranking;                ///< "closed form" or "Monte Carlo mean (N replicas)", and the objective
  std::string why_runner_up_lost;     ///< "" without a runner-up
  std::vector<std::string> closed_form_omits;  ///< failure-model terms some closed form left out
  bool gpu_checked = false;
};

/// Evaluates every combination of `axes` applied to `doc`. `file_label` and `base_dir` are
/// passed to load_scenario_json. Throws InputError (on the command line) when a pointer cannot be written
/// (its parent is not an object or array) or there are no axes.
OptimizeResult optimize(const nlohmann::json& doc, const std::string& file_label, const std::string& base_dir,
                        const std::vector<VaryAxis>& axes, const OptimizeOptions& options);

/// The value a candidate is ranked by under `objective`.
[[nodiscard]] double objective_value(const Candidate& c, OptimizeObjective objective);

/// Names of the breakdown parts compared by "why it lost", with their readable meaning.
const std::vector<std::pair<std::string, std::string>>& loss_parts();

}  // namespace ckptsim
