#include "ckptsim/output/calibration_report.hpp"
#include "ckptsim/output/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace ckptsim {

namespace {

std::string si_value(double v, const std::string& unit) {
  static const char* const prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int k = 0;
  while (std::abs(v) >= 1000 && k < 6) v /= 1000, ++k;
  return fmt::format("{:.4g} {}{}", v, prefixes[k], unit);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string rate_cell(const GroupFit& g) {
  std::string s = si_value(g.fit.rate, g.rate_unit);
  if (g.fit.rate_se) s += " +- " + si_value(*g.fit.rate_se, g.rate_unit);
  return s;
}

std::string latency_cell(const GroupFit& g) {
  if (g.fit.model == RateModel::proportional) return "-";
  std::string s = fmt::format("{:.2f} us", 1e6 * g.fit.latency_s);
  if (g.fit.latency_se_s) s += fmt::format(" +- {:.2f}", 1e6 * *g.fit.latency_se_s);
  return s;
}

std::string residual_table(const GroupFit& g) {
  struct Row {
    std::vector<double> t, rel;
    double steps = 1;
  };
  std::map<double, Row> rows;
  for (std::size_t i = 0; i < g.samples.size(); ++i) {
    Row& r = rows[g.samples[i].x];
    r.t.push_back(g.samples[i].seconds);
    r.rel.push_back(g.fit.relative_residuals[i]);
    r.steps = g.samples[i].steps;
  }
  std::string text = fmt::format("    {:>14} {:>7} {:>14} {:>14} {:>10}\n", g.rate_unit == "FLOP/s" ? "FLOPs" : g.rate_unit == "x" ? "model s" : "bytes", "samples",
                                 "measured (s)", "fitted (s)", "residual");
  for (const auto& [x, r] : rows) {
    const double fitted = r.steps * g.fit.latency_s + x / g.fit.rate;
    text += fmt::format("    {:>14.6g} {:>7} {:>14.6g} {:>14.6g} {:>9.1f}%\n", x, r.t.size(), median(r.t), fitted, 100 * median(r.rel));
  }
  return text;
}

}  // namespace

std::string calibration_table(const Calibration& c) {
  std::string text;
  if (!c.read.empty()) {
    text += "read:\n";
    for (const std::string& r : c.read) text += "  " + r + "\n";
    text += "\n";
  }
  text += fmt::format("{:<44} {:>7} {:>26} {:>22} {:>9}  {}\n", "fit", "samples", "rate +- se", "latency/step +- se",
                                 "rms resid", "writes");
  for (const GroupFit& g : c.fits) {
    std::string writes;
    for (const std::string& w : g.writes) writes += (writes.empty() ? "" : ", ") + w;
    text += fmt::format("{:<44} {:>7} {:>26} {:>22} {:>8.1f}%  {}\n", g.name, g.fit.samples, rate_cell(g), latency_cell(g),
                        100 * g.fit.rms_relative_residual, writes.empty() ? "-" : writes);
    for (const std::string& b : g.fit.at_bound) text += fmt::format("    {}\n", b);
    if (g.max_size_bytes > 0) text += fmt::format("    fitted on sizes {} (valid there)\n", size_range_text(g.min_size_bytes, g.max_size_bytes));
  }
  for (const GroupFit& g : c.fits) {
    if (g.writes.empty()) continue;
    text += fmt::format("\nresiduals of {} (fitted - measured) / measured:\n{}", g.name, residual_table(g));
  }
  if (!c.notes.empty()) {
    text += "\nnot written:\n";
    for (const std::string& n : c.notes) text += "  " + n + "\n";
  }
  return text;
}

nlohmann::json calibration_json(const Calibration& c) {
  auto fits = nlohmann::json::array();
  for (const GroupFit& g : c.fits) {
    nlohmann::json j = {{"name", g.name}, {"kind", g.kind}, {"ranks", g.ranks}, {"machines", g.machines}, {"samples", g.fit.samples},
                        {"model", g.fit.model == RateModel::alpha_beta ? "alpha-beta" : "proportional"}, {"rate_unit", g.rate_unit},
                        {"rate", g.fit.rate}, {"rms_relative_residual", g.fit.rms_relative_residual}, {"writes", g.writes},
                        {"at_bound", g.fit.at_bound}};
    j["rate_se"] = g.fit.rate_se ? nlohmann::json(*g.fit.rate_se) : nlohmann::json();
    if (g.max_size_bytes > 0) j["sizes"] = {{"min_bytes", g.min_size_bytes}, {"max_bytes", g.max_size_bytes}};
    if (g.fit.model == RateModel::alpha_beta) {
      j["latency_per_step_s"] = g.fit.latency_s;
      j["latency_per_step_se_s"] = g.fit.latency_se_s ? nlohmann::json(*g.fit.latency_se_s) : nlohmann::json();
    }
    auto residuals = nlohmann::json::array();
    for (std::size_t i = 0; i < g.samples.size(); ++i) {
      residuals.push_back({{"x", g.samples[i].x}, {"seconds", g.samples[i].seconds}, {"steps", g.samples[i].steps},
                           {"relative_residual", g.fit.relative_residuals[i]}, {"origin", g.samples[i].origin}});
    }
    j["residuals"] = std::move(residuals);
    fits.push_back(std::move(j));
  }
  nlohmann::json out = {{"fits", std::move(fits)}, {"fields", c.fields}, {"notes", c.notes}};
  if (!c.read.empty()) out["read"] = c.read;
  if (!c.warnings.empty()) out["warnings"] = c.warnings;
  return tidy_numbers(std::move(out));
}

}  // namespace ckptsim
