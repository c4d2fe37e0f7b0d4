#pragma once
// The shape of a point's result per command (evaluate.hpp, docs/sweep-format.md, "Point
// results"), so that a spec's metric pointers are checked when the spec is read: a pointer that
// can resolve in no result of its command is a problem of the spec (an empty column otherwise).
//
// The shape is the union of what the result writers give (the same functions a point calls:
// costs_json, summary_json, analyze_report_json, placement_point_json, iteration_costs_json)
// over every variant (multi-level, erasure-coded and adaptive costs; exact and Monte Carlo
// placements; any cause name under the per-cause metrics). Under "/scenario" a pointer must name
// a field of the parameter table (scenario/parameters.hpp) or lie inside a cause table.
#include <string>

#include "ckptsim/sweep/spec.hpp"

namespace ckptsim::sweep {

/// True when `pointer` (a valid RFC 6901 pointer) can resolve in a result of `command`.
bool metric_pointer_possible(PointCommand command, const std::string& pointer);

}  // namespace ckptsim::sweep
