#pragma once
// Shared set-up of the run-model benchmarks: a DGX-H100-like cluster and the Monte Carlo batch
// one benchmark iteration runs (the whole batch of replicas on one thread).
#include <string>

#include <benchmark/benchmark.h>

#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim::bench {

/// `machines` DGX-H100-like machines (8 x 80 GB GPUs at 989 TFLOPS dense BF16, 3.35 TB/s HBM3,
/// NVLink 900 GB/s, 400 GB/s of NIC, 2 TB of CPU memory; H100 SXM data sheet), GEMINI (m = 2,
/// group placement, every iteration), explicit 60 s iterations, exponential failures, uniform
/// 4-7 min replacements, 30 days, 1,000 replicas. Callers set the model, storage and failures.
Scenario dgx_h100_scenario(std::string name, int machines);

/// dgx_h100_scenario with Llama 3 405B's job around it: 405e9 parameters, 16 standby machines,
/// 200 GB/s storage, 2 GB/s serialization, and Llama 3's failure rate and cause table
/// (cause_presets.hpp, "llama3-405b"). Callers add the failure features they measure.
Scenario llama3_405b_scenario(std::string name, int machines);

/// Runs state.range(0) replicas of `scenario` on one thread per benchmark iteration, with the
/// counters failures_per_replica and items (replicas) processed.
void run_replica_batch(benchmark::State& state, const Scenario& scenario);

/// The same with the strategy costs given (e.g. per-step fault tolerance set on them).
void run_replica_batch(benchmark::State& state, const Scenario& scenario, const StrategyCosts& costs);

}  // namespace ckptsim::bench
