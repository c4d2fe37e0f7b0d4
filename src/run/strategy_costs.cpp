#include "ckptsim/run/strategy_costs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ckptsim/checkpoint/iteration_costs.hpp"

namespace ckptsim {
namespace {

std::int64_t ceil_div(SimTime a, SimTime b) { return (a.ns() + b.ns() - 1) / b.ns(); }

/// Time ZeRO-3 keeps each machine's NIC busy per iteration, to first order: parameters are
/// all-gathered twice (forward, backward) and gradients reduce-scattered once, each moving
/// (N-1)/N of the fp16 model (2 bytes/parameter) through every machine's NIC (ring algorithms).
SimTime first_order_communication_time(const Scenario& s) {
  const double n = s.cluster.machines;
  if (n <= 1) return SimTime::zero();
  const double bytes = 3.0 * 2.0 * s.model.parameters * (n - 1) / n;
  return transfer_time(bytes, s.cluster.network_bandwidth);
}

}  // namespace

SimTime first_order_iteration_time(const Scenario& s) {
  // Compute: 6 FLOPs per parameter per token (forward 2, backward 4), 8 with activation
  // recomputation (one more forward); tokens per GPU = micro_batch x sequence_length.
  const double flops_per_token = (s.training.activation_recomputation ? 8.0 : 6.0) * s.model.parameters;
  const double tokens = static_cast<double>(s.training.micro_batch) * s.training.sequence_length;
  const double per_gpu_rate = s.cluster.gpu_peak_flops * s.training.compute_efficiency;
  const SimTime compute = SimTime::from_seconds(flops_per_token * tokens / per_gpu_rate);
  // DeepSpeed overlaps communication with compute: the slower of the two bounds the iteration.
  return std::max(compute, first_order_communication_time(s));
}

StrategyCosts compute_strategy_costs(const Scenario& s, const IterationCosts* iteration) {
  StrategyCosts c;
  c.strategy = s.strategy.kind;
  if (s.training.iteration_time) {
    c.iteration_time = *s.training.iteration_time;
  } else if (iteration != nullptr) {
    c.iteration_time = iteration->iteration_time;
  } else {
    c.iteration_time = first_order_iteration_time(s);
  }
  const SimTime t = c.iteration_time;
  if (t <= SimTime::zero()) throw std::invalid_argument("iteration time must be positive");

  const double total = s.checkpoint_bytes();
  const double shard = s.checkpoint_bytes_per_machine();
  const int m = s.strategy.replicas;
  const double ser = s.training.serialization_bandwidth;
  const SimTime load = transfer_time(shard, ser);
  const SimTime storage_transfer = transfer_time(total, s.storage.bandwidth);
  c.retrieval_local = load;
  c.retrieval_peer = transfer_time(shard, s.cluster.network_bandwidth) + load;
  c.retrieval_storage = storage_transfer + load;
  c.replicas = m;
  c.placement = s.strategy.placement;

  const std::string& kind = s.strategy.kind;
  if (kind == "gemini" || kind == "in-memory-blocking") {
    c.tier = CheckpointTier::memory;
    c.every_iterations = s.strategy.every_iterations;
    const SimTime network_copies = transfer_time((m - 1) * shard, s.cluster.network_bandwidth);
    if (kind == "gemini") {
      if (iteration != nullptr) {
        c.stall = std::max(SimTime::zero(), iteration->iteration_time_with_checkpoint - iteration->iteration_time);
      } else {
        const SimTime idle = t - std::min(t, first_order_communication_time(s));
        c.stall = std::max(SimTime::zero(), network_copies - idle);
      }
      c.completion = t + c.stall;
    } else {
      c.stall = iteration != nullptr ? iteration->blocking_checkpoint_time : network_copies;
      c.completion = c.stall;
    }
    if (s.strategy.persistent_interval) {
      const SimTime block = t * c.every_iterations + c.stall;
      const std::int64_t blocks =
          std::max<std::int64_t>({1, ceil_div(*s.strategy.persistent_interval, block), ceil_div(storage_transfer, block)});
      c.persistent_every_iterations = blocks * c.every_iterations;
      c.upload = storage_transfer;
    }
  } else if (kind == "remote-periodic") {
    c.tier = CheckpointTier::storage;
    c.every_iterations = std::max<std::int64_t>(1, std::llround(s.strategy.interval.seconds() / t.seconds()));
    c.stall = std::max(storage_transfer, load);
    c.completion = c.stall;
  } else if (kind == "remote-highfreq") {
    c.tier = CheckpointTier::storage;
    c.stall = load;
    c.completion = load + storage_transfer;
    c.every_iterations = std::max<std::int64_t>(1, ceil_div(storage_transfer, t));
  } else if (kind == "none") {
    c.tier = CheckpointTier::none;
  } else {
    throw std::invalid_argument("unknown strategy reached the run model: " + kind);
  }
  if (s.strategy.checkpoint_stall) {
    c.stall = *s.strategy.checkpoint_stall;
    if (kind == "gemini") c.completion = t + c.stall;
    else if (kind != "remote-highfreq") c.completion = c.stall;
    else c.completion = c.stall + storage_transfer;
  }
  if (s.strategy.checkpoint_duration) c.completion = std::max(c.stall, *s.strategy.checkpoint_duration);
  return c;
}

}  // namespace ckptsim
