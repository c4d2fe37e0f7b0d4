// The scenario layer names what the models above it register (it may not depend on them);
// these checks keep the two lists equal, in order.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/checkpoint/scheduler.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/workload/engine.hpp"

using namespace ckptsim;

namespace {
template <typename Factory>
std::vector<std::string> names_of(const Registry<Factory>& registry) {
  std::vector<std::string> out;
  for (const auto& e : registry.entries()) out.push_back(e.name);
  return out;
}
}  // namespace

TEST_CASE("scenario name lists equal the registries") {
  CHECK(strategy_kind_names() == names_of(strategy_registry()));
  CHECK(placement_names() == names_of(placement_registry()));
  CHECK(failure_process_names() == names_of(failure_process_registry()));
  // The scheduler names begin with the built-ins, in the registry's order; after them come the
  // names a program registered (other cases of this executable register some).
  const std::vector<std::string> schedulers = scheduler_names();
  const std::vector<std::string> builtins = names_of(scheduler_registry());
  REQUIRE(schedulers.size() >= builtins.size());
  CHECK(std::vector<std::string>(schedulers.begin(), schedulers.begin() + static_cast<long>(builtins.size())) == builtins);
  for (std::size_t i = builtins.size(); i < schedulers.size(); ++i) CHECK(!find_scheduler(schedulers[i])->builtin());
  CHECK(engine_names() == names_of(engine_registry()));
}

TEST_CASE("every named placement stores exactly m shards per machine (the loader's CPU-memory check relies on it)") {
  for (const auto& [scheme, bound_name] : EnumNames<PlacementScheme>::table) {
    const auto name = bound_name;  // a copy: clang 14 cannot capture a binding in CAPTURE
    for (int machines : {6, 7, 12}) {
      for (int replicas : {1, 2, 3}) {
        for (int jump : {1, 2}) {
          // Cliques need m J | N, group placements m | N; only cliques read the jump.
          const bool clique = scheme == PlacementScheme::clique;
          if (!clique && jump > 1) continue;
          const int block = clique ? replicas * jump : replicas;
          if ((is_group_placement(scheme) || clique) && machines % block != 0) continue;
          CAPTURE(name);
          CAPTURE(machines);
          CAPTURE(replicas);
          CAPTURE(jump);
          const Placement p = make_placement(scheme, machines, replicas, 5, jump);
          for (const auto& stored : p.stored_on()) CHECK(static_cast<int>(stored.size()) == replicas);
        }
      }
    }
  }
}
