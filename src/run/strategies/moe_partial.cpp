// MoE partial checkpoints: GEMINI's in-memory checkpoints of a mixture-of-experts model that save
// the dense state and K of the E experts of every MoE layer each time, in rotation.
//
// Sources: MoC-System's partial experts checkpointing (Cai et al., arXiv 2408.04307, ASPLOS '25:
// a checkpoint saves the non-expert state and a selected subset of the experts; a recovery
// restores each expert from its last saved copy) and MoEvement's sparse checkpoints (Gandhi and
// Kozyrakis, arXiv 2412.15411, NSDI '26: subsets of experts snapshotted across iterations, and
// logged activations and gradients replayed so a recovery keeps synchronous training's
// semantics). The expert layout is Megatron-LM's (workload/megatron_layout.hpp).
//
// Model (units: bytes, bytes/s, s, iterations; C the checkpoint, c = C / N a machine's shard,
// k = strategy.every_iterations, m = strategy.replicas):
//   state split   phi = L E F / P, the experts' share of the parameters (and so of the
//                 checkpoint bytes: the optimizer state is per parameter), F one expert's
//                 parameters, P the model's (scenario/parameter_count.hpp); phi = 0 without experts
//   bytes         a partial checkpoint of the job C_p = C (1 - phi + phi K / E); the busiest
//                 machine's share r = 1 - phi + phi rho, rho = min(1, ceil(K / M_e) M_e / E) with
//                 M_e the machines an expert-parallel group spans (each holds E / M_e experts of
//                 its stage; the rotation spreads the K over them); r = C_p / C when M_e divides K
//   where         GEMINI's tier (memory, m holders, placement, persistent track): the (m - 1) r c
//                 bytes are interleaved into the idle spans of k iterations; with the iteration
//                 model's plan of the full shard (blocking send time B_blk, stall S_1, spans
//                 carrying B_blk - S_1 per iteration) S = max(0, r B_blk - k (B_blk - S_1)),
//                 S = r S_1 under a blocking plan; S = gemini's when r = 1. The holders keep the
//                 latest copy of every expert, so a retrieval loads the whole shard as gemini's,
//                 and the persistent track uploads that whole assembled copy (U = C / B_s)
//   rotation      R = E / K checkpoints save every expert once; at the newest checkpoint the
//                 group saved i checkpoints earlier is i k iterations stale, i = 0 .. R - 1:
//                 mean staleness s = k (R - 1) / 2, max s_max = k (R - 1) iterations (in steady
//                 state: the initial state counts as every expert's first copy)
//   accept-stale  (MoC-System) the stale experts are restored as saved: no extra time; the lost
//                 expert updates change the model, which ckptsim does not model (a warning says so)
//   replay        (MoEvement-like) each stale expert redoes its lost iterations from a log of its
//                 routed inputs and output gradients: compute s f_x T (each expert's share of the
//                 expert compute f_x T is 1 / E, summed over the experts' staleness), f_x = the
//                 experts' share of the active parameters per token, k_r L F / (P - (E - k_r) L F)
//                 (k_r experts per token; 6 x active parameters FLOPs per token, attention scores
//                 left out); log per iteration and machine l = 2 x w x h x tokens x k_r x L / N
//                 (inputs and gradients of every routed token at every MoE layer, w bytes each), kept
//                 for k R iterations and read from the peers that keep it over s_max iterations:
//                 replay = s f_x T + s_max l / (f B_n), added to every retrieval
// Not modelled: the quality effect of accept-stale; MoEvement's stage-boundary log and its
// re-execution of a failed stage (the replay here is the experts-only one the log above allows);
// the log's transfers during training. Closed form: the memory tier's (analysis/analytic_models).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "strategies.hpp"

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/scenario/parameter_count.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/workload/megatron_layout.hpp"

namespace ckptsim::strategies {
namespace {

/// The state split, bytes and staleness of the header (everything but the replay's time).
MoePartialCosts moe_partial_state(const Scenario& s, std::int64_t every_iterations) {
  MoePartialCosts m;
  m.experts = std::max(1, s.model.experts);
  const std::int64_t e = m.experts;
  m.experts_per_checkpoint = s.strategy.moe_experts_per_checkpoint.value_or(e);
  const std::int64_t k_e = m.experts_per_checkpoint;
  if (k_e < 1 || k_e > e || e % k_e != 0)
    throw ModelError("/strategy/moe_experts_per_checkpoint",
                     fmt::format("a divisor of /model/experts ({}) expected, found {}", e, k_e));
  m.full_checkpoint_bytes = s.checkpoint_bytes();
  m.replay = s.strategy.moe_replay;
  if (e > 1) {
    const auto count = transformer_parameter_count(s.model);
    if (!count)
      throw ModelError("/model/layers", "moe-partial splits the checkpoint into dense and expert state from the model's "
                                        "shape: layers, hidden, ffn, heads and vocabulary expected");
    const double expert_parameters = static_cast<double>(count->layers) * e * count->ffn();
    m.expert_fraction = expert_parameters / count->total();
    const double active = count->total() - static_cast<double>(e - s.model.experts_per_token) * count->layers * count->ffn();
    m.expert_compute_share = s.model.experts_per_token * static_cast<double>(count->layers) * count->ffn() / active;
  }
  const double held_by_machine =
      e > 1 && s.training.parallelism == Parallelism::megatron ? static_cast<double>(MegatronLayout::from(s).expert_group_machines()) : 1.0;
  const double rho = std::min(1.0, std::ceil(static_cast<double>(k_e) / held_by_machine) * held_by_machine / static_cast<double>(e));
  m.machine_fraction = 1.0 - m.expert_fraction + m.expert_fraction * rho;
  m.checkpoint_bytes = m.full_checkpoint_bytes * (1.0 - m.expert_fraction + m.expert_fraction * static_cast<double>(k_e) / static_cast<double>(e));
  const double rotation = static_cast<double>(e / k_e);
  m.staleness_mean = static_cast<double>(every_iterations) * (rotation - 1.0) / 2.0;
  m.staleness_max = static_cast<double>(every_iterations) * (rotation - 1.0);
  return m;
}

/// The tokens of one iteration: Megatron's global batch (micro batch x micro-batches x dp) or
/// ZeRO-3's (micro batch per GPU x GPUs), times the sequence length.
double moe_tokens_per_iteration(const Scenario& s) {
  const double sequences = s.training.parallelism == Parallelism::megatron
                               ? static_cast<double>(s.training.micro_batch) * s.training.megatron.micro_batches * MegatronLayout::from(s).dp()
                               : static_cast<double>(s.training.micro_batch) * s.cluster.gpus_per_machine * s.cluster.machines;
  return sequences * s.training.sequence_length;
}

/// l: the activation log one machine writes per iteration (see the header), the input and the
/// output gradient of every routed token at every MoE layer, in the training's word (2 bytes with
/// mixed precision, else 4).
double activation_log_per_iteration(const Scenario& s) {
  return 2.0 * s.training.word_bytes() * s.model.hidden * moe_tokens_per_iteration(s) * s.model.experts_per_token *
         s.model.layers / static_cast<double>(s.cluster.machines);
}

/// Replay (see the header): s f_x T + s_max l / (f B_n); sets the log's bytes per machine.
SimTime stale_expert_replay(const CostInputs& in, MoePartialCosts& m, std::int64_t k) {
  if (!m.replay || m.experts <= 1) return SimTime::zero();
  const Scenario& s = in.s;
  const double log_per_iteration = activation_log_per_iteration(s);
  m.log_bytes_per_machine = log_per_iteration * static_cast<double>(k) * static_cast<double>(m.experts / m.experts_per_checkpoint);
  const SimTime compute = SimTime::from_seconds(m.staleness_mean * m.expert_compute_share * in.t.seconds());
  const SimTime log_read = checked_transfer_time(m.staleness_max * log_per_iteration, p2p_machine_bandwidth(s.cluster),
                                                 "/cluster/network_bandwidth", "the replay's read of the activation log");
  return checked_add(compute, log_read, "/strategy/moe_replay", "the stale experts' replay");
}

/// GEMINI's interleaved stall for a checkpoint of `share` of the shard (see the header).
SimTime partial_interleaved_stall(const CostInputs& in, std::int64_t k, double bytes, double share) {
  if (share >= 1.0) return interleaved_stall(in, k, bytes);
  if (in.iteration == nullptr) return interleaved_stall(in, k, bytes * share);
  const SimTime stall1 = std::max(SimTime::zero(), in.iteration->iteration_time_with_checkpoint - in.iteration->iteration_time);
  if (in.iteration->checkpoint_blocks_training) return SimTime::from_seconds(share * stall1.seconds());
  const SimTime send = SimTime::from_seconds(share * in.iteration->blocking_checkpoint_time.seconds());
  const SimTime carried = std::max(SimTime::zero(), in.iteration->blocking_checkpoint_time - stall1);
  if (carried.ns() > 0 && k > send.ns() / carried.ns()) return SimTime::zero();
  return std::max(SimTime::zero(), send - carried * k);
}

class MoePartial final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::moe_partial; }
  [[nodiscard]] std::string_view description() const override {
    return "MoE partial checkpoints (MoC-System, MoEvement): GEMINI's in-memory checkpoints saving the dense state and "
           "K of E experts in rotation; stale experts restored as saved or replayed";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/replicas",     "/strategy/placement",     "/strategy/every_iterations",
            "/strategy/scheduler",    "/strategy/gpu_buffer",    "/strategy/sub_buffers",
            "/strategy/span_safety",  "/strategy/persistent_interval", "/strategy/checkpoint_stall",
            "/strategy/checkpoint_duration", "/strategy/moe_experts_per_checkpoint", "/strategy/moe_replay"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    in_memory_common(in, c);
    const std::int64_t k = c.every_iterations;
    c.moe = moe_partial_state(in.s, k);
    c.stall = partial_interleaved_stall(in, k, (in.s.strategy.replicas - 1) * in.shard, c.moe.machine_fraction);
    if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
    c.completion = block_end(in, k, c.stall);
    persistent_track(in, c);
    c.moe.replay_time = stale_expert_replay(in, c.moe, k);
    if (c.moe.replay_time > SimTime::zero()) {
      const char* what = "a retrieval and the stale experts' replay";
      c.retrieval_local = checked_add(c.retrieval_local, c.moe.replay_time, "/strategy/moe_replay", what);
      c.retrieval_peer = checked_add(c.retrieval_peer, c.moe.replay_time, "/strategy/moe_replay", what);
      c.retrieval_storage = checked_add(c.retrieval_storage, c.moe.replay_time, "/strategy/moe_replay", what);
    }
    add_warnings(in.s, c);
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::young_daly, ReportSection::holder_loss}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    const MoePartialCosts& m = c.moe;
    const std::string recovery =
        m.staleness_max <= 0 ? std::string("no stale experts")
        : m.replay           ? fmt::format("stale experts replayed, {} per recovery", format_duration(m.replay_time))
                             : std::string("stale experts restored as saved, their lost updates' effect not modelled");
    const std::string replicas = replicas_configuration(c);  // " (...)": this strategy's part goes inside
    return replicas.substr(0, replicas.size() - 1) +
           fmt::format("; {} of {} experts per checkpoint, {} of {}; expert copies stale {:.4g} iteration(s) on average, "
                       "at most {:.4g}; {})",
                       m.experts_per_checkpoint, m.experts, format_bytes(m.checkpoint_bytes), format_bytes(m.full_checkpoint_bytes),
                       m.staleness_mean, m.staleness_max, recovery);
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    const MoePartialCosts& m = c.moe;
    out["moe"] = {{"experts", m.experts},
                  {"experts_per_checkpoint", m.experts_per_checkpoint},
                  {"expert_fraction", m.expert_fraction},
                  {"busiest_machine_fraction", m.machine_fraction},
                  {"checkpoint_bytes", m.checkpoint_bytes},
                  {"full_checkpoint_bytes", m.full_checkpoint_bytes},
                  {"staleness_mean_iterations", m.staleness_mean},
                  {"staleness_max_iterations", m.staleness_max},
                  {"recovery", m.replay ? "replay" : "accept-stale"},
                  {"expert_compute_share", m.expert_compute_share},
                  {"log_bytes_per_machine", m.log_bytes_per_machine},
                  {"replay_s", m.replay_time.seconds()}};
  }

 private:
  static void add_warnings(const Scenario& s, StrategyCosts& c) {
    const MoePartialCosts& m = c.moe;
    if (m.experts <= 1) {
      c.warnings.push_back("moe-partial: the model has no experts (/model/experts 1): every checkpoint is a full one, as gemini's");
      return;
    }
    if (m.staleness_max <= 0) return;
    if (!m.replay) {
      c.warnings.push_back(fmt::format(
          "moe-partial (accept-stale): a recovery restores each expert as last saved, up to {:.4g} iterations (mean {:.4g}) "
          "older than the restored state; the experts' lost updates and their effect on model quality are not modelled",
          m.staleness_max, m.staleness_mean));
      return;
    }
    c.warnings.push_back(fmt::format("moe-partial (replay): the activation log's writes during training ({} per iteration "
                                     "and machine, kept by the peers) are not modelled: they add no time to an iteration",
                                     format_bytes(activation_log_per_iteration(s))));
    const double held = static_cast<double>(s.strategy.replicas) * s.checkpoint_bytes_per_machine() + m.log_bytes_per_machine;
    if (held > s.cluster.cpu_memory_bytes)
      c.warnings.push_back(fmt::format("moe-partial (replay): the {} replicas and the {} activation log per machine exceed "
                                       "its CPU memory ({}); the log's memory is not checked by the loader",
                                       s.strategy.replicas, format_bytes(m.log_bytes_per_machine),
                                       format_bytes(s.cluster.cpu_memory_bytes)));
  }
};

}  // namespace

const Strategy& moe_partial() {
  static const MoePartial strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
