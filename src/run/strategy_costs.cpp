#include "ckptsim/run/strategy_costs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/workload/kernel_time.hpp"

namespace ckptsim {
namespace {

/// ceil(a / b) for a >= 0, b > 0, in 128 bits (a + b - 1 may pass 2^63 - 1 ns).
std::int64_t ceil_div(SimTime a, SimTime b) {
  return static_cast<std::int64_t>((static_cast<WideNs>(a.ns()) + b.ns() - 1) / b.ns());
}

/// The one rounding rule for a checkpoint interval given as a duration: the whole number of
/// periods nearest to interval / period (halves round up), at least 1. Exact in integer
/// nanoseconds: floor((2 interval + period) / (2 period)).
std::int64_t periods_nearest(SimTime interval, SimTime period) {
  // In 128 bits: 2 interval + period reaches 300 years of nanoseconds, beyond int64.
  const WideNs n = (2 * static_cast<WideNs>(interval.ns()) + period.ns()) / (2 * static_cast<WideNs>(period.ns()));
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(n));
}

/// Time ZeRO-3 keeps each machine's NIC busy per iteration, to first order: parameters are
/// all-gathered twice (forward, backward) and gradients reduce-scattered once, each moving
/// (N-1)/N of the fp16 model (2 bytes/parameter) through every machine's NIC (ring algorithms).
SimTime first_order_communication_time(const Scenario& s) {
  const double n = s.cluster.machines;
  if (n <= 1) return SimTime::zero();
  const double bytes = 3.0 * 2.0 * s.model.parameters * (n - 1) / n;
  return checked_transfer_time(bytes, s.cluster.network_bandwidth, "/cluster/network_bandwidth",
                               "one iteration's first-order communication time");
}

}  // namespace

SimTime first_order_iteration_time(const Scenario& s) {
  // Compute: the kernel model's forward, recomputed forward and backward of every layer and the
  // embedding and output stages (workload/kernel_time.hpp; the compute_efficiency override
  // when given), the same per-use times the iteration model's tasks take.
  const SimTime compute = ComputeTimes(s).iteration();
  // DeepSpeed overlaps communication with compute: the slower of the two bounds the iteration.
  return std::max(compute, first_order_communication_time(s));
}

namespace {

const std::string kEvery = "/strategy/every_iterations";

/// The failure-free run, T x iterations plus a stall per checkpoint, must fit the clock.
void check_run_length(const Scenario& s, const StrategyCosts& c) {
  if (!s.run.iterations) return;
  const std::int64_t j = *s.run.iterations;
  const SimTime training = checked_multiply(c.iteration_time, j, "/run/iterations", "the run's failure-free length");
  const std::int64_t checkpoints = c.tier == CheckpointTier::none ? 0 : (j - 1) / std::max<std::int64_t>(1, c.every_iterations);
  SimTime length = checked_add(training, checked_multiply(c.stall, checkpoints, "/run/iterations", "the run's checkpoint stalls"),
                               "/run/iterations", "the run's failure-free length");
  if (c.tier != CheckpointTier::multi_level) return;
  // Multi-level: levels 2 and 3 add their extra stall at every multiple of their periods.
  const std::pair<std::int64_t, SimTime> extra[] = {{c.partner_every_iterations, c.partner_stall - c.stall},
                                                    {c.persistent_every_iterations, c.persistent_stall - c.partner_stall}};
  for (const auto& [every, stall] : extra)
    if (every > 0)
      length = checked_add(length, checked_multiply(stall, (j - 1) / every, "/run/iterations", "the run's checkpoint stalls"),
                           "/run/iterations", "the run's failure-free length");
}

void in_memory_common(const CostInputs& in, StrategyCosts& c) {
  c.tier = CheckpointTier::memory;
  c.every_iterations = in.s.strategy.every_iterations;
}

void persistent_track(const CostInputs& in, StrategyCosts& c) {
  if (!in.s.strategy.persistent_interval) return;
  const SimTime block = checked_add(checked_multiply(in.t, c.every_iterations, kEvery, "k iterations"), c.stall,
                                    kEvery, "k iterations and their stall");
  // The interval rule of remote-periodic (periods_nearest), but never sooner than the previous
  // upload can have finished.
  const std::int64_t blocks =
      std::max(periods_nearest(*in.s.strategy.persistent_interval, block), ceil_div(in.storage_transfer, block));
  if (__builtin_mul_overflow(blocks, c.every_iterations, &c.persistent_every_iterations))
    throw ModelError("/strategy/persistent_interval", "the persistent-checkpoint period in iterations overflows");
  c.upload = in.storage_transfer;
}

SimTime network_copies(const CostInputs& in, double bytes) {
  return checked_transfer_time(bytes, in.s.cluster.network_bandwidth, "/cluster/network_bandwidth",
                               "sending the checkpoint copies");
}

SimTime replica_bytes_time(const CostInputs& in) { return network_copies(in, (in.s.strategy.replicas - 1) * in.shard); }

/// The stall S of a checkpoint whose traffic (`bytes` per machine) is interleaved into the idle
/// spans of k iterations (GEMINI's scheme; the iteration model planned the same bytes).
SimTime interleaved_stall(const CostInputs& in, std::int64_t k, double bytes) {
  if (in.iteration != nullptr) {
    // The iteration model planned one checkpoint into one iteration's idle spans: stall1 is
    // what did not fit. Over k iterations the spans of k iterations carry it; each extra
    // iteration absorbs what one iteration's spans carried (the whole send time, measured as
    // the blocking time, minus stall1). Hidden entirely from min_every_iterations on.
    const SimTime stall1 =
        std::max(SimTime::zero(), in.iteration->iteration_time_with_checkpoint - in.iteration->iteration_time);
    if (k >= in.iteration->min_every_iterations) return SimTime::zero();
    const SimTime carried = std::max(SimTime::zero(), in.iteration->blocking_checkpoint_time - stall1);
    return carried.ns() > 0 && k - 1 > (stall1.ns() / carried.ns()) ? SimTime::zero()
                                                                   : std::max(SimTime::zero(), stall1 - carried * (k - 1));
  }
  const SimTime idle = in.t - std::min(in.t, first_order_communication_time(in.s));
  const SimTime copies = network_copies(in, bytes);
  return idle.ns() > 0 && k > copies.ns() / idle.ns() ? SimTime::zero() : std::max(SimTime::zero(), copies - idle * k);
}

void gemini_costs(const CostInputs& in, StrategyCosts& c) {
  in_memory_common(in, c);
  const std::int64_t k = c.every_iterations;
  c.stall = interleaved_stall(in, k, (in.s.strategy.replicas - 1) * in.shard);
  if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
  // Sent during the k iterations after the state is captured; complete at the block's end.
  c.completion = checked_add(checked_multiply(in.t, k, kEvery, "k iterations"), c.stall, kEvery,
                             "the checkpoint completion time");
  persistent_track(in, c);
}

/// Erasure-coded groups (checkpoint/erasure_code.hpp): p c per machine through the idle spans,
/// encoded on the CPU as it arrives; a replaced machine rebuilds its shard from g - p symbols.
void erasure_coded_costs(const CostInputs& in, StrategyCosts& c) {
  in_memory_common(in, c);
  const ErasureCode code{in.s.strategy.group_size, in.s.strategy.parity};
  c.group_size = code.group_size;
  c.parity = code.parity;
  c.replicas = 1;
  const std::int64_t k = c.every_iterations;
  c.stall = interleaved_stall(in, k, code.traffic_bytes(in.shard));
  if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
  const std::string bw = "/strategy/encode_bandwidth";
  c.encode = checked_transfer_time(code.encode_bytes(in.shard), in.s.strategy.encode_bandwidth, bw, "a checkpoint's encode");
  const SimTime traffic = checked_multiply(in.t, k, kEvery, "k iterations");
  c.completion = checked_add(std::max(traffic, c.encode), c.stall, kEvery, "the checkpoint completion time");
  const double repair = code.repair_bytes(in.shard);
  const SimTime fetch = checked_transfer_time(repair, in.s.cluster.network_bandwidth, "/cluster/network_bandwidth",
                                              "a replaced machine's repair reads");
  const SimTime decode = checked_transfer_time(repair, in.s.strategy.encode_bandwidth, bw, "a replaced machine's decode");
  c.retrieval_peer = checked_add(checked_add(fetch, decode, bw, "a repair"), in.load, bw, "a repair");
  persistent_track(in, c);
}

void in_memory_blocking_costs(const CostInputs& in, StrategyCosts& c) {
  in_memory_common(in, c);
  c.stall = in.iteration != nullptr ? in.iteration->blocking_checkpoint_time : replica_bytes_time(in);
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
  c.completion = checked_add(c.stall, in.storage_transfer, "/storage/bandwidth", "the checkpoint completion time");
  c.every_iterations = std::max<std::int64_t>(1, ceil_div(in.storage_transfer, in.t));
}

/// The number of `period`-long steps nearest to `interval`, as a multiple of `unit` iterations
/// (at least one unit), checked against overflow.
std::int64_t nested_period(SimTime interval, SimTime unit_time, std::int64_t unit, const std::string& pointer) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(periods_nearest(interval, unit_time), unit, &out))
    throw ModelError(pointer, "the checkpoint period in iterations overflows");
  return out;
}

void multi_level_costs(const CostInputs& in, StrategyCosts& c) {
  c.tier = CheckpointTier::multi_level;
  const auto& st = in.s.strategy;
  // strategy.checkpoint_stall replaces S_1; the levels above add their copies to it.
  c.stall = st.checkpoint_stall.value_or(in.load);
  c.partner_stall = checked_add(c.stall, replica_bytes_time(in), "/cluster/network_bandwidth", "a level-2 checkpoint");
  c.persistent_stall = checked_add(c.partner_stall, in.storage_transfer, "/storage/bandwidth", "a level-3 checkpoint");
  c.completion = c.stall;
  c.every_iterations = periods_nearest(st.local_interval, in.t);
  const SimTime level1_block = checked_multiply(in.t, c.every_iterations, "/strategy/local_interval", "the level-1 period");
  c.partner_every_iterations = nested_period(st.partner_interval, level1_block, c.every_iterations, "/strategy/partner_interval");
  if (st.persistent_interval) {
    const SimTime level2_block =
        checked_multiply(in.t, c.partner_every_iterations, "/strategy/partner_interval", "the level-2 period");
    c.persistent_every_iterations =
        nested_period(*st.persistent_interval, level2_block, c.partner_every_iterations, "/strategy/persistent_interval");
  }
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
    r.add(name(StrategyKind::erasure_coded),
          "erasure-coded CPU memory: groups of g machines keep their shards plus p parity symbols per stripe "
          "(XOR for p = 1, Reed-Solomon beyond), traffic interleaved like GEMINI's; survives any p replaced machines per group",
          &erasure_coded_costs);
    r.add(name(StrategyKind::multi_level), "SCR-style multi-level: own CPU memory / partners' CPU memory / storage, each with its "
                    "own interval; a failure recovers from the cheapest level that survived", &multi_level_costs);
    r.add(name(StrategyKind::none), "no checkpoints: every failure restarts from the initial state", &no_checkpoint_costs);
    return r;
  }();
  return registry;
}

namespace {

StrategyCosts strategy_costs_in_range(const Scenario& s, const IterationCosts* iteration) {
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
  if (c.iteration_time > kMaxDuration)
    throw ModelError("/training/iteration_time",
                     clock_range_message("the iteration model's iteration time", c.iteration_time.seconds()) +
                         "; check the model, cluster and training fields or give the iteration time explicitly");
  const double shard = s.checkpoint_bytes_per_machine();
  const CostInputs in{s,
                      iteration,
                      c.iteration_time,
                      shard,
                      checked_transfer_time(s.checkpoint_bytes(), s.storage.bandwidth, "/storage/bandwidth",
                                            "a checkpoint's upload to storage"),
                      checked_transfer_time(shard, s.training.serialization_bandwidth,
                                            "/training/serialization_bandwidth", "a shard's snapshot or reload")};
  c.retrieval_local = in.load;
  c.retrieval_peer = checked_add(checked_transfer_time(shard, s.cluster.network_bandwidth, "/cluster/network_bandwidth",
                                                       "a shard's retrieval from a peer"),
                                 in.load, "/cluster/network_bandwidth", "a shard's retrieval from a peer");
  c.retrieval_storage = checked_add(in.storage_transfer, in.load, "/storage/bandwidth", "a retrieval from storage");
  c.replicas = s.strategy.replicas;
  c.placement = s.strategy.placement;
  c.adaptive_interval = s.strategy.adaptive_interval;
  c.adaptive_prior_mtbf = s.strategy.adaptive_prior_mtbf;

  strategy_registry().at(name_of(s.strategy.kind)).factory(in, c);
  if (s.strategy.checkpoint_duration) c.completion = std::max(c.stall, *s.strategy.checkpoint_duration);
  check_run_length(s, c);
  check_run_horizon(s, c);  // every term together: what a replica can add up (run_horizon.hpp)
  return c;
}

}  // namespace

StrategyCosts compute_strategy_costs(const Scenario& s, const IterationCosts* iteration) {
  try {
    return strategy_costs_in_range(s, iteration);
  } catch (const ModelError& e) {
    // Name the file as well as the field when the scenario came from one.
    if (s.source_file.empty()) throw;
    const std::string message = std::string(e.what()).substr(e.parameter().size() + 2);
    throw ModelError(s.source_file + ": " + e.parameter(), message);
  }
}

}  // namespace ckptsim
