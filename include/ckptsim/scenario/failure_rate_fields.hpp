#pragma once
// The failure-rate fields of the scenario table (parameters.hpp, Unit::failure_rate) and the
// subjects their rate strings may name (units.hpp, read_failure_rate):
//   failures.rate, failures.stragglers.rate, failures.silent_corruption.rate: processes that
//     strike one machine at a time, per machine ("1.5%/machine/day") or per cluster
//     ("2/cluster/day": shared among the N machines, λ = R / N each);
//   failures.domains.{rack,leaf,power}.rate: each strikes a whole domain of s machines, per
//     domain ("0.06%/domain/day") or per cluster (shared among the ⌈N / s⌉ domains of the kind,
//     r = R / ⌈N / s⌉ each; the last domain may hold fewer machines, as in the failure layer).
// The Scenario holds every rate per machine, or per domain, per second; the loader converts a
// rate per cluster with the scenario's own counts (cluster_rate_divisor).
#include <cstdint>
#include <optional>

#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {

/// The failure domain kind (0 rack, 1 leaf, 2 power: FailureSpec::domains) whose rate `field`
/// holds; nullopt for every other field.
std::optional<int> failure_rate_domain(const Field& field);

/// RateScope::domain for a failure domain's rate, RateScope::machine for the other failure rates.
RateScope failure_rate_scope(const Field& field);

/// Among how many subjects a rate per cluster at `field` is shared in `s`: the machine count for a
/// machine process, ⌈machines / domain size⌉ for a domain's rate; nullopt when that count is not
/// at least 1 (no machines, or a domain size of 0: that domain kind is not modelled).
std::optional<std::int64_t> cluster_rate_divisor(const Field& field, const Scenario& s);

}  // namespace ckptsim
