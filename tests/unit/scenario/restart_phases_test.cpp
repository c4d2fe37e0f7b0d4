// Restart as phases (scenario/restart_phases.hpp): hand-worked sums at two scales, each phase's
// law between them, the loader's defaults of failures.restart and a new job's overhead, and
// what a written value overrides.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "../common/small_bases.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/restart_tiers.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/restart_phases.hpp"
#include "ckptsim/scenario/scenario_json.hpp"

using namespace ckptsim;
using nlohmann::json;

TEST_SUITE_BEGIN("scenario");

TEST_CASE("restart phases: the in-job sum at 16 and 2,048 machines of 8 GPUs, by hand") {
  const RestartPhasesSpec spec;  // the defaults
  // 16 machines, R = 128 ranks: rendezvous 128 x 1.017 ms = 130.176 ms; communicator init
  // 0.66 s + 3 x 127 steps x 0.896 ms = 0.66 + 0.341376 = 1.001376 s; with process start 5 s
  // and warm-up 253 s: 259.131552 s.
  const RestartPhases small = restart_phases(spec, 128);
  CHECK(small.process_start == seconds(5));
  CHECK(small.rendezvous == microseconds(130176));
  CHECK(small.communicator_init == microseconds(1001376));
  CHECK(small.warmup == seconds(253));
  CHECK(small.first_iteration == SimTime::zero());
  CHECK(small.total() == microseconds(259131552));
  // 2,048 machines, R = 16,384: rendezvous 16,384 x 1.017 ms = 16.662528 s; communicator init
  // 0.66 + 3 x 16,383 x 0.896 ms = 0.66 + 44.037504 = 44.697504 s; total 319.360032 s.
  const RestartPhases large = restart_phases(spec, 16384);
  CHECK(large.rendezvous == microseconds(16662528));
  CHECK(large.communicator_init == microseconds(44697504));
  CHECK(large.total() == microseconds(319360032));
}

TEST_CASE("restart phases: each phase's law between 128 and 16,384 ranks") {
  const RestartPhasesSpec spec;
  const RestartPhases a = restart_phases(spec, 128);
  const RestartPhases b = restart_phases(spec, 16384);
  // Rendezvous is linear in the ranks: 128 times the ranks, 128 times the time.
  CHECK(b.rendezvous == a.rendezvous * 128);
  // Communicator init: fixed part + 3 (R - 1) steps; the step part grows as (16,383 / 127).
  CHECK((b.communicator_init - spec.nccl_init_fixed).ns() * 127 == (a.communicator_init - spec.nccl_init_fixed).ns() * 16383);
  // Process start and warm-up do not grow with the ranks.
  CHECK(a.process_start == b.process_start);
  CHECK(a.warmup == b.warmup);
  // NCCL 2.29's two rings: ceil(R / 2) steps instead of R - 1 (16,384 -> 8,192; 7 -> 4; 1 -> 0).
  CHECK(nccl_bootstrap_steps(16384, 1) == 16383);
  CHECK(nccl_bootstrap_steps(16384, 2) == 8192);
  CHECK(nccl_bootstrap_steps(7, 2) == 4);
  CHECK(nccl_bootstrap_steps(1, 2) == 0);
  RestartPhasesSpec two = spec;
  two.nccl_bootstrap_rings = 2;
  // 0.66 s + 3 x 8,192 x 0.896 ms = 0.66 + 22.020096 s.
  CHECK(restart_phases(two, 16384).communicator_init == microseconds(22680096));
}

TEST_CASE("restart phases: a new job adds requeue, health check and image pull") {
  // Slurm's 121 s + 0 + containerd's 55.6 s.
  CHECK(new_job_phases(RestartPhasesSpec{}).total() == milliseconds(176600));
}

namespace {

json phases_doc() {
  json doc = test::cost_key_deepspeed_fat_tree();  // 4 p4d machines, 32 ranks
  doc["failures"].erase("restart");
  return doc;
}

}  // namespace

TEST_CASE("restart phases: the loader makes them failures.restart when it is not written, at the job's scale") {
  const Scenario s = load_scenario_json(phases_doc(), "p.json", ".");
  // 32 ranks: 5 + 32 x 1.017 ms + 0.66 + 3 x 31 x 0.896 ms + 253 = 5 + 0.032544 + 0.743328 + 253.
  CHECK(s.failures.restart_from_phases);
  CHECK(s.failures.restart == microseconds(258775872));
  // The effective scenario writes the phases, not the sum, and reads back to the same restart.
  const json effective = effective_scenario_json(s);
  CHECK_FALSE(effective.at("failures").contains("restart"));
  CHECK(effective.at("failures").at("restart_phases").at("warmup") == "253s");
  const Scenario again = load_scenario_json(effective, "again.json", ".");
  CHECK(again.failures.restart == s.failures.restart);
  // Each phase is its own field: a warm-up of your stack's own changes the sum by the difference.
  json own = phases_doc();
  own["failures"]["restart_phases"] = {{"warmup", "60s"}};
  CHECK(load_scenario_json(own, "p.json", ".").failures.restart == microseconds(258775872 - 193000000));
}

TEST_CASE("restart phases: a written restart overrides the whole; the phases are then not written out") {
  const Scenario s = load_scenario_json(test::cost_key_megatron(), "p.json", ".");  // restart 253 s, no restart tiers
  CHECK_FALSE(s.failures.restart_from_phases);
  CHECK(s.failures.restart == seconds(253));
  const json effective = effective_scenario_json(s);
  CHECK(effective.at("failures").at("restart") == "253s");
  CHECK_FALSE(effective.at("failures").contains("restart_phases"));
}

TEST_CASE("restart phases: each restart tier pays the phases its mechanism restarts") {
  json doc = phases_doc();
  doc["failures"]["restart_tiers"] = {{"enabled", true}};
  const Scenario s = load_scenario_json(doc, "p.json", ".");
  const RestartTierSpec& tiers = s.failures.restart_tiers;
  const SimTime t = seconds(10);  // an iteration time
  // A new job's overhead is the new-job phases' sum when not written: 176.6 s.
  CHECK(tiers.new_job_overhead_from_phases);
  CHECK(tiers.new_job_overhead == milliseconds(176600));
  // In-process: the Resiliency Extension's 2.5 s + one iteration + the communicators it creates
  // again (0.743328 s at 32 ranks, above), no other phase of a process restart.
  CHECK(tiers.communicator_rebuild == microseconds(743328));
  CHECK(restart_latency(tiers, RestartTier::in_process, s.failures.restart, t) == milliseconds(2500) + microseconds(743328) + t);
  // In-job: every in-job phase (the sum above, 258.775872 s at 32 ranks).
  CHECK(restart_latency(tiers, RestartTier::in_job, s.failures.restart, t) == microseconds(258775872));
  // New job: the in-job phases and the new-job phases.
  CHECK(restart_latency(tiers, RestartTier::new_job, s.failures.restart, t) == microseconds(258775872) + milliseconds(176600));
}

TEST_CASE("restart phases: a phase beyond the clock is refused at its own field") {
  json doc = phases_doc();
  // 36,500 days of warm-up alone is 100 years, and the other phases push the sum past the limit.
  doc["failures"]["restart_phases"] = {{"warmup", "36525d"}};
  try {
    (void)load_scenario_json(doc, "p.json", ".");
    FAIL("a 100-year warm-up was accepted");
  } catch (const InputError& e) {
    REQUIRE_FALSE(e.problems().empty());
    CHECK(e.problems().front().pointer == "/failures/restart_phases/warmup");
  }
  json rings = phases_doc();
  rings["failures"]["restart_phases"] = {{"nccl_bootstrap_rings", 3}};
  CHECK_THROWS_AS((void)load_scenario_json(rings, "p.json", "."), InputError);
}

TEST_SUITE_END();
