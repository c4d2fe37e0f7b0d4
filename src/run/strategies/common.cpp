#include "common.hpp"

#include <algorithm>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"

namespace ckptsim::strategies {

std::int64_t ceil_div(SimTime a, SimTime b) {
  return static_cast<std::int64_t>((static_cast<WideNs>(a.ns()) + b.ns() - 1) / b.ns());
}

std::int64_t periods_nearest(SimTime interval, SimTime period) {
  // In 128 bits: 2 interval + period reaches 300 years of nanoseconds, beyond int64.
  const WideNs n = (2 * static_cast<WideNs>(interval.ns()) + period.ns()) / (2 * static_cast<WideNs>(period.ns()));
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(n));
}

std::int64_t nested_period(SimTime interval, SimTime unit_time, std::int64_t unit, const std::string& pointer) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(periods_nearest(interval, unit_time), unit, &out))
    throw ModelError(pointer, "the checkpoint period in iterations overflows");
  return out;
}

void adaptive_interval_costs(const CostInputs& in, StrategyCosts& c) {
  c.adaptive_interval = in.s.strategy.adaptive_interval;
  c.adaptive_prior_mtbf = in.s.strategy.adaptive_prior_mtbf;
}

void in_memory_common(const CostInputs& in, StrategyCosts& c) {
  c.tier = CheckpointTier::memory;
  c.every_iterations = in.s.strategy.every_iterations;
}

void persistent_track(const CostInputs& in, StrategyCosts& c) {
  if (!in.s.strategy.persistent_interval) return;
  const SimTime block = checked_add(checked_multiply(in.t, c.every_iterations, kEveryPointer, "k iterations"), c.stall,
                                    kEveryPointer, "k iterations and their stall");
  // The interval rule of remote-periodic (periods_nearest), but never sooner than the previous
  // upload can have finished.
  const std::int64_t blocks =
      std::max(periods_nearest(*in.s.strategy.persistent_interval, block), ceil_div(in.storage_transfer, block));
  if (__builtin_mul_overflow(blocks, c.every_iterations, &c.persistent_every_iterations))
    throw ModelError("/strategy/persistent_interval", "the persistent-checkpoint period in iterations overflows");
  c.upload = in.storage_transfer;
}

SimTime network_copies(const CostInputs& in, double bytes) {
  // A machine's sends out of GPU memory at G·b_send (network/achieved_bandwidth.hpp).
  return checked_transfer_time(bytes, p2p_machine_send_bandwidth(in.s.cluster), "/cluster/network_bandwidth",
                               "sending the checkpoint copies");
}

SimTime replica_bytes_time(const CostInputs& in) { return network_copies(in, (in.s.strategy.replicas - 1) * in.shard); }

SimTime interleaved_stall(const CostInputs& in, std::int64_t k, double bytes) {
  if (in.iteration != nullptr) {
    // The iteration model planned one checkpoint into one iteration's idle spans: stall1 is
    // what did not fit. Over k iterations the spans of k iterations carry it; each extra
    // iteration absorbs what one iteration's spans carried (the whole send time, measured as
    // the blocking time, minus stall1). Hidden entirely from min_every_iterations on.
    const SimTime stall1 =
        std::max(SimTime::zero(), in.iteration->iteration_time_with_checkpoint - in.iteration->iteration_time);
    // A blocking plan makes training wait for every copy whatever k is: no idle span carries any.
    if (in.iteration->checkpoint_blocks_training) return stall1;
    if (k >= in.iteration->min_every_iterations) return SimTime::zero();
    const SimTime carried = std::max(SimTime::zero(), in.iteration->blocking_checkpoint_time - stall1);
    return carried.ns() > 0 && k - 1 > (stall1.ns() / carried.ns()) ? SimTime::zero()
                                                                   : std::max(SimTime::zero(), stall1 - carried * (k - 1));
  }
  const SimTime idle = in.t - std::min(in.t, first_order_communication_time(in.s));
  const SimTime copies = network_copies(in, bytes);
  return idle.ns() > 0 && k > copies.ns() / idle.ns() ? SimTime::zero() : std::max(SimTime::zero(), copies - idle * k);
}

SimTime block_end(const CostInputs& in, std::int64_t k, SimTime stall) {
  return checked_add(checked_multiply(in.t, k, kEveryPointer, "k iterations"), stall, kEveryPointer,
                     "the checkpoint completion time");
}

}  // namespace ckptsim::strategies
