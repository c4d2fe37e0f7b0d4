// Up-front estimates of the iteration model (checkpoint/iteration_work.hpp): what the study plans
// is what is estimated, for every strategy.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/iteration_work.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using ckptsim::test::small_scenario;

namespace {

const WorkEstimate* chunk_estimate(const std::vector<WorkEstimate>& estimates) {
  for (const WorkEstimate& e : estimates)
    if (e.what.find("checkpoint chunks") != std::string::npos) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("iteration work: the chunk estimate counts the copies the study plans, whatever the strategy") {
  // 1e9 parameters x 12 B / 16 machines = 7.5e8 B per machine; 2 replicas: one copy. With a
  // 128 MiB buffer in 2^31 - 1 sub-buffers a chunk is 0.0625 B: 1.2e10 chunks x 256 B = 3.1e12 B.
  for (const StrategyKind kind : {StrategyKind::gemini, StrategyKind::none, StrategyKind::multi_level,
                                  StrategyKind::remote_periodic, StrategyKind::remote_highfreq}) {
    CAPTURE(name_of(kind));
    Scenario s = small_scenario(kind);
    s.strategy.sub_buffers = 2147483647;
    CHECK(study_holders(s) == 2);
    const std::vector<WorkEstimate> estimates = estimate_iteration_work(s);
    const WorkEstimate* e = chunk_estimate(estimates);
    REQUIRE(e != nullptr);
    const double chunk = s.strategy.gpu_buffer_bytes / 2147483647.0;
    CHECK(e->amount == doctest::Approx(7.5e8 / chunk * 256.0).epsilon(1e-12));
    CHECK(e->amount > e->limit);
  }
  // Erasure-coded: p copies (parity 2 here), planned as p + 1 holders.
  Scenario ec = small_scenario(StrategyKind::erasure_coded);
  ec.strategy.parity = 2;
  CHECK(study_holders(ec) == 3);
  // Replicas beyond the machines of a strategy the loader does not check are clamped to N.
  Scenario wide = small_scenario(StrategyKind::none);
  wide.strategy.replicas = 1000;
  CHECK(study_holders(wide) == 16);
}
