// The run model's required properties (issue "ckptsim run", "Tests that must exist").
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <boost/random/uniform_int_distribution.hpp>

#include "ckptsim/core/random.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using ckptsim::test::small_scenario;

namespace {

RunSummary simulate(const Scenario& s, int jobs = 1, AdvanceMode mode = AdvanceMode::closed_form) {
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  MonteCarloOptions o;
  o.replicas = s.run.replicas;
  o.jobs = jobs;
  o.mode = mode;
  return summarize(run_replicas(model, o));
}

}  // namespace

TEST_CASE("Eq. 1: periodic remote checkpoints under exponential failures") {
  // remote-periodic, T = 60 s, interval 1 h -> k = 60; stall S = C / B_s = 12e9 / 1e8 = 120 s;
  // period between checkpoint starts 1/f = kT + S = 3720 s; retrieval from storage
  // t_rtvl = C / B_s + shard / B_ser = 120 + 0.75 = 120.75 s.
  // Eq. 1: wasted = t_ckpt + 1/(2f) + t_rtvl = 120 + 1860 + 120.75 = 2100.75 s.
  // Failures are software only (no replacement), with the cluster MTBF 300 x 1/f so that the
  // failure position is close to uniform over a period (bias ~ (1/f)^2 / (12 MTBF) ~ 1 s,
  // well inside the interval).
  Scenario s = small_scenario(StrategyKind::remote_periodic);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.hardware_fraction = 0.0;
  s.failures.detection = seconds(1);
  s.failures.restart = seconds(1);
  const double period = 3720.0;
  const double cluster_mtbf = 300.0 * period;
  s.failures.rate = 1.0 / (cluster_mtbf * s.cluster.machines);
  s.run.duration = SimTime::from_seconds(100.0 * cluster_mtbf);  // ~100 failures per replica
  s.run.replicas = 400;
  const RunSummary r = simulate(s, 2);
  const double eq1 = 120.0 + period / 2 + 120.75;
  const auto& w = r.at("wasted_time_per_failure_s");
  CAPTURE(w.mean);
  CAPTURE(w.ci95);
  CHECK(std::fabs(w.mean - eq1) <= w.ci95);
  CHECK(w.ci95 < 20.0);  // the check above must be a sharp one
}

TEST_CASE("no failures: ETTR is exactly 1 minus the checkpoint-stall fraction") {
  for (const StrategyKind kind : {StrategyKind::gemini, StrategyKind::in_memory_blocking, StrategyKind::remote_periodic, StrategyKind::remote_highfreq, StrategyKind::multi_level, StrategyKind::none}) {
    CAPTURE(kind);
    Scenario s = small_scenario(kind);
    s.strategy.checkpoint_stall = seconds(7);  // give gemini a stall too
    s.run.replicas = 2;
    const RunModel model(s, compute_strategy_costs(s, nullptr));
    const ReplicaResult r = model.simulate(0);
    CHECK(r.failures() == 0);
    // ETTR is training / wall by definition: the breakdown is what can break.
    CHECK(r.breakdown.training == r.wall_time - r.breakdown.checkpoint_stall);
  }
  // By hand for remote-periodic over 10 h = 36000 s: block 0 is 60 iterations (3600 s) without
  // a checkpoint, then blocks of 3600 + 120 = 3720 s: (36000 - 3600) / 3720 = 8 full blocks and
  // 2640 s of a ninth, whose 120 s stall has passed. Stall = 9 x 120 = 1080 s; ETTR = 0.97.
  Scenario s = small_scenario(StrategyKind::remote_periodic);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  CHECK(r.breakdown.checkpoint_stall == seconds(1080));
  CHECK(r.ettr() == doctest::Approx(0.97).epsilon(1e-12));
}

TEST_CASE("GEMINI falls back to storage exactly when a whole group is lost") {
  // 4 machines, 2 replicas, group placement: groups {0,1} and {2,3}. Each episode is two
  // simultaneous hardware failures on a pair drawn uniformly from the C(4,2) = 6 pairs, 10 h
  // apart (checkpoints complete in between). The placement loses a whole group for the pairs
  // {0,1} and {2,3}: probability 2/6 = 1/3. The run model must send exactly those episodes to
  // storage and every other one to a peer.
  Scenario s = small_scenario(StrategyKind::gemini);
  s.cluster.machines = 4;
  s.strategy.checkpoint_stall = SimTime::zero();
  s.strategy.persistent_interval = minutes(30);
  s.failures.process = FailureProcessKind::trace;
  const int episodes = 600;
  const auto path = std::filesystem::temp_directory_path() / "ckptsim_group_loss_trace.csv";
  int whole_groups = 0;
  {
    std::ofstream csv(path);
    csv << "# synthetic: pairs of simultaneous hardware failures (test input)\ntime,machine,type\n";
    auto rng = make_stream(99, 0, RandomComponent::analysis);
    boost::random::uniform_int_distribution<int> pick(0, 5);
    const int pairs[6][2] = {{0, 1}, {2, 3}, {0, 2}, {0, 3}, {1, 2}, {1, 3}};
    for (int e = 0; e < episodes; ++e) {
      const int p = pick(rng);
      if (p < 2) ++whole_groups;
      const double t = 36000.0 * (e + 1);
      csv << t << ',' << pairs[p][0] << ",hardware\n" << t << ',' << pairs[p][1] << ",hardware\n";
    }
  }
  s.failures.trace_file = path.string();
  s.run.duration = SimTime::from_seconds(36000.0 * (episodes + 1));
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  std::filesystem::remove(path);
  CHECK(r.hardware_failures == 2 * episodes);
  CHECK(r.recoveries[static_cast<int>(RecoveryTier::storage)] == whole_groups);
  CHECK(r.recoveries[static_cast<int>(RecoveryTier::peer)] == episodes - whole_groups);
  // The observed rate matches 1/3 within 4 binomial standard deviations (sqrt(600 * 2/9) ~ 11.5).
  CHECK(std::fabs(whole_groups - episodes / 3.0) < 4 * std::sqrt(episodes * 2.0 / 9.0));
}

TEST_CASE("breakdown adds up to the wall time and ETTR lies in [0, 1], in every replica") {
  for (const StrategyKind kind : {StrategyKind::gemini, StrategyKind::in_memory_blocking, StrategyKind::remote_periodic, StrategyKind::remote_highfreq, StrategyKind::multi_level, StrategyKind::none}) {
    for (double rate_per_day : {0.5, 5.0, 50.0}) {
      CAPTURE(kind);
      CAPTURE(rate_per_day);
      Scenario s = small_scenario(kind);
      s.failures.process = FailureProcessKind::exponential;
      s.failures.rate = rate_per_day / 86400.0;
      s.cluster.standby_machines = 1;
      s.failures.replacement.distribution = ReplacementDistribution::uniform;
      s.failures.replacement.low = minutes(4);
      s.failures.replacement.high = minutes(7);
      s.run.duration = days(3);
      const RunModel model(s, compute_strategy_costs(s, nullptr));
      for (std::uint64_t replica = 0; replica < 10; ++replica) {
        const ReplicaResult r = model.simulate(replica);
        CHECK(r.breakdown.total() == r.wall_time);
        CHECK(r.breakdown.lost_progress >= SimTime::zero());
        CHECK(r.ettr() >= 0.0);
        CHECK(r.ettr() <= 1.0);
        const auto recoveries = r.recoveries[0] + r.recoveries[1] + r.recoveries[2] + r.recoveries[3];
        CHECK(recoveries <= r.failures());
      }
    }
  }
}

TEST_CASE("closed form and iteration-by-iteration stepping agree exactly") {
  // Varied small scenarios: every strategy, software and hardware failures, a failure rate high
  // enough that failures strike during checkpoints and during other failures' recoveries, a
  // Weibull process, iteration-count and duration targets.
  int compared = 0;
  for (const StrategyKind kind : {StrategyKind::gemini, StrategyKind::in_memory_blocking, StrategyKind::remote_periodic, StrategyKind::remote_highfreq, StrategyKind::multi_level, StrategyKind::none}) {
    for (const FailureProcessKind process : {FailureProcessKind::exponential, FailureProcessKind::weibull}) {
      for (double hardware : {0.0, 1.0, 0.5}) {
        Scenario s = small_scenario(kind);
        s.cluster.machines = 4;
        s.strategy.every_iterations = 2;
        s.strategy.checkpoint_stall = seconds(9);
        s.strategy.interval = minutes(10);
        s.strategy.persistent_interval = minutes(20);
        s.strategy.local_interval = minutes(2);    // multi-level: levels every 2, 6, 18 iterations
        s.strategy.partner_interval = minutes(6);
        s.failures.process = process;
        s.failures.rate = 20.0 / 86400.0;
        s.failures.weibull_shape = 0.7;
        s.failures.weibull_scale = hours(3);
        s.failures.hardware_fraction = hardware;
        if (compared % 2 == 0) {
          s.run.duration = hours(12);
        } else {
          s.run.duration.reset();
          s.run.iterations = 400;
        }
        const RunModel model(s, compute_strategy_costs(s, nullptr));
        for (std::uint64_t replica = 0; replica < 3; ++replica) {
          CAPTURE(kind);
          CAPTURE(process);
          CAPTURE(hardware);
          CAPTURE(replica);
          const ReplicaResult a = model.simulate(replica, AdvanceMode::closed_form);
          const ReplicaResult b = model.simulate(replica, AdvanceMode::exact);
          CHECK(a.wall_time == b.wall_time);
          CHECK(a.iterations == b.iterations);
          CHECK(a.software_failures == b.software_failures);
          CHECK(a.hardware_failures == b.hardware_failures);
          CHECK(a.recoveries == b.recoveries);
          CHECK(a.wasted_time == b.wasted_time);
          CHECK(a.breakdown.training == b.breakdown.training);
          CHECK(a.breakdown.checkpoint_stall == b.breakdown.checkpoint_stall);
          CHECK(a.breakdown.lost_progress == b.breakdown.lost_progress);
          CHECK(a.breakdown.retrieval == b.breakdown.retrieval);
          CHECK(a.failures() > 0);
        }
        ++compared;
      }
    }
  }
  CHECK(compared == 36);
}

TEST_CASE("Monte Carlo output is identical for every thread count") {
  Scenario s = small_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 2.0 / 86400.0;
  s.run.replicas = 37;
  const RunSummary one = simulate(s, 1);
  const RunSummary four = simulate(s, 4);
  REQUIRE(one.metrics.size() == four.metrics.size());
  for (const auto& [bound_name, m] : one.metrics) {
    const std::string name = bound_name;  // a copy: clang 14 cannot capture a binding in CAPTURE
    CAPTURE(name);
    // Bit-identical: replicas fold in index order whatever thread ran them.
    CHECK(m.mean == four.at(name).mean);
    CHECK(m.std == four.at(name).std);
  }
}

TEST_CASE("a different seed gives different failures, the same seed the same ones") {
  Scenario s = small_scenario(StrategyKind::remote_periodic);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 5.0 / 86400.0;
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult a = model.simulate(3);
  const ReplicaResult b = model.simulate(3);
  CHECK(a.wasted_time == b.wasted_time);
  Scenario s2 = s;
  s2.run.seed = 8;
  const RunModel model2(s2, compute_strategy_costs(s2, nullptr));
  CHECK(model2.simulate(3).wasted_time != a.wasted_time);
}

TEST_CASE("a recovery from memory after an earlier replacement, before the next checkpoint, is a peer recovery") {
  // gemini, T = 60 s, a checkpoint of every 10th state, usable 30 s after its carrying
  // iteration starts; 4 machines in groups of 2; replacement 5 min, detection 15 s, restart 60 s.
  // Peer retrieval: shard 12e9 / 4 = 3 GB over 1 GB/s NIC + 3 GB at 1 GB/s load = 6 s.
  //   t =  900 s: machine 0 fails (hardware); state 10 (complete at 630 s) is recovered from
  //               machine 1 -> peer. Training resumes at 900 + 15 + 300 + 6 + 60 = 1281 s from
  //               state 10; the next checkpoint (state 20) completes 10 x 60 + 30 s later, 1911 s.
  //   t = 1500 s: machine 1 fails (software). Machine 0's memory is still empty (it holds no
  //               replica until 1911 s), so machine 0's shard again comes from machine 1 -> peer.
  // With the second failure at 2400 s instead (after 1911 s) every holder is full again -> local.
  for (const double second : {1500.0, 2400.0}) {
    CAPTURE(second);
    Scenario s = small_scenario(StrategyKind::gemini);
    s.cluster.machines = 4;
    s.strategy.every_iterations = 10;
    s.strategy.checkpoint_stall = SimTime::zero();
    s.strategy.checkpoint_duration = seconds(30);
    s.strategy.persistent_interval.reset();
    s.failures.process = FailureProcessKind::trace;
    const auto path = std::filesystem::temp_directory_path() / "ckptsim_peer_after_replacement.csv";
    {
      std::ofstream csv(path);
      csv << "time,machine,type\n900,0,hardware\n" << second << ",1,software\n";
    }
    s.failures.trace_file = path.string();
    s.run.duration = hours(1);
    const RunModel model(s, compute_strategy_costs(s, nullptr));
    const ReplicaResult r = model.simulate(0);
    std::filesystem::remove(path);
    REQUIRE(r.failures() == 2);
    const int expected_peer = second < 1911.0 ? 2 : 1;
    CHECK(r.recoveries[static_cast<int>(RecoveryTier::peer)] == expected_peer);
    CHECK(r.recoveries[static_cast<int>(RecoveryTier::local)] == 2 - expected_peer);
  }
}
