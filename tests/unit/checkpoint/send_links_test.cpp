// Checkpoint sends at the point-to-point bandwidth factor and, without GPUDirect RDMA, staged
// through host memory over the sender's PCIe link (checkpoint/checkpoint_run.hpp, SendLinks).
#include <doctest/doctest.h>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "../workload/paper_scenario.hpp"

using namespace ckptsim;

namespace {

Scenario small(int machines) {
  Scenario s = testing::paper_scenario(machines);
  s.model.layers = 4;
  s.model.parameters = 0;
  return s;
}

CheckpointRun blocking_alone(const Scenario& sc) {
  const IterationStudy study = prepare_iteration_study(sc);
  const CheckpointPlan plan = make_plan(SchedulerKind::blocking, study.input);
  return run_checkpoint_alone(study.model.topology, plan, study.placement, sc.cluster.gpus_per_machine,
                              study.input.alpha, SendLinks::of(sc.cluster));
}

double shard_per_gpu(const Scenario& sc) { return prepare_iteration_study(sc).input.shard_bytes; }

}  // namespace

TEST_CASE("point-to-point factor: sends reach f x the NIC's line rate") {
  // Group placement on 8 machines: each machine's 8 GPU streams share its NIC (weight 8/f), so
  // a stream runs at f·B/8 and the shard C per GPU takes C / (f·B/8) plus the chunks' latency.
  Scenario sc = small(8);
  const double c = shard_per_gpu(sc);
  sc.cluster.network.p2p_efficiency = 0.5;
  const SimTime half = blocking_alone(sc).sends_done;
  CHECK(half.seconds() == doctest::Approx(c / (0.5 * 50e9 / 8)).epsilon(0.01));
  // The planner sizes chunks with the same achieved rate.
  CHECK(prepare_iteration_study(sc).input.bandwidth == doctest::Approx(0.5 * 50e9 / 8));
}

TEST_CASE("host staging: checkpoint sends share the PCIe link with the copies") {
  // PCIe 0.5e9 B/s per GPU, 12.5 x slower than a GPU's share of the NIC (50e9 / 8), so PCIe
  // bounds everything. Each GPU's device-to-host link carries its local copy L (C bytes) and
  // the copies K_c of the chunks it receives (C bytes): at least 2C / P. Staged, its own sends
  // cross it too (C bytes more): at least 3C / P. The link is the only bottleneck and is kept
  // busy, so the times come within a few percent of those bounds.
  Scenario sc = small(2);
  sc.cluster.gpu_cpu_bandwidth = 0.5e9;
  const double c = shard_per_gpu(sc);
  const SimTime direct = blocking_alone(sc).checkpoint_time;
  sc.cluster.gpudirect_rdma = false;
  const SimTime staged = blocking_alone(sc).checkpoint_time;
  CHECK(direct.seconds() >= 2 * c / 0.5e9 * (1 - 1e-9));
  CHECK(direct.seconds() == doctest::Approx(2 * c / 0.5e9).epsilon(0.05));
  CHECK(staged.seconds() >= 3 * c / 0.5e9 * (1 - 1e-9));
  CHECK(staged.seconds() == doctest::Approx(3 * c / 0.5e9).epsilon(0.05));
  // Staged sends cannot outrun the PCIe link: the planner's rate is min(f·B/G, P).
  CHECK(prepare_iteration_study(sc).input.bandwidth == doctest::Approx(0.5e9));
}
