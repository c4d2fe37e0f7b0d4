#include "ckptsim/run/strategy_costs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/core/error.hpp"

namespace ckptsim {
namespace {

std::int64_t ceil_div(SimTime a, SimTime b) { return (a.ns() + b.ns() - 1) / b.ns(); }

/// The one rounding rule for a checkpoint interval given as a duration: the whole number of
/// periods nearest to interval / period (halves round up), at least 1. Exact in integer
/// nanoseconds: floor((2 interval + period) / (2 period)).
std::int64_t periods_nearest(SimTime interval, SimTime period) {
  return std::max<std::int64_t>(1, (2 * interval.ns() + period.ns()) / (2 * period.ns()));
}

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

namespace {

void in_memory_common(const CostInputs& in, StrategyCosts& c) {
  c.tier = CheckpointTier::memory;
  c.every_iterations = in.s.strategy.every_iterations;
}

void persistent_track(const CostInputs& in, StrategyCosts& c) {
  if (!in.s.strategy.persistent_interval) return;
  const SimTime block = in.t * c.every_iterations + c.stall;
  // The interval rule of remote-periodic (periods_nearest), but never sooner than the previous
  // upload can have finished.
  const std::int64_t blocks =
      std::max(periods_nearest(*in.s.strategy.persistent_interval, block), ceil_div(in.storage_transfer, block));
  c.persistent_every_iterations = blocks * c.every_iterations;
  c.upload = in.storage_transfer;
}

SimTime network_copies(const CostInputs& in) {
  return transfer_time((in.s.strategy.replicas - 1) * in.shard, in.s.cluster.network_bandwidth);
}

void gemini_costs(const CostInputs& in, StrategyCosts& c) {
  in_memory_common(in, c);
  const std::int64_t k = c.every_iterations;
  if (in.iteration != nullptr) {
    // The iteration model planned one checkpoint into one iteration's idle spans: stall1 is
    // what did not fit. Over k iterations the spans of k iterations carry it; each extra
    // iteration absorbs what one iteration's spans carried (the whole send time, measured as
    // the blocking time, minus stall1). Hidden entirely from min_every_iterations on.
    const SimTime stall1 =
        std::max(SimTime::zero(), in.iteration->iteration_time_with_checkpoint - in.iteration->iteration_time);
    if (k >= in.iteration->min_every_iterations) {
      c.stall = SimTime::zero();
    } else {
      const SimTime carried = std::max(SimTime::zero(), in.iteration->blocking_checkpoint_time - stall1);
      c.stall = std::max(SimTime::zero(), stall1 - carried * (k - 1));
    }
  } else {
    const SimTime idle = in.t - std::min(in.t, first_order_communication_time(in.s));
    c.stall = std::max(SimTime::zero(), network_copies(in) - idle * k);
  }
  if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
  // Sent during the k iterations after the state is captured; complete at the block's end.
  c.completion = in.t * k + c.stall;
  persistent_track(in, c);
}

void in_memory_blocking_costs(const CostInputs& in, StrategyCosts& c) {
  in_memory_common(in, c);
  c.stall = in.iteration != nullptr ? in.iteration->blocking_checkpoint_time : network_copies(in);
  if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
  c.completion = c.stall;
  persistent_track(in, c);
}

void remote_periodic_costs(const CostInputs& in, StrategyCosts& c) {
  c.tier = CheckpointTier::storage;
  c.every_iterations = periods_nearest(in.s.strategy.interval, in.t);
  c.stall = std::max(in.storage_transfer, in.load);
  if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
  c.completion = c.stall;
}

void remote_highfreq_costs(const CostInputs& in, StrategyCosts& c) {
  c.tier = CheckpointTier::storage;
  c.stall = in.load;
  if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
  c.completion = c.stall + in.storage_transfer;
  c.every_iterations = std::max<std::int64_t>(1, ceil_div(in.storage_transfer, in.t));
}

void no_checkpoint_costs(const CostInputs&, StrategyCosts& c) { c.tier = CheckpointTier::none; }

}  // namespace

const Registry<StrategyCostFunction>& strategy_registry() {
  static const Registry<StrategyCostFunction> registry = [] {
    const auto name = [](StrategyKind kind) { return std::string(name_of(kind)); };
    Registry<StrategyCostFunction> r("strategy");
    r.add(name(StrategyKind::gemini), "GEMINI: every k iterations into CPU memory of m holders, traffic interleaved into idle spans; "
                    "persistent storage as the last resort", &gemini_costs);
    r.add(name(StrategyKind::remote_periodic), "Strawman: blocking write to persistent storage every interval (default 3 h)",
          &remote_periodic_costs);
    r.add(name(StrategyKind::remote_highfreq), "HighFreq: blocking snapshot to CPU memory, background upload; next one when it lands",
          &remote_highfreq_costs);
    r.add(name(StrategyKind::in_memory_blocking), "GEMINI's placement, but copies sent while training waits", &in_memory_blocking_costs);
    r.add(name(StrategyKind::none), "no checkpoints: every failure restarts from the initial state", &no_checkpoint_costs);
    return r;
  }();
  return registry;
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
  if (c.iteration_time <= SimTime::zero())
    throw ModelError("/training/iteration_time", "the strategy costs need a positive iteration time");
  const double shard = s.checkpoint_bytes_per_machine();
  const CostInputs in{s, iteration, c.iteration_time, shard, transfer_time(s.checkpoint_bytes(), s.storage.bandwidth),
                      transfer_time(shard, s.training.serialization_bandwidth)};
  c.retrieval_local = in.load;
  c.retrieval_peer = transfer_time(shard, s.cluster.network_bandwidth) + in.load;
  c.retrieval_storage = in.storage_transfer + in.load;
  c.replicas = s.strategy.replicas;
  c.placement = s.strategy.placement;

  strategy_registry().at(name_of(s.strategy.kind)).factory(in, c);
  if (s.strategy.checkpoint_duration) c.completion = std::max(c.stall, *s.strategy.checkpoint_duration);
  return c;
}

}  // namespace ckptsim
