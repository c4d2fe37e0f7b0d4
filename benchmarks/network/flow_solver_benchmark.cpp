// Max-min fair solver and collective flows (network/flow_solver.hpp, collectives.hpp).
//   BM_MaxMinRandom/F:      F random flows over 64 resources, 1-4 resources each
//   BM_RingAllGather/N:     one ring all-gather on N machines x 8 GPUs, simulated on an idle
//                           network (one aggregated flow of 2N NIC uses + N NVLink uses)
#include <benchmark/benchmark.h>

#include <vector>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "ckptsim/core/random.hpp"
#include "ckptsim/network/collectives.hpp"
#include "ckptsim/network/flow_set.hpp"
#include "ckptsim/network/flow_solver.hpp"

namespace {

using namespace ckptsim;

void BM_MaxMinRandom(benchmark::State& state) {
  const int flows = static_cast<int>(state.range(0));
  auto rng = make_stream(3, 0, RandomComponent::workload);
  boost::random::uniform_int_distribution<int> pick(0, 63), k(1, 4);
  boost::random::uniform_real_distribution<double> cap(1.0, 100.0);
  std::vector<double> capacity(64);
  for (double& c : capacity) c = cap(rng);
  std::vector<std::vector<ResourceUse>> uses(static_cast<std::size_t>(flows));
  for (auto& u : uses) {
    for (int j = k(rng); j > 0; --j) add_use(u, pick(rng), 1.0);
  }
  std::vector<FlowDemand> demands;
  for (const auto& u : uses) demands.push_back(FlowDemand{u});
  MaxMinSolver solver;
  std::vector<double> rates;
  for (auto _ : state) {
    solver.solve(capacity, demands, rates);
    benchmark::DoNotOptimize(rates.data());
  }
  state.SetItemsProcessed(state.iterations() * flows);
}
BENCHMARK(BM_MaxMinRandom)->Arg(8)->Arg(64)->Arg(512);

void BM_RingAllGather(benchmark::State& state) {
  ClusterSpec c;
  c.machines = static_cast<int>(state.range(0));
  c.network_bandwidth = 50e9;
  c.nvlink_bandwidth = 300e9;
  c.gpu_cpu_bandwidth = 25e9;
  const Topology t = Topology::build(c);
  const CollectiveShape s{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 1.6e9, 8, microseconds(10)};
  for (auto _ : state) {
    const auto phases = collective_phases(t, s);
    FlowSet flows(t.capacities());
    flows.add(phases[0].uses, phases[0].bytes, 0);
    benchmark::DoNotOptimize(flows.next_completion());
  }
}
BENCHMARK(BM_RingAllGather)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace
