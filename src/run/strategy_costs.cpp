#include "ckptsim/run/strategy_costs.hpp"

#include <algorithm>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/workload/kernel_time.hpp"

namespace ckptsim {

SimTime first_order_communication_time(const Scenario& s) {
  const double n = s.cluster.machines;
  if (n <= 1) return SimTime::zero();
  const double bytes = 3.0 * 2.0 * s.model.parameters * (n - 1) / n;
  return checked_transfer_time(bytes, s.cluster.network_bandwidth, "/cluster/network_bandwidth",
                               "one iteration's first-order communication time");
}

SimTime first_order_iteration_time(const Scenario& s) {
  // Compute: the kernel model's forward, recomputed forward and backward of every layer and the
  // embedding and output stages (workload/kernel_time.hpp; the compute_efficiency override
  // when given), the same per-use times the iteration model's tasks take.
  const SimTime compute = ComputeTimes(s).iteration();
  // DeepSpeed overlaps communication with compute: the slower of the two bounds the iteration.
  return std::max(compute, first_order_communication_time(s));
}

}  // namespace ckptsim
