#pragma once
// Cross-field checks of a scenario (private to the scenario layer; used by the loader).
//
// Run after every field was read: each check needs the fields it combines to be valid, so a
// check is skipped when one of its fields already has a problem (no cascades of messages).
#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct CheckContext {
  ProblemList& problems;
  std::set<std::string>& bad;                         ///< pointers that already have a problem
  std::function<std::string(std::string_view)> found; ///< what to show as found for a pointer
};

void cross_check(const Scenario& s, CheckContext& ctx);

/// Refuses scenarios whose first-order derived durations leave the clock (clock_checks.cpp).
void check_clock_range(const Scenario& s, CheckContext& ctx);

}  // namespace ckptsim
