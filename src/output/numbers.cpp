// Numbers in result files (numbers.hpp).
#include "ckptsim/output/numbers.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ckptsim {
namespace {

void tidy_all(nlohmann::json& v) {
  if (v.is_number_float()) {
    v = tidy_number(v.get<double>());
  } else if (v.is_structured()) {
    for (auto& item : v) tidy_all(item);
  }
}

}  // namespace

double tidy_number(double x) {
  if (!std::isfinite(x) || x == 0) return x;
  const std::string text = fmt::format("{:.15g}", x);
  return std::strtod(text.c_str(), nullptr);
}

std::string number_text(double x) { return fmt::format("{}", tidy_number(x)); }

nlohmann::json tidy_numbers(nlohmann::json doc) {
  if (!doc.is_object()) {
    tidy_all(doc);
    return doc;
  }
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "scenario" && it.key() != "manifest") tidy_all(it.value());
  return doc;
}

}  // namespace ckptsim
