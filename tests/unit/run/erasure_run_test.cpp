// The run model with erasure-coded in-memory checkpoints (strategy erasure-coded).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using namespace ckptsim::test;

namespace {

constexpr double kApart = 36000.0;  // episodes 10 h apart: a checkpoint completes in between

/// A hand-built failure sequence on 8 machines, coding groups {0..3} and {4..7} (g = 4), all
/// hardware (each failed machine is replaced and loses its CPU memory):
///   E1 t1: 0 and 4 at once          (one per group)
///   E2 t2: 0 and 1 at once          (two in group 0)
///   E3 t3: 2                        (one)
///   E4 t4: 5, then 6 five seconds later, during the first one's detection (two in group 1,
///          in one episode)
///   E5 t5: 3; then 1 at t5 + 400 s, 18.55 s after the restart (recovery of 3: detection 15 s +
///          replacement 300 s + repair 6.45 s + restart 60 s = 381.45 s), before the next checkpoint
///          completes (120 s after the restart): machine 3 holds no parity yet, two in group 0
///   E6 t6: 3; then 1 at t6 + 600 s, 218.55 s after the restart: a checkpoint completed in between
///   E7 t7: 4, 5 and 6 at once      (three in group 1)
std::string write_sequence() {
  const auto path = std::filesystem::temp_directory_path() / "ckptsim_erasure_sequence.csv";
  std::ofstream csv(path);
  csv << "# synthetic: hand-built failure sequence (test input)\ntime,machine,type\n";
  const auto at = [&](double t, int machine) { csv << t << ',' << machine << ",hardware\n"; };
  at(1 * kApart, 0), at(1 * kApart, 4);
  at(2 * kApart, 0), at(2 * kApart, 1);
  at(3 * kApart, 2);
  at(4 * kApart, 5), at(4 * kApart + 5, 6);
  at(5 * kApart, 3), at(5 * kApart + 400, 1);
  at(6 * kApart, 3), at(6 * kApart + 600, 1);
  at(7 * kApart, 4), at(7 * kApart, 5), at(7 * kApart, 6);
  return path.string();
}

Scenario sequence_scenario(int parity, const std::string& trace) {
  Scenario s = small_scenario(StrategyKind::erasure_coded);
  s.cluster.machines = 8;  // 1e9 x 12 B / 8 = 1.5 GB shard
  s.strategy.group_size = 4;
  s.strategy.parity = parity;
  s.strategy.checkpoint_stall = SimTime::zero();
  s.strategy.persistent_interval = minutes(30);
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = trace;
  s.run.duration = SimTime::from_seconds(8 * kApart);
  return s;
}

}  // namespace

TEST_CASE("a coding group loses its checkpoint exactly when more than p of its machines are replaced") {
  const std::string trace = write_sequence();
  const auto peer = static_cast<std::size_t>(RecoveryTier::peer);
  const auto storage = static_cast<std::size_t>(RecoveryTier::storage);
  {
    // p = 1: storage for E2, E4, E5's second episode and E7; peer for E1, E3, E5's first, both of E6.
    const Scenario s = sequence_scenario(1, trace);
    const StrategyCosts c = compute_strategy_costs(s, nullptr);
    // Repair of a 1.5 GB shard: (g-p) c = 4.5 GB over 1 GB/s + 4.5 GB at 10 GB/s + 1.5 GB load
    // at 1 GB/s = 4.5 + 0.45 + 1.5 = 6.45 s (the sequence's timing above relies on it).
    CHECK(c.retrieval_peer == SimTime::from_seconds(6.45));
    const ReplicaResult r = RunModel(s, c).simulate(0);
    CHECK(r.machines_replaced == 14);
    CHECK(r.recoveries[storage] == 4);
    CHECK(r.recoveries[peer] == 5);
  }
  {
    // p = 2: only E7 (three in one group) goes to storage; the other 8 episodes to a peer.
    const ReplicaResult r = RunModel(sequence_scenario(2, trace), compute_strategy_costs(sequence_scenario(2, trace), nullptr)).simulate(0);
    CHECK(r.recoveries[storage] == 1);
    CHECK(r.recoveries[peer] == 8);
  }
  std::filesystem::remove(trace);
}

TEST_CASE("erasure-coded costs: traffic like GEMINI with p + 1 replicas, encode, completion") {
  // small_scenario: 16 machines, 0.75 GB shard, T = 60 s, NIC 1 GB/s. First order without an
  // iteration model: the idle time per iteration is T minus ZeRO-3 traffic; p c = 1.5 GB for
  // p = 2 is the traffic of GEMINI with 3 replicas, so the stalls agree.
  Scenario ec = small_scenario(StrategyKind::erasure_coded);
  ec.strategy.group_size = 8;
  ec.strategy.parity = 2;
  ec.strategy.encode_bandwidth = 1e9;
  Scenario gemini = small_scenario(StrategyKind::gemini);
  gemini.strategy.replicas = 3;
  const StrategyCosts e = compute_strategy_costs(ec, nullptr);
  const StrategyCosts g = compute_strategy_costs(gemini, nullptr);
  CHECK(e.stall == g.stall);
  // Encode p c / B_enc = 1.5 GB / 1 GB/s = 1.5 s, well inside k T = 60 s: completion k T + S.
  CHECK(e.encode == SimTime::from_seconds(1.5));
  CHECK(e.completion == g.completion);
  // An encode slower than the iteration (B_enc = 10 MB/s: 150 s) sets the completion: 150 s + S.
  ec.strategy.encode_bandwidth = 1e7;
  const StrategyCosts slow = compute_strategy_costs(ec, nullptr);
  CHECK(slow.completion == SimTime::from_seconds(150) + slow.stall);
  CHECK(e.group_size == 8);
  CHECK(e.parity == 2);
}

TEST_CASE("erasure-coded g = 2, p = 1 recovers like GEMINI's group placement with 2 replicas") {
  // Same groups ({0,1}, {2,3}, ...) and the same loss rule (both members replaced), same failure
  // streams: the tiers of every recovery agree replica by replica.
  Scenario ec = small_scenario(StrategyKind::erasure_coded);
  ec.strategy.group_size = 2;
  ec.strategy.parity = 1;
  ec.strategy.encode_bandwidth = 1e18;  // no decode time: the repair equals a peer copy
  ec.strategy.checkpoint_stall = SimTime::zero();
  ec.failures.process = FailureProcessKind::exponential;
  ec.failures.rate = 5.0 / 86400.0;
  ec.failures.hardware_fraction = 1.0;
  Scenario gemini = ec;
  gemini.strategy.kind = StrategyKind::gemini;
  gemini.strategy.replicas = 2;
  const RunModel a(ec, compute_strategy_costs(ec, nullptr));
  const RunModel b(gemini, compute_strategy_costs(gemini, nullptr));
  std::int64_t storage = 0;
  for (std::uint64_t replica = 0; replica < 20; ++replica) {
    const ReplicaResult x = a.simulate(replica);
    const ReplicaResult y = b.simulate(replica);
    CHECK(x.recoveries == y.recoveries);
    storage += x.recoveries[static_cast<std::size_t>(RecoveryTier::storage)];
  }
  CHECK(storage > 0);  // the comparison covered group losses, not only peer recoveries
}

TEST_CASE("group-spread as strategy.placement: a rack failure costs GEMINI's pairs nothing") {
  // 16 machines in racks of 2 that fail whole (hardware), no machine failures. GEMINI m = 2 with
  // group placement keeps each pair inside one rack: every episode loses a pair and recovers
  // from storage. group-spread pairs machines 8 apart ({i, i+8}, racks r and r+4): one rack
  // failure leaves every partner, so episodes recover from a peer unless racks r and r + 4 both
  // fail in one window.
  Scenario s = small_scenario(StrategyKind::gemini);
  s.strategy.checkpoint_stall = SimTime::zero();
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0;
  s.failures.domains[static_cast<std::size_t>(DomainKind::rack)] = DomainSpec{2, 2.0 / 86400.0, 1.0};
  s.run.duration = days(10);
  const auto storage = static_cast<std::size_t>(RecoveryTier::storage);
  const auto peer = static_cast<std::size_t>(RecoveryTier::peer);
  const auto scratch = static_cast<std::size_t>(RecoveryTier::scratch);
  std::int64_t spread_storage = 0, spread_peer = 0;
  for (std::uint64_t replica = 0; replica < 10; ++replica) {
    s.strategy.placement = PlacementScheme::group;
    const ReplicaResult g = RunModel(s, compute_strategy_costs(s, nullptr)).simulate(replica);
    CHECK(g.recoveries[peer] == 0);
    CHECK(g.recoveries[storage] + g.recoveries[scratch] > 0);
    s.strategy.placement = PlacementScheme::group_spread;
    const ReplicaResult r = RunModel(s, compute_strategy_costs(s, nullptr)).simulate(replica);
    spread_storage += r.recoveries[storage];
    spread_peer += r.recoveries[peer];
  }
  CHECK(spread_peer > 10 * spread_storage);
}
