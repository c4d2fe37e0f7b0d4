// Sweep point expansion (points.hpp).
#include "ckptsim/sweep/points.hpp"

#include <cmath>
#include <optional>
#include <string>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/random.hpp"

namespace ckptsim::sweep {
namespace {

nlohmann::json draw(const Axis& axis, RandomEngine& engine) {
  if (!axis.distribution) {
    boost::random::uniform_int_distribution<std::size_t> pick(0, axis.values.size() - 1);
    return axis.values[pick(engine)];
  }
  const Distribution& d = *axis.distribution;
  double x = 0;
  if (d.kind == Distribution::Kind::uniform) {
    x = d.low == d.high ? d.low : boost::random::uniform_real_distribution<double>(d.low, d.high)(engine);
  } else {
    const double lo = std::log(d.low);
    const double hi = std::log(d.high);
    x = std::exp(lo == hi ? lo : boost::random::uniform_real_distribution<double>(lo, hi)(engine));
  }
  if (d.integer) {
    const auto n = static_cast<std::int64_t>(std::llround(x));
    return d.unit.empty() ? nlohmann::json(n) : nlohmann::json(fmt::format("{}{}", n, d.unit));
  }
  const std::string text = fmt::format("{:.12g}", x);
  return d.unit.empty() ? nlohmann::json(std::stod(text)) : nlohmann::json(text + d.unit);
}

}  // namespace

std::vector<nlohmann::json> point_values(const SweepSpec& spec, std::int64_t index) {
  std::vector<nlohmann::json> values(spec.axes.size());
  switch (spec.mode) {
    case SweepMode::grid: {
      auto rest = static_cast<std::uint64_t>(index);
      for (std::size_t a = spec.axes.size(); a-- > 0;) {
        const auto n = spec.axes[a].values.size();
        values[a] = spec.axes[a].values[rest % n];
        rest /= n;
      }
      break;
    }
    case SweepMode::zip:
      for (std::size_t a = 0; a < spec.axes.size(); ++a) values[a] = spec.axes[a].values[static_cast<std::size_t>(index)];
      break;
    case SweepMode::random:
      for (std::size_t a = 0; a < spec.axes.size(); ++a) {
        RandomEngine engine(stream_seed(spec.seed, static_cast<std::uint64_t>(index), kSweepComponent, a + 1));
        values[a] = draw(spec.axes[a], engine);
      }
      break;
  }
  return values;
}

std::uint64_t point_seed(std::uint64_t sweep_seed, std::int64_t index) {
  return stream_seed(sweep_seed, static_cast<std::uint64_t>(index), kSweepComponent) >> 11;
}

namespace {

/// Writes `value` at `pointer` in `doc`: objects (and null) gain missing keys, arrays accept an
/// index up to their size ("-" or the size appends); anything else is an error message.
std::optional<std::string> write_at(nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value) {
  nlohmann::json* node = &doc;
  const nlohmann::json::json_pointer p(pointer);
  std::vector<std::string> tokens;
  for (auto q = p; !q.empty(); q.pop_back()) tokens.insert(tokens.begin(), q.back());
  for (const std::string& token : tokens) {
    if (node->is_null() || node->is_object()) {
      node = &(*node)[token];
    } else if (node->is_array()) {
      const bool digits = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos &&
                          (token.size() == 1 || token[0] != '0') && token.size() < 10;
      const std::size_t i = token == "-" ? node->size() : digits ? std::stoul(token) : node->size() + 1;
      if (i > node->size()) return fmt::format("an array index from 0 to {} (or \"-\"), found \"{}\"", node->size(), token);
      if (i == node->size()) node->push_back(nullptr);
      node = &(*node)[i];
    } else {
      return fmt::format("an object or array to write \"{}\" into, found {}", token, node->dump());
    }
  }
  *node = value;
  return std::nullopt;
}

}  // namespace

nlohmann::json point_scenario(const SweepSpec& spec, const std::vector<nlohmann::json>& values) {
  nlohmann::json doc = spec.base;
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    if (const auto problem = write_at(doc, spec.axes[a].pointer, values[a]))
      throw InputError(spec.base_label, spec.axes[a].pointer, "a place the axis value can be written", *problem);
  return doc;
}

bool axes_set_seed(const SweepSpec& spec) {
  for (const auto& a : spec.axes)
    if (a.pointer == "/run/seed" || a.pointer == "/seed") return true;
  return false;
}

}  // namespace ckptsim::sweep
