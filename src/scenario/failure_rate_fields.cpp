// Failure-rate fields and their subjects (failure_rate_fields.hpp).
#include "ckptsim/scenario/failure_rate_fields.hpp"

#include <cstddef>
#include <variant>

namespace ckptsim {

std::optional<int> failure_rate_domain(const Field& field) {
  if (field.unit != Unit::failure_rate) return std::nullopt;
  // The field names a domain's rate when it binds that member (whatever its pointer's spelling).
  Scenario probe;
  const FieldRef ref = field.bind(probe);
  const auto* member = std::get_if<double*>(&ref);
  for (int k = 0; k < kDomainKinds; ++k)
    if (member != nullptr && *member == &probe.failures.domains[static_cast<std::size_t>(k)].rate) return k;
  return std::nullopt;
}

RateScope failure_rate_scope(const Field& field) {
  return failure_rate_domain(field) ? RateScope::domain : RateScope::machine;
}

std::optional<std::int64_t> cluster_rate_divisor(const Field& field, const Scenario& s) {
  const std::int64_t machines = s.cluster.machines;
  if (machines < 1) return std::nullopt;
  const std::optional<int> domain = failure_rate_domain(field);
  if (!domain) return machines;
  const std::int64_t size = s.failures.domains[static_cast<std::size_t>(*domain)].machines;
  if (size < 1) return std::nullopt;
  return (machines + size - 1) / size;
}

}  // namespace ckptsim
