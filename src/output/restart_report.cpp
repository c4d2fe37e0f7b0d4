// The restart phases as `run` and `analyze` show them (restart_report.hpp).
#include "ckptsim/output/restart_report.hpp"

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/scenario/restart_phases.hpp"

namespace ckptsim {
namespace {

using Phase = std::pair<const char*, SimTime>;

std::int64_t ranks_of(const Scenario& s) {
  return static_cast<std::int64_t>(s.cluster.machines) * std::max(1, s.cluster.gpus_per_machine);
}

/// Per-step fault tolerance and islands restart one replica group (run/strategies/torchft.cpp, diloco.cpp).
bool group_restarts(const Scenario& s) {
  return s.failures.restart_from_phases &&
         (s.strategy.kind == StrategyKind::torchft || s.strategy.kind == StrategyKind::diloco) && s.strategy.replica_groups > 0;
}

GroupRestart group_restart_of(const Scenario& s) {
  return replica_group_restart(s.failures.restart_phases, s.cluster, s.strategy.replica_groups);
}

std::vector<Phase> in_job_phases(const Scenario& s, std::int64_t ranks) {
  const RestartPhases p = restart_phases(s.failures.restart_phases, ranks);
  return {{"process start", p.process_start}, {"rendezvous", p.rendezvous}, {"communicator init", p.communicator_init},
          {"warm-up", p.warmup}, {"first iteration", p.first_iteration}};
}

std::vector<Phase> new_job_phase_list(const Scenario& s) {
  const NewJobPhases p = new_job_phases(s.failures.restart_phases);
  return {{"requeue", p.requeue}, {"health check", p.health_check}, {"image pull", p.image_pull}};
}

bool new_job_from_phases(const Scenario& s) {
  return s.failures.restart_tiers.enabled && s.failures.restart_tiers.new_job_overhead_from_phases;
}

/// "warm-up 253 s, communicator init 44.70 s, ...": largest first (ties in declaration order).
std::string phase_text(std::vector<Phase> phases) {
  std::stable_sort(phases.begin(), phases.end(), [](const Phase& a, const Phase& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [name, t] : phases) text += fmt::format("{}{} {:.2f} s", text.empty() ? "" : ", ", name, t.seconds());
  return text;
}

nlohmann::json phase_json(const std::vector<Phase>& phases) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, t] : phases) {
    std::string key(name);
    std::replace(key.begin(), key.end(), ' ', '_');
    std::replace(key.begin(), key.end(), '-', '_');
    out[key] = t.seconds();
  }
  return out;
}

}  // namespace

void print_restart_phases(std::ostream& out, const Scenario& s) {
  if (s.failures.restart_from_phases)
    out << fmt::format("restart    in-job {:.2f} s at {} ranks (restart phases): {}\n", s.failures.restart.seconds(),
                       ranks_of(s), phase_text(in_job_phases(s, ranks_of(s))));
  if (group_restarts(s)) {
    const GroupRestart g = group_restart_of(s);
    out << fmt::format("           {} restarts one replica group instead: {:.2f} s at {} ranks, {}, and its "
                       "communicator across the {} groups {:.2f} s\n",
                       name_of(s.strategy.kind), g.total().seconds(), g.ranks, phase_text(in_job_phases(s, g.ranks)), s.strategy.replica_groups,
                       g.across_groups.seconds());
  }
  if (new_job_from_phases(s))
    out << fmt::format("           a new job adds {:.2f} s: {}\n", s.failures.restart_tiers.new_job_overhead.seconds(),
                       phase_text(new_job_phase_list(s)));
}

nlohmann::json restart_phases_json(const Scenario& s) {
  if (!s.failures.restart_from_phases && !new_job_from_phases(s)) return nullptr;
  nlohmann::json out = {{"ranks", ranks_of(s)}};
  if (s.failures.restart_from_phases) {
    out["in_job_s"] = s.failures.restart.seconds();
    out["in_job_phases_s"] = phase_json(in_job_phases(s, ranks_of(s)));
    if (group_restarts(s)) {
      const GroupRestart g = group_restart_of(s);
      out["group"] = {{"ranks", g.ranks},
                      {"restart_s", g.total().seconds()},
                      {"phases_s", phase_json(in_job_phases(s, g.ranks))},
                      {"across_groups_communicator_init_s", g.across_groups.seconds()}};
    }
  }
  if (new_job_from_phases(s)) {
    out["new_job_s"] = s.failures.restart_tiers.new_job_overhead.seconds();
    out["new_job_phases_s"] = phase_json(new_job_phase_list(s));
  }
  return out;
}

}  // namespace ckptsim
