// A measured collective curve field, read and written (bus_curve_json.hpp).
#include "ckptsim/scenario/bus_curve_json.hpp"

#include <cmath>

#include "ckptsim/scenario/units.hpp"
#include "field_format.hpp"

namespace ckptsim {

std::string read_bus_curve(const nlohmann::json& value, BusCurve& out) {
  constexpr const char* kPoint = "an object {\"size\": a size such as \"128MiB\", \"bus_bandwidth\": a bandwidth such as \"311GB/s\"}";
  if (!value.is_array() || value.empty() || value.size() > kMaxCurvePoints)
    return "an array of 1 to " + std::to_string(kMaxCurvePoints) + " points, each " + kPoint +
           ", in ascending size (nccl-tests' size and busbw columns)";
  BusCurve curve;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = "/" + std::to_string(i);
    const nlohmann::json& p = value[i];
    if (!p.is_object() || p.size() != 2 || !p.contains("size") || !p.contains("bus_bandwidth"))
      return at + ": " + kPoint + " (exactly these two keys)";
    BusPoint point;
    try {
      const nlohmann::json& size = p.at("size");
      if (size.is_number()) point.bytes = size.get<double>();
      else if (size.is_string()) point.bytes = parse_bytes(size.get<std::string>());
      else return at + "/size: a size such as \"128MiB\" or a number of bytes";
    } catch (const UnitError& e) {
      return at + "/size: " + e.what();
    }
    if (!(point.bytes > 0) || !std::isfinite(point.bytes)) return at + "/size: a positive size";
    const nlohmann::json& bw = p.at("bus_bandwidth");
    if (!bw.is_string()) return at + "/bus_bandwidth: a bandwidth such as \"311GB/s\"";
    try {
      point.bus_bandwidth = parse_bandwidth(bw.get<std::string>());
    } catch (const UnitError& e) {
      return at + "/bus_bandwidth: " + e.what();
    }
    if (!(point.bus_bandwidth > 0) || !std::isfinite(point.bus_bandwidth)) return at + "/bus_bandwidth: a positive bandwidth";
    if (!curve.points.empty() && !(point.bytes > curve.points.back().bytes))
      return at + "/size: a size larger than the point before's (sizes ascend)";
    curve.points.push_back(point);
  }
  curve.source = "scenario file";
  out = std::move(curve);
  return "";
}

nlohmann::json format_bus_curve(const BusCurve& curve) {
  nlohmann::json out = nlohmann::json::array();
  for (const BusPoint& p : curve.points)
    out.push_back({{"size", format_bytes_exact(p.bytes)}, {"bus_bandwidth", format_bandwidth_exact(p.bus_bandwidth)}});
  return out;
}

}  // namespace ckptsim
