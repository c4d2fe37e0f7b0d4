// A measured collective curve and its time rule (bus_curve.hpp).
#include "ckptsim/scenario/bus_curve.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ckptsim {

double BusCurve::bus_bandwidth(double bytes) const {
  if (points.empty()) throw std::logic_error("BusCurve: a curve without points");
  if (bytes <= points.front().bytes) return points.front().bus_bandwidth;
  if (bytes >= points.back().bytes) return points.back().bus_bandwidth;
  const auto above = std::upper_bound(points.begin(), points.end(), bytes,
                                      [](double s, const BusPoint& p) { return s < p.bytes; });
  const BusPoint& hi = *above;
  const BusPoint& lo = *(above - 1);
  const double x = (std::log2(bytes) - std::log2(lo.bytes)) / (std::log2(hi.bytes) - std::log2(lo.bytes));
  return lo.bus_bandwidth + x * (hi.bus_bandwidth - lo.bus_bandwidth);
}

double BusCurve::seconds(double bytes, double bus_factor) const {
  if (!(bytes > 0) || !(bus_factor > 0)) return 0;
  const BusPoint& first = points.front();
  if (bytes >= first.bytes) return bus_factor * bytes / bus_bandwidth(bytes);
  double best = 0;
  for (const BusPoint& p : points) best = std::max(best, p.bus_bandwidth);
  const double at_first = bus_factor * first.bytes / first.bus_bandwidth;
  const double latency = std::max(0.0, at_first - bus_factor * first.bytes / best);
  return latency + bus_factor * bytes / best;
}

}  // namespace ckptsim
