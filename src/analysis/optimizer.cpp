// Parameter search of analysis/optimizer.hpp.
#include "ckptsim/analysis/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/run/resolve_costs.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/scenario/loader.hpp"

namespace ckptsim {

namespace {

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

/// Writes `value` at `pointer`, creating missing objects on the way (e.g. /cluster/network
/// when only /cluster/network/latency is varied). Scenarios hold no arrays, so every step must
/// be an object; InputError (on the command line, naming the step) otherwise.
void write_at(nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value) {
  nlohmann::json::json_pointer ptr(pointer);
  if (ptr.empty())
    throw InputError("<command line>", "", "--vary POINTER naming a field, not the whole document", "\"\"");
  std::vector<std::string> tokens;
  for (; !ptr.empty(); ptr.pop_back()) tokens.insert(tokens.begin(), ptr.back());
  nlohmann::json* node = &doc;
  std::string walked;
  for (const std::string& token : tokens) {
    if (node->is_null()) *node = nlohmann::json::object();  // created by the step before
    if (!node->is_object())
      throw InputError("<command line>", walked,
                       "an object holding \"" + token + "\" (to write --vary " + pointer + ")", node->dump());
    node = &(*node)[token];
    walked += "/" + token;
  }
  *node = value;
}

CandidateStatus classify(const InputError& e, std::string& reason) {
  CandidateStatus status = CandidateStatus::invalid;
  reason.clear();
  for (const auto& p : e.problems()) {
    if (!reason.empty()) reason += "; ";
    reason += p.pointer + ": expected " + p.expected + ", found " + p.found;
    if (p.pointer == "/cluster/cpu_memory") status = CandidateStatus::does_not_fit_cpu;
    else if (p.pointer == "/strategy/gpu_buffer" && status == CandidateStatus::invalid)
      status = CandidateStatus::does_not_fit_gpu;
  }
  return status;
}

std::map<std::string, double> breakdown_shares(const std::map<std::string, double>& values, double wall) {
  std::map<std::string, double> out;
  if (wall <= 0) return out;
  for (const auto& [name, meaning] : loss_parts()) {
    const auto it = values.find("time_breakdown_s." + name);
    if (it != values.end()) out[name] = it->second / wall;
  }
  return out;
}

/// Costs and closed form of one fitting combination.
void evaluate_closed(Scenario& scenario, const OptimizeOptions& options, Candidate& cand) {
  if (options.seed) scenario.run.seed = *options.seed;
  cand.costs = options.costs ? options.costs(scenario) : resolve_strategy_costs(scenario);
  check_closed_form_work(scenario, RunChecks{options.jobs, options.force});
  cand.closed = predict_run(scenario, cand.costs);
  cand.ettr = cand.closed.ettr;
  cand.shares = breakdown_shares(cand.closed.metrics, cand.closed.wall_time_s);
}

/// Monte Carlo replicas of one fitting combination; the ranking then uses their means.
void evaluate_simulated(const Scenario& scenario, int replicas, int jobs, bool force, Candidate& cand) {
  const RunModel model = checked_run_model(scenario, cand.costs, replicas, RunChecks{jobs, force});
  MonteCarloOptions mc;
  mc.replicas = replicas;
  mc.jobs = jobs;
  cand.simulated = summarize(run_replicas(model, mc));
  std::map<std::string, double> means;
  for (const auto& [name, summary] : cand.simulated->metrics) means[name] = summary.mean;
  cand.ettr = means["ettr"];
  cand.shares = breakdown_shares(means, means["wall_time_s"]);
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& loss_parts() {
  static const std::vector<std::pair<std::string, std::string>> parts{
      {"checkpoint_stall", "more checkpoint stall"},
      {"lost_progress", "more lost progress"},
      {"detection", "more failure detection"},
      {"replacement_wait", "more waiting for replacements"},
      {"retrieval", "more checkpoint retrieval"},
      {"restart", "more restart warm-up"},
  };
  return parts;
}

std::string to_string(CandidateStatus status) {
  switch (status) {
    case CandidateStatus::ok: return "ok";
    case CandidateStatus::does_not_fit_cpu: return "does not fit (CPU memory)";
    case CandidateStatus::does_not_fit_gpu: return "does not fit (GPU memory)";
    case CandidateStatus::invalid: return "invalid";
  }
  return "invalid";
}

double objective_value(const Candidate& c, OptimizeObjective objective) {
  return objective == OptimizeObjective::ettr ? c.ettr : c.goodput_per_machine_hour;
}

std::string Candidate::label() const {
  std::string out;
  for (const auto& [pointer, value] : settings) {
    if (!out.empty()) out += ' ';
    out += pointer + "=" + value_text(value);
  }
  return out;
}

OptimizeResult optimize(const nlohmann::json& doc, const std::string& file_label, const std::string& base_dir,
                        const std::vector<VaryAxis>& axes, const OptimizeOptions& options) {
  if (axes.empty()) throw InputError("<command line>", "", "at least one --vary POINTER=V1,V2,... axis", "none");
  OptimizeResult result;
  result.gpu_checked = static_cast<bool>(options.gpu_check);
  std::size_t total = 1;
  for (const auto& axis : axes) {
    if (axis.values.empty())
      throw InputError("<command line>", axis.pointer, "--vary " + axis.pointer + " with at least one value", "none");
    total *= axis.values.size();
  }
  std::vector<std::size_t> index(axes.size(), 0);
  std::vector<std::optional<Scenario>> scenarios;
  for (std::size_t combination = 0; combination < total; ++combination) {
    // Mixed-radix digits of the combination number, last axis fastest.
    std::size_t rest = combination;
    for (std::size_t a = axes.size(); a-- > 0;) {
      index[a] = rest % axes[a].values.size();
      rest /= axes[a].values.size();
    }
    Candidate cand;
    nlohmann::json edited = doc;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const auto& value = axes[a].values[index[a]];
      write_at(edited, axes[a].pointer, value);
      cand.settings.emplace_back(axes[a].pointer, value);
    }
    std::optional<Scenario> scenario;
    try {
      scenario = load_scenario_json(edited, file_label, base_dir);
    } catch (const InputError& e) {
      cand.status = classify(e, cand.reason);
    }
    if (scenario && options.gpu_check) {
      if (auto why = options.gpu_check(*scenario)) {
        cand.status = CandidateStatus::does_not_fit_gpu;
        cand.reason = *why;
        scenario.reset();
      }
    }
    if (scenario) {
      try {
        evaluate_closed(*scenario, options, cand);
        cand.machines = scenario->cluster.machines;
        cand.standby = scenario->cluster.standby_machines;
      } catch (const ModelError& e) {  // a derived time beyond the clock, named by its field
        cand.status = CandidateStatus::invalid;
        cand.reason = e.what();
        scenario.reset();
      }
    }
    scenarios.push_back(std::move(scenario));
    result.candidates.push_back(std::move(cand));
  }
  // Ranking source: Monte Carlo when asked for, or when some fitting combination has no closed
  // form or a closed form that leaves part of its failure model out (then every combination
  // is simulated, so that all are ranked by the same source).
  std::set<std::string> omitted;
  bool without_closed_form = false;
  int replicas = options.replicas;
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    const Candidate& cand = result.candidates[i];
    if (!scenarios[i]) continue;
    if (!cand.closed.available) without_closed_form = true;
    omitted.insert(cand.closed.omitted_terms.begin(), cand.closed.omitted_terms.end());
    if (replicas <= 0) replicas = scenarios[i]->run.replicas;
  }
  result.closed_form_omits.assign(omitted.begin(), omitted.end());
  const bool simulate = options.replicas > 0 || without_closed_form || !omitted.empty();
  if (simulate) {
    result.ranking = "Monte Carlo mean (" + std::to_string(replicas) + " replicas)";
    if (options.replicas <= 0 && without_closed_form) result.ranking += "; some combinations have no closed form";
    if (options.replicas <= 0 && !omitted.empty()) {
      std::string list;
      for (const auto& t : omitted) list += (list.empty() ? "" : "; ") + t;
      result.ranking += "; the closed form leaves out " + list;
    }
  } else {
    result.ranking = "closed form";
  }
  if (options.objective == OptimizeObjective::goodput_per_machine_hour)
    result.ranking = "goodput per machine-hour, ETTR x N / (N + standby), ETTR from the " + result.ranking;
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    Candidate& cand = result.candidates[i];
    if (!scenarios[i]) continue;
    try {
      if (simulate)
        evaluate_simulated(*scenarios[i], options.replicas > 0 ? options.replicas : scenarios[i]->run.replicas,
                           options.jobs, options.force, cand);
    } catch (const ModelError& e) {
      cand.status = CandidateStatus::invalid;
      cand.reason = e.what();
      continue;
    }
    cand.goodput_per_machine_hour = cand.ettr * cand.machines / static_cast<double>(cand.machines + cand.standby);
    // A NaN or infinite ETTR must never win: such a point is flagged, not ranked.
    if (cand.status == CandidateStatus::ok && !std::isfinite(cand.ettr)) {
      cand.status = CandidateStatus::invalid;
      cand.reason = fmt::format("the model gave a non-finite ETTR ({}) for these settings", cand.ettr);
    }
  }
  // Rank the fitting combinations.
  const auto score = [&](std::size_t i) { return objective_value(result.candidates[i], options.objective); };
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    if (result.candidates[i].status != CandidateStatus::ok) continue;
    if (!result.best || score(i) > score(*result.best)) {
      result.runner_up = result.best;
      result.best = i;
    } else if (!result.runner_up || score(i) > score(*result.runner_up)) {
      result.runner_up = i;
    }
  }
  if (result.best && result.runner_up) {
    const auto& b = result.candidates[*result.best];
    const auto& r = result.candidates[*result.runner_up];
    double worst = 0;
    std::string why;
    for (const auto& [name, meaning] : loss_parts()) {
      const double d = (r.shares.count(name) ? r.shares.at(name) : 0.0) - (b.shares.count(name) ? b.shares.at(name) : 0.0);
      if (d > worst) {
        worst = d;
        why = fmt::format("{} (+{:.3f}% of the wall time in {})", meaning, d * 100.0, name);
      }
    }
    if (options.objective == OptimizeObjective::goodput_per_machine_hour && r.ettr >= b.ettr && r.standby > b.standby)
      result.why_runner_up_lost = fmt::format(
          "its {} standby machine(s) cost more machine-hours than the replacement waits they saved (ETTR {:+.4f}, "
          "machines {:+d})",
          r.standby, r.ettr - b.ettr, r.machines + r.standby - b.machines - b.standby);
    else if (std::abs(b.ettr - r.ettr) <= 1e-12 * std::max(1.0, std::abs(b.ettr)))
      result.why_runner_up_lost = "it did not: the same ETTR (these settings do not change the modelled costs); "
                                  "the first in combination order is shown as best";
    else if (b.shares.empty() && r.shares.empty())
      result.why_runner_up_lost = "the closed form gives no time breakdown for this strategy (--replicas N compares "
                                  "the simulated ones)";
    else
      result.why_runner_up_lost = why.empty() ? "no breakdown part is larger (a difference within rounding)" : why;
  }
  return result;
}

}  // namespace ckptsim
