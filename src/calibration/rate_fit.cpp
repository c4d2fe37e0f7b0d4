#include "ckptsim/calibration/rate_fit.hpp"

#include <cmath>

#include <fmt/format.h>

#include "ckptsim/calibration/least_squares.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/statistics.hpp"

namespace ckptsim {

namespace {

std::string si(double v, const std::string& unit) {
  static const char* const prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int k = 0;
  double a = std::abs(v);
  while (a >= 1000 && k < 6) a /= 1000, v /= 1000, ++k;
  return fmt::format("{:.4g} {}{}", v, prefixes[k], unit);
}

std::string micro(double seconds) { return fmt::format("{:.4g} us", seconds * 1e6); }

// One least-squares solve of t = [steps * alpha] + [x * beta] with the free parameters only.
struct Solve {
  double alpha = 0, beta = 0;
  std::optional<double> alpha_se, beta_se;
  std::size_t dof = 0;
};

Solve solve(const std::vector<RateSample>& s, bool free_alpha, bool free_beta, double fixed_alpha, double fixed_beta) {
  std::vector<std::vector<double>> design;
  std::vector<double> y, w;
  for (const RateSample& r : s) {
    std::vector<double> row;
    if (free_alpha) row.push_back(r.steps);
    if (free_beta) row.push_back(r.x);
    design.push_back(std::move(row));
    y.push_back(r.seconds - (free_alpha ? 0.0 : r.steps * fixed_alpha) - (free_beta ? 0.0 : r.x * fixed_beta));
    w.push_back(1.0 / (r.seconds * r.seconds));
  }
  Solve out;
  out.alpha = fixed_alpha;
  out.beta = fixed_beta;
  if (!free_alpha && !free_beta) return out;
  const LeastSquaresFit f = weighted_least_squares(design, y, w);
  out.dof = f.degrees_of_freedom;
  std::size_t j = 0;
  if (free_alpha) {
    out.alpha = f.coefficients[j];
    if (f.standard_errors) out.alpha_se = (*f.standard_errors)[j];
    ++j;
  }
  if (free_beta) {
    out.beta = f.coefficients[j];
    if (f.standard_errors) out.beta_se = (*f.standard_errors)[j];
  }
  return out;
}

// Half-width of the 95% confidence interval, or none without a standard error.
std::optional<double> half_width(const std::optional<double>& se, std::size_t dof) {
  if (!se || dof == 0) return std::nullopt;
  return student_t_975(dof) * *se;
}

}  // namespace

std::string sample_table(const std::vector<RateSample>& samples, const std::vector<double>& relative_residuals,
                         const std::string& x_unit) {
  std::string text = fmt::format("  {:>14} {:>14} {:>6} {:>10}  {}\n", x_unit, "seconds", "steps", "residual", "sample");
  const std::size_t shown = std::min<std::size_t>(samples.size(), 60);
  for (std::size_t i = 0; i < shown; ++i) {
    const RateSample& s = samples[i];
    const std::string r = i < relative_residuals.size() ? fmt::format("{:+.2f}%", 100 * relative_residuals[i]) : "-";
    text += fmt::format("  {:>14.6g} {:>14.6g} {:>6g} {:>10}  {}\n", s.x, s.seconds, s.steps, r, s.origin);
  }
  if (shown < samples.size()) text += fmt::format("  ... and {} more samples\n", samples.size() - shown);
  return text;
}

RateFit fit_rate(const std::vector<RateSample>& samples, const RateFitOptions& o) {
  const bool ab = o.model == RateModel::alpha_beta;
  const std::size_t params = ab ? 2 : 1;
  const std::string x_unit = o.unit == "FLOP/s" ? "FLOPs" : o.unit == "x" ? "model s" : "bytes";
  if (samples.size() < params) {
    throw ModelError(o.name, fmt::format("the fit has {} parameter(s) ({}) and needs at least as many samples; found {}{}", params,
                                         ab ? "latency and rate" : "rate", samples.size(),
                                         samples.empty() ? "" : ":\n" + sample_table(samples, {}, x_unit)));
  }
  for (const RateSample& s : samples) {
    if (!(ab ? s.x >= 0 : s.x > 0) || !(s.seconds > 0) || !(s.steps >= 1) || !std::isfinite(s.x) || !std::isfinite(s.seconds) || !std::isfinite(s.steps)) {
      throw ModelError(o.name, fmt::format("sample {} has size {}, time {} s and {} steps; expected finite values, a positive time{}", s.origin, s.x, s.seconds, s.steps, ab ? " and a size >= 0" : " and size"));
    }
  }
  const auto refuse = [&](const std::string& why, const Solve& at) {
    std::vector<double> residuals;
    for (const RateSample& s : samples) residuals.push_back((s.steps * at.alpha + s.x * at.beta - s.seconds) / s.seconds);
    throw ModelError(o.name, fmt::format("the fit is not physical: {}; refused (its fields are not written). The samples and their "
                                         "residuals against that fit:\n{}",
                                         why, sample_table(samples, residuals, x_unit)));
  };
  // The estimator's own refusals (samples that determine too few parameters) name the fit and
  // list its samples as the physical checks do.
  const auto solved = [&](bool fit_alpha, bool fit_beta, double alpha, double beta) {
    try {
      return solve(samples, fit_alpha, fit_beta, alpha, beta);
    } catch (const ModelError& e) {
      throw ModelError(o.name, fmt::format("cannot be fitted: {}; refused (its fields are not written). The samples:\n{}",
                                           e.message(), sample_table(samples, {}, x_unit)));
    }
  };
  RateFit fit;
  fit.model = o.model;
  fit.samples = samples.size();
  bool free_alpha = ab, free_beta = true;
  double fixed_alpha = 0, fixed_beta = 0;
  Solve s = solved(free_alpha, free_beta, fixed_alpha, fixed_beta);
  // At most one pass per bound: each fixes a parameter, so the loop ends.
  for (int pass = 0; pass < 3; ++pass) {
    if (free_beta && !(s.beta > 0)) {
      refuse(fmt::format("the time does not grow with the size (a fitted rate of {})", s.beta == 0 ? "infinity" : si(1 / s.beta, o.unit)), s);
    }
    if (free_alpha && s.alpha < 0) {
      const auto hw = half_width(s.alpha_se, s.dof);
      const std::string estimate = fmt::format("{}{}", micro(s.alpha), s.alpha_se ? fmt::format(" +- {}", micro(*s.alpha_se)) : "");
      if (!hw || s.alpha + *hw < 0) refuse(fmt::format("a negative latency of {} per step, beyond its 95% confidence interval", estimate), s);
      fit.at_bound.push_back(fmt::format("latency fixed at 0 (unconstrained {}, within its 95% interval)", estimate));
      free_alpha = false;
      s = solved(free_alpha, free_beta, 0, fixed_beta);
      continue;
    }
    if (free_beta && o.max_rate && 1 / s.beta > *o.max_rate) {
      const auto hw = half_width(s.beta_se, s.dof);
      const double rate = 1 / s.beta;
      const std::string estimate = fmt::format("{}{}", si(rate, o.unit), s.beta_se ? fmt::format(" +- {}", si(*s.beta_se / (s.beta * s.beta), o.unit)) : "");
      if (!hw || s.beta + *hw < 1 / *o.max_rate) {
        refuse(fmt::format("a rate of {}, above the {} it was given, beyond its 95% confidence interval", estimate, si(*o.max_rate, o.unit)), s);
      }
      fit.at_bound.push_back(fmt::format("rate fixed at {} (unconstrained {}, within its 95% interval)", si(*o.max_rate, o.unit), estimate));
      free_beta = false;
      fixed_beta = 1 / *o.max_rate;
      s = solved(free_alpha, free_beta, fixed_alpha, fixed_beta);
      continue;
    }
    break;
  }
  // The rate must be determined: an interval of 1/R that reaches 0 allows any rate up to
  // infinity (the samples' sizes span too little of the time's range to separate rate from noise).
  if (free_beta) {
    const auto hw = half_width(s.beta_se, s.dof);
    if (hw && s.beta - *hw <= 0) {
      refuse(fmt::format("the samples do not determine the rate: {} +- {} (the 95% interval of the time per {} reaches 0, so any rate "
                         "above {} fits); measure larger sizes or more repetitions",
                         si(1 / s.beta, o.unit), si(*s.beta_se / (s.beta * s.beta), o.unit), x_unit == "FLOPs" ? "FLOP" : "byte",
                         si(1 / (s.beta + *hw), o.unit)),
             s);
    }
  }
  fit.rate = 1 / s.beta;
  if (free_beta && s.beta_se) fit.rate_se = *s.beta_se / (s.beta * s.beta);
  fit.latency_s = ab ? s.alpha : 0.0;
  if (free_alpha && s.alpha_se) fit.latency_se_s = *s.alpha_se;
  double sq = 0;
  for (const RateSample& r : samples) {
    const double rel = (r.steps * fit.latency_s + r.x / fit.rate - r.seconds) / r.seconds;
    fit.relative_residuals.push_back(rel);
    sq += rel * rel;
  }
  fit.rms_relative_residual = std::sqrt(sq / static_cast<double>(samples.size()));
  return fit;
}

}  // namespace ckptsim
