#include "ckptsim/output/validation_report.hpp"
#include "ckptsim/output/numbers.hpp"

#include <fmt/format.h>

namespace ckptsim {

namespace {

nlohmann::json stats_json(const ErrorStats& s) {
  return {{"samples", s.samples}, {"median", s.median}, {"median_abs", s.median_abs}, {"p90_abs", s.p90_abs}};
}

std::string row(const std::string& name, const ErrorStats& s) {
  return fmt::format("{:<26} {:>8} {:>11.1f}% {:>11.1f}% {:>9.1f}%\n", name, s.samples, 100 * s.median, 100 * s.median_abs, 100 * s.p90_abs);
}

}  // namespace

std::string validation_table(const Validation& v) {
  std::string t = fmt::format("{:<26} {:>8} {:>12} {:>12} {:>10}\n", "quantity", "samples", "median err", "median |err|", "p90 |err|");
  for (const auto& [kind, s] : v.by_kind) t += row(kind, s);
  for (const auto& [phase, s] : v.by_phase) t += row("phase " + phase, s);
  t += row("iteration time", v.iteration);
  t += row("idle time", v.idle);
  t += row("checkpoint completion", v.checkpoint_completion);
  if (v.not_compared > 0) t += fmt::format("({} operation samples predicted to take 0 s were not compared)\n", v.not_compared);
  t += fmt::format("{} (tolerance {:.1f}% on every median |err| of an operation kind and of the iteration rows)\n", v.pass ? "PASS" : "FAIL",
                   100 * v.tolerance);
  return t;
}

nlohmann::json validation_json(const Validation& v) {
  nlohmann::json doc;
  doc["tolerance"] = v.tolerance;
  doc["operations"] = nlohmann::json::object();
  for (const auto& [kind, s] : v.by_kind) doc["operations"][kind] = stats_json(s);
  doc["phases"] = nlohmann::json::object();
  for (const auto& [phase, s] : v.by_phase) doc["phases"][phase] = stats_json(s);
  doc["not_compared"] = v.not_compared;
  doc["iteration_time"] = stats_json(v.iteration);
  doc["idle_time"] = stats_json(v.idle);
  doc["checkpoint_completion"] = stats_json(v.checkpoint_completion);
  auto its = nlohmann::json::array();
  for (const IterationComparison& c : v.iterations) {
    its.push_back({{"iteration", c.iteration}, {"measured_s", c.measured_s}, {"predicted_s", c.predicted_s}, {"error", c.error}});
  }
  doc["iterations"] = std::move(its);
  doc["pass"] = v.pass;
  return tidy_numbers(std::move(doc));
}

}  // namespace ckptsim
