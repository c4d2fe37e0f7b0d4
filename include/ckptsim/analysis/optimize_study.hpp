#pragma once
// One `ckptsim optimize` study, as the command line and the Python module (ckptsim.optimize) run
// it: the axes checked (below) and their combinations held to the limit of
// docs/limits.md (kMaxCombinations, lifted by force), the unedited scenario loaded (its own
// problems are input errors, not "does not fit"), then optimize() (analysis/optimizer.hpp) with
// the iteration model's GPU-fit rule (checkpoint/iteration_costs.hpp) as the GPU memory check
// and that combination's iteration results reused for its strategy costs.
// The axes (`--vary POINTER=V1,V2,...` on the command line, ckptsim.optimize(vary=...) in Python)
// are parsed and checked here too, so both front ends accept and refuse the same axes with the
// same words. Their errors are ModelError with parameter "vary"; the command line shows
// message() as a usage error.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/analysis/optimizer.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Parses "POINTER=V1,V2,...". A value that parses as a JSON number, boolean or null (or a
/// quoted string) is written as such; anything else ("64MiB", "3h") as a string. Spaces around
/// the pointer and each value are dropped. Throws ModelError("vary", ...) on a malformed spec:
/// no '=', a pointer that does not start with '/' or is not a valid JSON pointer, an empty value.
VaryAxis parse_vary_axis(const std::string& spec);

/// An axis from a pointer and the values to write there (as JSON values, e.g. from a Python
/// dict). Throws ModelError("vary", ...) on a pointer that does not start with '/' or is not a
/// valid JSON pointer, or on no values.
VaryAxis make_vary_axis(const std::string& pointer, std::vector<nlohmann::json> values);

/// Throws ModelError("vary", ...) when there is no axis, when two axes name the same pointer
/// (the later would silently replace the earlier) or a later one encloses an earlier one
/// ("/strategy" after "/strategy/replicas").
void check_vary_axes(const std::vector<VaryAxis>& axes);

struct OptimizeStudy {
  Scenario base;                ///< the unedited scenario
  OptimizeResult result;
  std::string gpu_note;         ///< "" unless training.iteration_time leaves GPU memory unchecked
};

/// Throws LimitError when the axes' combinations exceed kMaxCombinations, unless `force`.
void enforce_combination_limit(const std::vector<VaryAxis>& axes, bool force);

/// `doc` is the scenario document, `label` names it in problems and `base_dir` resolves its
/// relative paths (load_scenario_json). options.gpu_check and options.costs are set here;
/// options.force also lifts the combination and per-combination work limits.
OptimizeStudy optimize_scenario(const nlohmann::json& doc, const std::string& label, const std::string& base_dir,
                                const std::vector<VaryAxis>& axes, OptimizeOptions options);

}  // namespace ckptsim
