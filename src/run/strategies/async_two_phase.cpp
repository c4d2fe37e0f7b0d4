// Asynchronous two-phase checkpoints: a short blocking snapshot, then persistence in the
// background while training goes on.
//
// The mechanism, as its systems describe it:
//   - PyTorch Distributed Checkpoint's async_save (torch.distributed.checkpoint.async_save,
//     https://pytorch.org/docs/stable/distributed.checkpoint.html): the state dict is first
//     staged into CPU memory, then saved by a background thread; the call returns a future,
//     and a training loop waits for the previous future before its next async_save (one
//     staging copy in flight);
//   - CheckFreq (Mohan et al., FAST '21, https://www.usenix.org/conference/fast21/presentation/mohan):
//     snapshot() copies the state to host memory, persist() writes it to storage in the
//     background; the next snapshot waits for the previous persist;
//   - a local tier between CPU memory and remote storage: FastPersist (Wang et al., 2024,
//     https://arxiv.org/abs/2406.13768) and DataStates-LLM (Maurya et al., HPDC '24,
//     https://arxiv.org/abs/2406.10707) write checkpoints to node-local NVMe, and flush to the
//     parallel file system from there.
//
// Model (units: bytes, bytes/s, s; c = C / N the shard of one machine, G GPUs per machine,
// B_pcie = cluster.gpu_cpu_bandwidth per GPU, B_ser = training.serialization_bandwidth,
// B_s = storage.bandwidth shared by all machines, L = strategy.local_bandwidth per machine,
// phi = strategy.persist_throughput_cost, T the iteration time):
//   staging        S_stage = c / (G B_pcie)       every GPU copies its part over its own link into
//                                                   pinned memory; c / strategy.staging_bandwidth
//                                                   when given. PyTorch DCP (torch/distributed/
//                                                   checkpoint/state_dict_saver.py async_save,
//                                                   staging.py): without a stager it stages with
//                                                   DefaultStager(StagingOptions(False, False,
//                                                   False, False)): no pinned memory, synchronous,
//                                                   a fresh pageable copy on every save (slower
//                                                   than pinned: no default rate found, measure
//                                                   it); the collective planning (gather of every
//                                                   rank's plan to the coordinator, scatter back)
//                                                   and the write run in the background thread,
//                                                   so they do not stall training (they are part
//                                                   of the background phase's throughput cost)
//   background     B = max(C / B_s, c / B_ser)      without a local tier: serialize and write to
//                                                   storage (pipelined: the slower one sets B)
//                  B = max(c / L, c / B_ser)        with a local tier
//   period         k = max(strategy.every_iterations, ceil(B / T)): the staging copy is reused,
//                  so a snapshot waits for the previous background phase
//   stall          S = S_stage + phi B (+ phi U k / kp with a local tier): the background
//                  phase's throughput cost, first order: training at (1 - phi) of its speed
//                  for B seconds loses phi B of progress, charged to the carrying iteration
//   completion     S_stage + B (and at least S)
//   local tier     tier memory with m = 1 (the machine's own copy, on its local disk): a
//                  software failure recovers from it, retrieval c / L + c / B_ser; a hardware
//                  failure (the machine replaced) loses it and recovers from storage (so the
//                  peer retrieval is the storage one); uploads to
//                  storage every kp (strategy.persistent_interval, the rule of the in-memory
//                  strategies' persistent track) take U = max(C / B_s, c / L)
//   no local tier  tier storage: every recovery reads from storage (a process restart loses
//                  the staging copy, which lives in the training process's memory)
// What it leaves out: the background phase's pacing within the k iterations (its cost is charged
// at once), and a staging copy larger than the pinned-memory pool (the loader checks that one
// shard fits the CPU memory).
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "strategies.hpp"

#include "ckptsim/core/checked_time.hpp"

namespace ckptsim::strategies {
namespace {

SimTime throughput_share(double phi, SimTime t) { return phi > 0 ? SimTime::from_seconds(phi * t.seconds()) : SimTime::zero(); }

class AsyncTwoPhase final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::async_two_phase; }
  [[nodiscard]] std::string_view description() const override {
    return "async two-phase (PyTorch DCP async_save, CheckFreq): blocking copy to pinned CPU memory, persisted in "
           "the background; optional local NVMe tier";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/every_iterations", "/strategy/local_bandwidth", "/strategy/staging_bandwidth",
            "/strategy/persist_throughput_cost",
            "/strategy/persistent_interval", "/strategy/checkpoint_stall", "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    const Scenario& s = in.s;
    const double phi = s.strategy.persist_throughput_cost;
    c.staging = checked_transfer_time(
        in.shard, s.strategy.staging_bandwidth.value_or(std::max(1, s.cluster.gpus_per_machine) * s.cluster.gpu_cpu_bandwidth),
        s.strategy.staging_bandwidth ? "/strategy/staging_bandwidth" : "/cluster/gpu_cpu_bandwidth",
        "a shard's staging copy into CPU memory");
    SimTime upload = in.storage_transfer;
    if (s.strategy.local_bandwidth) {
      const SimTime local = checked_transfer_time(in.shard, *s.strategy.local_bandwidth, "/strategy/local_bandwidth",
                                                  "a shard's write to the local tier");
      c.tier = CheckpointTier::memory;
      c.replicas = 1;
      c.placement = PlacementScheme::group;
      c.background = std::max(local, in.load);
      c.retrieval_local = checked_add(local, in.load, "/strategy/local_bandwidth", "a shard's retrieval from the local tier");
      // m = 1: no peer holds a copy, so a machine that lost its own reads its shard from storage
      // (the run model never takes the peer tier with one holder; Eq. 1's mean retrieval does
      // weight this field by the hardware share).
      c.retrieval_peer = c.retrieval_storage;
      upload = std::max(in.storage_transfer, local);
    } else {
      c.tier = CheckpointTier::storage;
      c.background = std::max(in.storage_transfer, in.load);
    }
    c.every_iterations = std::max<std::int64_t>(s.strategy.every_iterations, ceil_div(c.background, in.t));
    c.stall = checked_add(c.staging, throughput_share(phi, c.background), "/strategy/persist_throughput_cost",
                          "the checkpoint stall");
    if (c.tier == CheckpointTier::memory) {
      // The uploads from the local tier: the persistent track's period rule with U for the upload.
      const CostInputs uploads{in.s, in.iteration, in.t, in.shard, upload, in.load, in.storage_load};
      persistent_track(uploads, c);
      if (c.persistent_every_iterations > 0) {
        const double per_checkpoint = static_cast<double>(c.every_iterations) / static_cast<double>(c.persistent_every_iterations);
        c.stall = checked_add(c.stall, throughput_share(phi * per_checkpoint, upload), "/strategy/persist_throughput_cost",
                              "the checkpoint stall");
      }
    }
    if (s.strategy.checkpoint_stall) c.stall = *s.strategy.checkpoint_stall;
    c.completion = std::max(c.stall, checked_add(c.staging, c.background, "/storage/bandwidth", "the checkpoint completion time"));
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::young_daly}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    if (c.tier != CheckpointTier::memory) return storage_configuration(c);
    return fmt::format(" (every {} iteration(s) to the local tier, {})", c.every_iterations,
                       c.persistent_every_iterations > 0 ? fmt::format("uploaded every {} iteration(s)", c.persistent_every_iterations)
                                                         : std::string("never uploaded"));
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    out["staging_s"] = c.staging.seconds();
    out["background_s"] = c.background.seconds();
  }
};

}  // namespace

const Strategy& async_two_phase() {
  static const AsyncTwoPhase strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
