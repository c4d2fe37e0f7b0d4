// Coding groups of the erasure-coded strategy (erasure_code.hpp).
#include "ckptsim/checkpoint/erasure_code.hpp"

#include <fmt/format.h>

namespace ckptsim {

void check_erasure_code(const ErasureCode& code, int machines) {
  const int g = code.group_size;
  const int p = code.parity;
  if (p < 1)
    throw PlacementError("/strategy/parity",
                         fmt::format("at least 1 parity symbol per stripe, found {} (p = 0 keeps no redundancy: every "
                                     "replaced machine loses its group's checkpoint; use gemini with replicas 1 for that)",
                                     p));
  if (g <= p)
    throw PlacementError("/strategy/group_size",
                         fmt::format("a group larger than the parity count p = {} (g - p data symbols per stripe), found {}", p, g));
  if (g > machines)
    throw PlacementError("/strategy/group_size",
                         fmt::format("at most /cluster/machines ({}) machines per coding group, found {}", machines, g));
  if (machines % g != 0)
    throw PlacementError("/strategy/group_size",
                         fmt::format("a group size dividing /cluster/machines ({}), found {}", machines, g));
}

Placement erasure_groups(PlacementScheme scheme, int machines, const ErasureCode& code) {
  check_erasure_code(code, machines);
  if (!is_group_placement(scheme))
    throw PlacementError("/strategy/placement",
                         fmt::format("\"group\" or \"group-spread\" for erasure-coded groups, found \"{}\"", name_of(scheme)));
  return make_placement(scheme, machines, code.group_size);
}

}  // namespace ckptsim
