#include "ckptsim/run/monte_carlo.hpp"

#include "ckptsim/run/goodput.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace ckptsim {

std::vector<ReplicaResult> run_replicas(const RunModel& model, const MonteCarloOptions& options) {
  const int n = std::max(0, options.replicas);
  std::vector<ReplicaResult> results(static_cast<std::size_t>(n));
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  const int report_every = std::max(1, n / 100);
  auto worker = [&] {
    for (;;) {
      const int r = next.fetch_add(1);
      if (r >= n) return;
      try {
        results[static_cast<std::size_t>(r)] = model.simulate(static_cast<std::uint64_t>(r), options.mode);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(n);
        return;
      }
      const int finished = done.fetch_add(1) + 1;
      if (options.progress && (finished % report_every == 0 || finished == n)) options.progress(finished, n);
    }
  };
  const int jobs = std::clamp(options.jobs, 1, std::max(1, n));
  if (jobs == 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(jobs));
    try {
      for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
    } catch (const std::system_error&) {
      // The system refused another thread: the ones started share the work (never terminate
      // with joinable threads); with none started, this thread does it.
      if (threads.empty()) worker();
    }
    for (auto& th : threads) th.join();
  }
  if (error) std::rethrow_exception(error);
  return results;
}

std::vector<std::pair<std::string, double>> replica_metrics(const ReplicaResult& r) {
  const auto& b = r.breakdown;
  std::vector<std::pair<std::string, double>> out{
      {"ettr", r.ettr()},
      {"wall_time_s", r.wall_time.seconds()},
      {"iterations", static_cast<double>(r.iterations)},
      {"unfinished", r.finished ? 0.0 : 1.0},
      {"failures.total", static_cast<double>(r.failures())},
      {"failures.software", static_cast<double>(r.software_failures)},
      {"failures.hardware", static_cast<double>(r.hardware_failures)},
      {"recoveries.local", static_cast<double>(r.recoveries[0])},
      {"recoveries.peer", static_cast<double>(r.recoveries[1])},
      {"recoveries.storage", static_cast<double>(r.recoveries[2])},
      {"recoveries.scratch", static_cast<double>(r.recoveries[3])},
      {"wasted_time_per_failure_s", r.wasted_time_per_failure_s()},
      {"time_breakdown_s.training", b.training.seconds()},
      {"time_breakdown_s.checkpoint_stall", b.checkpoint_stall.seconds()},
      {"time_breakdown_s.lost_progress", b.lost_progress.seconds()},
      {"time_breakdown_s.detection", b.detection.seconds()},
      {"time_breakdown_s.replacement_wait", b.replacement_wait.seconds()},
      {"time_breakdown_s.retrieval", b.retrieval.seconds()},
      {"time_breakdown_s.restart", b.restart.seconds()},
      {"machines_replaced", static_cast<double>(r.machines_replaced)},
  };
  for (std::size_t t = 0; t < r.lost_by_tier.size(); ++t)
    out.emplace_back(std::string("time_lost_by_tier_s.") + kRecoveryTierNames[t], r.lost_by_tier[t].seconds());
  if (r.causes) {
    for (std::size_t c = 0; c < r.causes->size(); ++c) {
      const std::string& name = (*r.causes)[c].name;
      out.emplace_back("failures_by_cause." + name, static_cast<double>(r.failures_by_cause[c]));
      out.emplace_back("time_lost_by_cause_s." + name, r.lost_by_cause[c].seconds());
    }
  }
  // Goodput as operators count it (goodput.hpp), after every earlier column.
  const Goodput g = goodput_of(b, r.wall_time, r.episodes);
  out.emplace_back("time_breakdown_s.degraded", b.degraded.seconds());
  out.emplace_back("goodput", g.goodput);
  out.emplace_back("badput.initialization", g.badput_initialization);
  out.emplace_back("badput.checkpoint_save", g.badput_checkpoint_save);
  out.emplace_back("badput.checkpoint_restore", g.badput_checkpoint_restore);
  out.emplace_back("badput.wasted_progress", g.badput_wasted_progress);
  out.emplace_back("badput.infrastructure_recovery", g.badput_infrastructure_recovery);
  out.emplace_back("badput.degraded_throughput", g.badput_degraded_throughput);
  out.emplace_back("ettr_meta", g.ettr_meta);
  out.emplace_back("mttr_s", g.mttr_s.value_or(0.0));
  out.emplace_back("episodes", static_cast<double>(r.episodes));
  if (r.just_in_time) {  // only its own runs carry these columns
    out.emplace_back("recoveries.just_in_time", static_cast<double>(r.jit_recoveries));
    out.emplace_back("recoveries.jit_fallback", static_cast<double>(r.jit_fallbacks));
  }
  if (r.live_migration) {  // only runs with live migration carry these columns (failure/migration.hpp)
    out.emplace_back("migrations", static_cast<double>(r.migrations));
    out.emplace_back("time_breakdown_s.migration", b.migration.seconds());
  }
  if (r.elastic) {  // only runs with elastic restart carry these columns (failure/elastic.hpp)
    out.emplace_back("elastic.shrinks", static_cast<double>(r.elastic_shrinks));
    out.emplace_back("elastic.grows", static_cast<double>(r.elastic_grows));
  }
  if (r.restart_tiers) {  // only runs with restart tiers carry these columns (restart_tiers.hpp)
    out.emplace_back("restarts.in_process", static_cast<double>(r.restarts_by_tier[0]));
    out.emplace_back("restarts.in_job", static_cast<double>(r.restarts_by_tier[1]));
    out.emplace_back("restarts.new_job", static_cast<double>(r.restarts_by_tier[2]));
  }
  return out;
}

bool metric_defined(const std::string& name, const ReplicaResult& r) {
  if (name == "wasted_time_per_failure_s") return r.failures() > 0;
  if (name == "mttr_s") return r.episodes > 0;
  return true;
}

RunSummary summarize(const std::vector<ReplicaResult>& results) {
  std::map<std::string, RunningStats> stats;
  for (const auto& r : results) {
    for (const auto& [name, value] : replica_metrics(r)) {
      // Per-failure and per-episode means are defined only for replicas that saw one.
      if (!metric_defined(name, r)) {
        stats[name];
        continue;
      }
      stats[name].add(value);
    }
  }
  RunSummary s;
  s.replicas = static_cast<int>(results.size());
  for (const auto& [name, st] : stats) s.metrics[name] = st.summary();
  return s;
}

}  // namespace ckptsim
