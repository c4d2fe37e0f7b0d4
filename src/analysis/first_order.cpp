// The shared start and wall time of the first-order closed forms (first_order.hpp).
#include "ckptsim/analysis/first_order.hpp"

#include <utility>

#include <fmt/format.h>

namespace ckptsim {

AnalyticPrediction first_order_start(const FailureMix& mix, std::string model_note) {
  AnalyticPrediction p;
  if (!mix.available) {
    p.reason = mix.reason;
    return p;
  }
  p.available = true;
  p.notes = mix.notes;
  p.omitted_terms = mix.omitted;
  p.notes.push_back(std::move(model_note));
  return p;
}

bool first_order_wall_time(AnalyticPrediction& p, const Scenario& s, double iteration_s, double ettr,
                           std::string_view model) {
  if (s.run.duration) {
    p.wall_time_s = s.run.duration->seconds();
    return true;
  }
  if (ettr <= 0) {
    p.wall_time_s = 0;
    p.available = false;
    p.reason = fmt::format("the {} closed form gives no progress: the run.iterations target is never reached", model);
    return false;
  }
  p.wall_time_s = static_cast<double>(s.run.iterations.value_or(0)) * iteration_s / ettr;
  return true;
}

}  // namespace ckptsim
