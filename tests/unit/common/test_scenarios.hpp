#pragma once
// Small scenarios built in code for the run-model and analysis tests, with round numbers so that the
// expected values can be worked out by hand:
//   16 machines, 1e9 parameters x 12 B = 12 GB checkpoint, 0.75 GB shard per machine;
//   storage 100 MB/s -> C / B_s = 120 s; NIC 1 GB/s -> shard 0.75 s; serialization 1 GB/s ->
//   shard load 0.75 s; iteration 60 s (explicit); shadow (read by the shadow strategy only): 4
//   shadow machines stepping 1 GB/s each, one failure per 10^4 days each.
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim::test {

inline Scenario small_scenario(StrategyKind strategy) {
  Scenario s;
  s.name = "small-" + std::string(name_of(strategy));
  s.cluster.machines = 16;
  s.cluster.gpus_per_machine = 8;
  s.cluster.gpu_memory_bytes = 40e9;
  s.cluster.cpu_memory_bytes = 1e12;
  s.cluster.network_bandwidth = 1e9;
  s.cluster.gpu_cpu_bandwidth = 25e9;
  s.cluster.nvlink_bandwidth = 300e9;
  s.cluster.gpu_peak_flops = 312e12;
  s.cluster.gpu_memory_bandwidth = 1555e9;  // A100-40GB data sheet: 1,555 GB/s HBM2
  s.storage.bandwidth = 1e8;
  s.model.parameters = 1e9;
  s.training.serialization_bandwidth = 1e9;
  s.training.iteration_time = seconds(60);
  s.strategy.kind = strategy;
  s.strategy.placement = PlacementScheme::group;
  s.strategy.replicas = 2;
  s.strategy.interval = hours(1);
  s.strategy.persistent_interval = hours(1);
  s.strategy.shadow_machines = 4;
  s.strategy.shadow_update_bandwidth = 1e9;
  s.strategy.shadow_machine_mtbf = days(10000);
  s.failures.process = FailureProcessKind::none;
  s.failures.rate = 0;
  s.failures.hardware_fraction = 0.5;
  s.failures.detection = seconds(15);
  s.failures.restart = seconds(60);
  s.failures.replacement.distribution = ReplacementDistribution::fixed;
  s.failures.replacement.fixed = minutes(5);
  s.run.duration = hours(10);
  s.run.replicas = 20;
  s.run.seed = 7;
  return s;
}

}  // namespace ckptsim::test
