#include "cross_check_flows.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/network/flow_set.hpp"
#include "reference_flow_set.hpp"

namespace ckptsim::cross_check {

CrossFlowSet random_flow_set(int flows, std::uint64_t seed, int links, SimTime arrival_spread) {
  auto rng = make_stream(seed, 0, RandomComponent::workload);
  boost::random::uniform_int_distribution<int> pick(0, links - 1), count(1, 4), heavy(0, 4), streams(2, 3);
  boost::random::uniform_real_distribution<double> capacity(1e9, 1e10), decades(6.0, 9.0);
  boost::random::uniform_int_distribution<std::int64_t> arrival(0, arrival_spread.ns());
  CrossFlowSet set;
  for (int r = 0; r < links; ++r) set.capacities.push_back(capacity(rng));
  for (int f = 0; f < flows; ++f) {
    CrossFlow flow;
    const double weight = heavy(rng) == 0 ? streams(rng) : 1.0;
    for (int k = count(rng); k > 0; --k) {
      const int r = pick(rng);
      const bool seen =
          std::any_of(flow.uses.begin(), flow.uses.end(), [&](const ResourceUse& u) { return u.resource == r; });
      if (!seen) flow.uses.push_back({r, weight});
    }
    flow.bytes = std::round(std::pow(10.0, decades(rng)));
    flow.arrival = SimTime::from_ns(arrival(rng));
    set.flows.push_back(std::move(flow));
  }
  return set;
}

CrossFlowSet iteration_flow_set(Scenario scenario) {
  scenario.cluster.network.collective_efficiency = 1.0;
  scenario.cluster.network.p2p_efficiency = 1.0;
  const IterationStudy study = prepare_iteration_study(scenario);
  const SchedulerOutcome outcome = evaluate_scheduler(study, SchedulerKind::gemini, /*keep_run=*/true);
  const CheckpointRun& run = *outcome.run;
  CrossFlowSet set;
  set.capacities = study.model.topology.capacities();
  for (std::size_t i = 0; i < run.graph.size(); ++i) {
    const Task& task = run.graph.task(static_cast<int>(i));
    if (task.kind != TaskKind::transfer || task.bytes <= 0 || task.uses < 0) continue;
    CrossFlow flow;
    flow.uses = run.graph.uses(task.uses);
    flow.bytes = std::max(1.0, std::round(task.bytes));
    flow.arrival = run.run.timing[i].start;
    set.flows.push_back(std::move(flow));
  }
  return set;
}

template <class Set>
std::vector<double> run_flow_set(const CrossFlowSet& set) {
  const std::size_t n = set.flows.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return set.flows[a].arrival < set.flows[b].arrival; });
  std::vector<double> completion(n, 0.0);
  Set flows(set.capacities);
  std::size_t next = 0;
  while (next < n || flows.size() > 0) {
    SimTime t = next < n ? set.flows[order[next]].arrival : SimTime::max();
    if (auto c = flows.next_completion(); c && *c < t) t = *c;
    for (const std::int64_t tag : flows.advance_to(t)) completion[static_cast<std::size_t>(tag)] = t.seconds();
    for (; next < n && set.flows[order[next]].arrival <= t; ++next) {
      const CrossFlow& f = set.flows[order[next]];
      flows.add(f.uses, f.bytes, static_cast<std::int64_t>(order[next]));
    }
  }
  return completion;
}

template std::vector<double> run_flow_set<FlowSet>(const CrossFlowSet&);
template std::vector<double> run_flow_set<reference::ReferenceFlowSet>(const CrossFlowSet&);

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::logic_error("max_relative_difference: lists of different lengths");
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double scale = std::max(std::abs(a[i]), std::abs(b[i]));
    if (scale > 0) worst = std::max(worst, std::abs(a[i] - b[i]) / scale);
  }
  return worst;
}

}  // namespace ckptsim::cross_check
