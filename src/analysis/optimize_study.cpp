// One optimize study: its axes (`--vary` parsing and checks) and its run with the iteration
// model's GPU check (analysis/optimize_study.hpp).
#include "ckptsim/analysis/optimize_study.hpp"

#include <optional>
#include <utility>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/run/resolve_costs.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/loader.hpp"

namespace ckptsim {
namespace {

constexpr const char* kVaryParameter = "vary";

std::string trim_vary_text(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

nlohmann::json parse_vary_value(const std::string& text) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_discarded() && (parsed.is_number() || parsed.is_boolean() || parsed.is_null() || parsed.is_string()))
    return parsed;
  return nlohmann::json(text);
}

void check_vary_pointer(const std::string& pointer) {
  if (pointer.empty() || pointer.front() != '/')
    throw ModelError(kVaryParameter, "--vary expects a JSON pointer starting with '/', found \"" + pointer + "\"");
  try {
    (void)nlohmann::json::json_pointer(pointer);
  } catch (const nlohmann::json::exception&) {
    throw ModelError(kVaryParameter, "--vary: \"" + pointer + "\" is not a valid JSON pointer");
  }
}

}  // namespace

VaryAxis parse_vary_axis(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos) throw ModelError(kVaryParameter, "--vary expects POINTER=V1,V2,..., found \"" + spec + "\"");
  VaryAxis axis;
  axis.pointer = trim_vary_text(spec.substr(0, eq));
  check_vary_pointer(axis.pointer);
  const std::string rest = spec.substr(eq + 1);
  std::size_t start = 0;
  for (;;) {
    const auto comma = rest.find(',', start);
    const std::string item = trim_vary_text(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw ModelError(kVaryParameter, "--vary " + axis.pointer + ": empty value in \"" + rest + "\"");
    axis.values.push_back(parse_vary_value(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return axis;
}

VaryAxis make_vary_axis(const std::string& pointer, std::vector<nlohmann::json> values) {
  check_vary_pointer(pointer);
  if (values.empty()) throw ModelError(kVaryParameter, "--vary " + pointer + ": expected at least one value, found none");
  return VaryAxis{pointer, std::move(values)};
}

void check_vary_axes(const std::vector<VaryAxis>& axes) {
  if (axes.empty()) throw ModelError(kVaryParameter, "give at least one --vary POINTER=V1,V2,...");
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      if (axes[i].pointer == axes[j].pointer)
        throw ModelError(kVaryParameter, "--vary " + axes[i].pointer + " is given twice: give all its values in one --vary " +
                                             axes[i].pointer + "=V1,V2,...");
      // Values are written in order: a later pointer enclosing an earlier one would replace it.
      if (json_pointer_within(axes[j].pointer, axes[i].pointer))
        throw ModelError(kVaryParameter, "--vary " + axes[i].pointer + " encloses the earlier --vary " + axes[j].pointer +
                                             " and would replace its values: give the enclosing --vary first");
    }
}

void enforce_combination_limit(const std::vector<VaryAxis>& axes, bool force) {
  double combinations = 1;
  for (const auto& axis : axes) combinations *= static_cast<double>(axis.values.size());
  enforce_work_limits({{"--vary", "the combinations to evaluate", combinations, kMaxCombinations, WorkUnit::combinations}},
                      force);
}

OptimizeStudy optimize_scenario(const nlohmann::json& doc, const std::string& label, const std::string& base_dir,
                                const std::vector<VaryAxis>& axes, OptimizeOptions options) {
  check_vary_axes(axes);
  enforce_combination_limit(axes, options.force);
  OptimizeStudy study{load_scenario_json(doc, label, base_dir), {}, {}};

  // GPU memory: the iteration model's GPU-fit rule. Its results are kept for the strategy costs
  // of the same combination (the optimizer calls gpu_check, then costs, for each one in turn).
  std::optional<IterationCosts> iteration;
  options.gpu_check = [&iteration, force = options.force](const Scenario& s) -> std::optional<std::string> {
    if (!s.training.iteration_time) enforce_work_limits(estimate_iteration_work(s), force);
    iteration = iteration_costs_for(s);
    if (!iteration) return std::nullopt;  // measured iteration time: the iteration model is not used
    // A job known to run is ranked (run and analyze price it with the verdict as a warning).
    if (s.training.known_to_run) return std::nullopt;
    return gpu_fit_problem(s, *iteration);
  };
  options.costs = [&iteration](const Scenario& s) { return compute_strategy_costs(s, iteration ? &*iteration : nullptr); };
  // Typed errors (an unwritable pointer is an InputError, a model that cannot answer a
  // ModelError) reach the caller as they are.
  study.result = optimize(doc, label, base_dir, axes, options);
  if (study.base.training.iteration_time)
    study.gpu_note = "GPU memory not checked: training.iteration_time is given, the iteration model is not used";
  return study;
}

}  // namespace ckptsim
