// The iteration study's placement for strategies whose placement the loader does not check
// (fuzz/fuzz_scenario finding: a remote-highfreq scenario on 15 machines with the default
// "group" placement of 2 replicas escaped as a PlacementError, an internal error).
#include <doctest/doctest.h>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"
#include "../workload/paper_scenario.hpp"

using namespace ckptsim;

namespace {

Scenario remote_scenario(int machines) {
  Scenario s = testing::paper_scenario(machines);
  s.model.layers = 12;      // few layers: a quick iteration model
  s.model.parameters = 0;   // from the shape
  s.strategy.kind = StrategyKind::remote_highfreq;
  s.strategy.placement = PlacementScheme::group;
  s.strategy.replicas = 2;
  return s;
}

}  // namespace

TEST_CASE("a remote strategy on machines that group placement cannot divide still gets its costs") {
  // 15 machines, m = 2: 2 does not divide 15, so the study uses "mixed" (Algorithm 1), where
  // every machine still stores exactly m = 2 shards.
  const IterationStudy study = prepare_iteration_study(remote_scenario(15));
  CHECK(study.placement.scheme == "mixed");
  CHECK(study.placement.machines == 15);
  CHECK(study.placement.max_shards_per_machine() == 2);
  CHECK_NOTHROW((void)compute_iteration_costs(remote_scenario(15)));
}

TEST_CASE("a remote strategy on one machine studies at most one replica") {
  // m = 2 > N = 1 cannot be placed; the study keeps only the local copy (m = 1, no remote copy).
  const IterationStudy study = prepare_iteration_study(remote_scenario(1));
  CHECK(study.placement.replicas == 1);
  CHECK(study.input.copies == 0);
}
