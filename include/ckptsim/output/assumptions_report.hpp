#pragma once
// The assumptions a result rests on, as `run` and `optimize` print them under their header:
// the key parameters (scenario/assumptions.hpp, key_assumption_pointers()) with their values and
// where each came from, "default" marking the ones the scenario file never wrote; with
// every_default, every parameter the file did not write.
#include <iosfwd>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

void print_assumptions(std::ostream& out, const Scenario& scenario, bool every_default);

}  // namespace ckptsim
