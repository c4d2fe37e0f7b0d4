// The band lines and JSON of output/band_report.hpp.
#include "ckptsim/output/band_report.hpp"

#include <ostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/output/numbers.hpp"

namespace ckptsim {
namespace {

/// What the development set says of this engine and family, or why it says nothing.
std::string band_statement(const BandView& v) {
  if (v.gpu_family.empty())
    return "the GPU is given by its figures (no cluster.gpu type), so no published run of the development set compares "
           "with it and its error is unknown";
  if (!v.band)
    return fmt::format("no published {} run on {} is in the development set (results/validation), so its error is unknown",
                       v.engine, v.gpu_family);
  const PredictionBand& b = *v.band;
  return fmt::format("{} published {} run{} on {} (results/validation) measured {:.2f} to {:.2f} times this model's blind "
                     "prediction (median {:.2f})",
                     b.points, v.engine, b.points == 1 ? "" : "s", v.gpu_family, b.low, b.high, b.median);
}

}  // namespace

void print_band_line(std::ostream& out, const BandView& v) {
  if (v.not_applicable) {
    out << fmt::format("band       does not apply: {}\n", *v.not_applicable);
    return;
  }
  out << fmt::format("band       {}", band_statement(v));
  if (v.has_range()) out << fmt::format(": this iteration {:.3f} s -> {:.3f} to {:.3f} s", v.predicted_s, v.low_s(), v.high_s());
  out << '\n';
}

nlohmann::json band_json(const BandView& v) {
  nlohmann::json j{{"engine", v.engine}, {"gpu_family", v.gpu_family}, {"applies", !v.not_applicable.has_value()},
                   {"predicted_s", v.predicted_s}};
  if (v.not_applicable) j["reason"] = *v.not_applicable;
  if (v.band) {
    j["points"] = v.band->points;
    j["low"] = v.band->low;
    j["median"] = v.band->median;
    j["high"] = v.band->high;
    if (v.has_range()) {
      j["low_s"] = v.low_s();
      j["high_s"] = v.high_s();
    }
  }
  return tidy_numbers(std::move(j));
}

void print_band_effect(std::ostream& out, const BandEffect& e) {
  if (e.view.iteration_time_written) return;
  if (e.view.not_applicable) {
    out << fmt::format("band       does not apply: {}\n", *e.view.not_applicable);
    return;
  }
  out << fmt::format("band       iteration {:.3f} s is a blind prediction; {}", e.view.predicted_s, band_statement(e.view));
  if (!e.view.has_range()) {
    out << '\n';
    return;
  }
  out << fmt::format(": {:.3f} to {:.3f} s\n", e.view.low_s(), e.view.high_s());
  if (!e.closed_form) {
    out << fmt::format("           (no closed form at the band's ends: {})\n", e.closed_form_reason);
    return;
  }
  out << fmt::format("           closed-form ETTR {:.4f} at {:.3f} s, {:.4f} at {:.3f} s, {:.4f} at {:.3f} s\n", e.predicted.ettr,
                     e.predicted.iteration_s, e.low.ettr, e.low.iteration_s, e.high.ettr, e.high.iteration_s);
  const auto within = [](const BandPoint& p) { return p.completes_within_period ? "completes" : "does not complete"; };
  if (e.predicted.completes_within_period == e.low.completes_within_period &&
      e.low.completes_within_period == e.high.completes_within_period)
    out << fmt::format("           the checkpoint {} within its period at all three\n", within(e.predicted));
  else
    out << fmt::format("           the checkpoint {} within its period at {:.3f} s, {} at {:.3f} s, {} at {:.3f} s\n",
                       within(e.predicted), e.predicted.iteration_s, within(e.low), e.low.iteration_s, within(e.high),
                       e.high.iteration_s);
}

nlohmann::json band_effect_json(const BandEffect& e) {
  if (e.view.iteration_time_written) return nullptr;
  nlohmann::json j = band_json(e.view);
  if (e.view.has_range() && e.closed_form) {
    j["closed_form_ettr"] = {{"predicted", e.predicted.ettr}, {"low", e.low.ettr}, {"high", e.high.ettr}};
    j["completes_within_period"] = {{"predicted", e.predicted.completes_within_period},
                                    {"low", e.low.completes_within_period},
                                    {"high", e.high.completes_within_period}};
  }
  return tidy_numbers(std::move(j));
}

}  // namespace ckptsim
