#include "ckptsim/output/run_report.hpp"
#include "ckptsim/output/numbers.hpp"
#include "ckptsim/output/restart_report.hpp"
#include "ckptsim/output/warnings.hpp"

#include "ckptsim/output/assumptions_report.hpp"
#include "ckptsim/output/band_report.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/printable.hpp"

#include "ckptsim/output/manifest.hpp"
#include "ckptsim/output/report_sections.hpp"
#include "ckptsim/run/recovery/recovery_policy.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

nlohmann::json summary_entry(const Summary& s) {
  return nlohmann::json{{"mean", s.mean}, {"std", s.std}, {"ci95", s.ci95}};
}

/// Time lost (rolled-back work + downtime) by recovery tier and by cause, with each cause's
/// failure count; causes that never occurred are left out.
void print_lost_time(std::ostream& out, const RunSummary& summary) {
  out << "\n  time lost by recovery tier (s)\n";
  for (const char* tier : kRecoveryTierNames) {
    const auto it = summary.metrics.find(std::string("time_lost_by_tier_s.") + tier);
    if (it == summary.metrics.end()) continue;
    out << fmt::format("    {:<28} {:>14.1f} ± {:<12.1f}\n", tier, it->second.mean, it->second.ci95);
  }
  // Causes that occurred, the costliest first (ties by name, so the order is deterministic).
  const std::string failures_prefix = "failures_by_cause.";
  struct Row {
    std::string cause;
    double failures;
    Summary lost;
  };
  std::vector<Row> rows;
  for (const auto& [name, count] : summary.metrics) {
    if (name.rfind(failures_prefix, 0) != 0 || !(count.mean > 0)) continue;
    const std::string cause = name.substr(failures_prefix.size());
    const auto lost = summary.metrics.find("time_lost_by_cause_s." + cause);
    if (lost != summary.metrics.end()) rows.push_back({cause, count.mean, lost->second});
  }
  if (rows.empty()) return;
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.lost.mean > b.lost.mean; });
  out << fmt::format("\n  {:<30} {:>10} {:>14}   {:<12}\n", "time lost by cause (s)", "failures", "mean", "ci95");
  for (const auto& r : rows)
    out << fmt::format("    {:<28} {:>10.2f} {:>14.1f} ± {:<12.1f}\n", r.cause, r.failures, r.lost.mean, r.lost.ci95);
}

}  // namespace

nlohmann::json summary_json(const RunSummary& summary) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, s] : summary.metrics) {
    const auto dot = name.find('.');
    if (dot == std::string::npos) {
      out[name] = summary_entry(s);
    } else {
      out[name.substr(0, dot)][name.substr(dot + 1)] = summary_entry(s);
    }
  }
  out["replicas"] = summary.replicas;
  return out;
}

namespace {

/// When a load reads more than the save wrote (ranks reading the state they all hold, Megatron
/// without fully parallel load): how much, beside the save.
std::string storage_reads_note(const StrategyCosts& c) {
  // Below half a per cent more (the few tensors every tensor-parallel rank keeps whole) it says nothing.
  if (!(c.storage_load_bytes > c.storage_save_bytes * 1.005)) return "";
  return fmt::format(" (reads {}, {:.3g}x the {} saved: every data-parallel rank reads its copy; "
                     "training.megatron.fully_parallel_load reads it once)",
                     format_bytes(c.storage_load_bytes), c.storage_load_bytes / c.storage_save_bytes, format_bytes(c.storage_save_bytes));
}

}  // namespace

nlohmann::json costs_json(const StrategyCosts& c) {
  nlohmann::json out{{"strategy", name_of(c.strategy)},
                     {"tier", recovery_policy(c.tier).name},
                     {"iteration_time_s", c.iteration_time.seconds()},
                     {"every_iterations", c.every_iterations},
                     {"checkpoint_stall_s", c.stall.seconds()},
                     {"checkpoint_completion_s", c.completion.seconds()},
                     {"persistent_every_iterations", c.persistent_every_iterations},
                     {"persistent_upload_s", c.upload.seconds()},
                     {"retrieval_local_s", c.retrieval_local.seconds()},
                     {"retrieval_peer_s", c.retrieval_peer.seconds()},
                     {"retrieval_storage_s", c.retrieval_storage.seconds()}};
  strategy_of(c.strategy).add_costs_json(c, out);
  if (c.adaptive_interval) out["adaptive_prior_mtbf_s"] = c.adaptive_prior_mtbf.seconds();
  if (!storage_reads_note(c).empty()) {
    out["storage_save_bytes"] = c.storage_save_bytes;
    out["storage_load_bytes"] = c.storage_load_bytes;
  }
  add_warnings(out, c.warnings);
  return out;
}

nlohmann::json run_report_json(const Scenario& scenario, const StrategyCosts& costs, const RunSummary& summary,
                               const std::string& command_line) {
  nlohmann::json doc{{"manifest", make_manifest(scenario, command_line)},
                     {"scenario", effective_scenario_json(scenario)},
                     {"costs", costs_json(costs)},
                     {"summary", summary_json(summary)}};
  if (nlohmann::json restart = restart_phases_json(scenario); !restart.is_null()) doc["restart"] = std::move(restart);
  if (nlohmann::json band = band_effect_json(band_effect(scenario, costs)); !band.is_null()) doc["prediction_band"] = std::move(band);
  return tidy_numbers(std::move(doc));
}

void print_run_table(std::ostream& out, const Scenario& s, const StrategyCosts& c, const RunSummary& summary,
                     bool every_default) {
  const std::string horizon = s.run.duration ? format_duration(*s.run.duration)
                                             : fmt::format("{} iterations", s.run.iterations.value_or(0));
  out << fmt::format("scenario   {} — {} machines x {} GPUs, {}, {}\n", printable(s.name), s.cluster.machines,
                     s.cluster.gpus_per_machine, s.model.preset.empty() ? fmt::format("{:.3g} parameters", s.model.parameters) : s.model.preset,
                     horizon);
  std::string strategy(name_of(s.strategy.kind));
  strategy += strategy_of(s.strategy.kind).configuration(c);
  out << fmt::format("strategy   {}\n", strategy);
  if (!takes_checkpoints(c.tier)) {
    out << fmt::format("costs      iteration {}, no checkpoints\n", format_duration(c.iteration_time));
  } else {
    const std::string stall =
        c.stall == SimTime::zero() ? "no stall" : fmt::format("stall {} per checkpoint", format_duration(c.stall));
    out << fmt::format("costs      iteration {}, {}, complete after {}\n", format_duration(c.iteration_time), stall,
                       format_duration(c.completion));
    for (const ReportSection section : strategy_of(c.strategy).report_sections())
      report_section(section).print_run_costs(out, c);
  }
  out << fmt::format("retrieval  local {}, peer {}, storage {}{}\n", format_duration(c.retrieval_local),
                     format_duration(c.retrieval_peer), format_duration(c.retrieval_storage), storage_reads_note(c));
  print_restart_phases(out, s);
  print_assumptions(out, s, every_default);
  print_band_effect(out, band_effect(s, c));
  print_warning_lines(out, c.warnings);
  out << fmt::format("replicas   {} (seed {})\n\n", summary.replicas, s.run.seed);

  auto row = [&](const std::string& label, const std::string& key, int precision) {
    const auto it = summary.metrics.find(key);
    if (it == summary.metrics.end()) return;
    const Summary& m = it->second;
    // One replica has no spread to estimate: n/a rather than a misleading ± 0.
    if (summary.replicas < 2) {
      out << fmt::format("  {:<30} {:>14.{}f} ± {:<12} (std n/a)\n", label, m.mean, precision, "n/a");
      return;
    }
    out << fmt::format("  {:<30} {:>14.{}f} ± {:<12.{}f} (std {:.{}f})\n", label, m.mean, precision, m.ci95,
                       precision, m.std, precision);
  };
  if (const auto it = summary.metrics.find("unfinished"); it != summary.metrics.end() && it->second.mean > 0)
    out << fmt::format("warning    {:.0f} of {} replicas did not reach run.iterations within 100x the failure-free "
                       "time (or 100 years); their figures stop there\n\n",
                       it->second.mean * summary.replicas, summary.replicas);
  out << fmt::format("  {:<30} {:>14}   {:<12}\n", "metric", "mean", "ci95");
  row("ETTR", "ettr", 4);
  row("wall time (s)", "wall_time_s", 1);
  row("iterations", "iterations", 0);
  row("failures: software", "failures.software", 2);
  row("failures: hardware", "failures.hardware", 2);
  row("recoveries: local", "recoveries.local", 2);
  row("recoveries: peer", "recoveries.peer", 2);
  row("recoveries: storage", "recoveries.storage", 2);
  row("recoveries: scratch", "recoveries.scratch", 2);
  // Restart tiers (failure/restart_tiers.hpp): only runs with them carry these metrics.
  row("restarts: in-process", "restarts.in_process", 2);
  row("restarts: in-job", "restarts.in_job", 2);
  row("restarts: new job", "restarts.new_job", 2);
  // Live migration (failure/migration.hpp): only runs with it carry these metrics.
  row("migrations", "migrations", 2);
  // Elastic restart (failure/elastic.hpp): only runs with it carry these metrics.
  row("elastic: shrinks", "elastic.shrinks", 2);
  row("elastic: grows", "elastic.grows", 2);
  // Per failure of the replicas that failed; with no failure in any replica it has no value (NA,
  // as in the CSV), not 0.
  const auto mean_of = [&](const char* key) {
    const auto it = summary.metrics.find(key);
    return it == summary.metrics.end() ? 0.0 : it->second.mean;
  };
  if (mean_of("failures.software") + mean_of("failures.hardware") + mean_of("recoveries.local") +
          mean_of("recoveries.peer") + mean_of("recoveries.storage") + mean_of("recoveries.scratch") >
      0)
    row("wasted time per failure (s)", "wasted_time_per_failure_s", 1);
  else if (summary.metrics.count("wasted_time_per_failure_s"))
    out << fmt::format("  {:<30} {:>14}   {:<12} (no replica failed)\n", "wasted time per failure (s)", "n/a", "");
  out << "\n  time breakdown (s)\n";
  for (const char* part : {"training", "checkpoint_stall", "lost_progress", "detection", "replacement_wait",
                           "retrieval", "restart"})
    row(std::string("  ") + part, std::string("time_breakdown_s.") + part, 1);
  // Slowed steps (stragglers, a partial quorum) only where some replica had any: the table of a
  // run without them reads as before.
  if (const auto it = summary.metrics.find("time_breakdown_s.degraded"); it != summary.metrics.end() && it->second.max > 0)
    row("  degraded", "time_breakdown_s.degraded", 1);
  row("  migration", "time_breakdown_s.migration", 1);
  out << "\n  goodput as operators count it (fractions of wall time; run/goodput.hpp)\n";
  row("  goodput (Google)", "goodput", 4);
  for (const auto& [label, key] : std::initializer_list<std::pair<const char*, const char*>>{
           {"  badput: initialization", "badput.initialization"},
           {"  badput: checkpoint save", "badput.checkpoint_save"},
           {"  badput: checkpoint restore", "badput.checkpoint_restore"},
           {"  badput: wasted progress", "badput.wasted_progress"},
           {"  badput: infra. recovery", "badput.infrastructure_recovery"},
           {"  badput: degraded throughput", "badput.degraded_throughput"}})
    row(label, key, 4);
  row("  ETTR (Meta)", "ettr_meta", 4);
  if (const auto it = summary.metrics.find("mttr_s"); it != summary.metrics.end() && it->second.count > 0)
    row("  MTTR (s)", "mttr_s", 1);
  else if (it != summary.metrics.end())
    out << fmt::format("  {:<30} {:>14}   {:<12} (no recovery episode)\n", "  MTTR (s)", "n/a", "");
  print_lost_time(out, summary);
}

void write_replica_csv(std::ostream& out, const std::vector<ReplicaResult>& results) {
  bool header = false;
  for (std::size_t r = 0; r < results.size(); ++r) {
    const auto metrics = replica_metrics(results[r]);
    if (!header) {
      out << "replica";
      for (const auto& [name, value] : metrics) out << ',' << name;
      out << '\n';
      header = true;
    }
    out << r;
    for (const auto& [name, value] : metrics) {
      // Wasted time per failure is undefined without a failure, MTTR without an episode: an
      // empty cell (NA), as the summary leaves such replicas out of its mean.
      if (!metric_defined(name, results[r])) {
        out << ',';
        continue;
      }
      out << ',' << number_text(value);
    }
    out << '\n';
  }
}

}  // namespace ckptsim
