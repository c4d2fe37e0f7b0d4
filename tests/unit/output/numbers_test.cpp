// Numbers in result files (output/numbers.hpp): 15 significant digits, the fewest that give the value.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "ckptsim/output/numbers.hpp"

using namespace ckptsim;

TEST_SUITE_BEGIN("output");

TEST_CASE("numbers: binary-arithmetic noise is dropped, exact values are kept") {
  // 0.1 + 0.2 is 0.30000000000000004 in shortest round-trip form: its 17th digit is noise.
  CHECK(number_text(0.1 + 0.2) == "0.3");
  // 3 days in nanoseconds times 1e-9 (the clock's seconds()): 259200.00000000003.
  CHECK(number_text(259200000000000.0 * 1e-9) == "259200");
  // A mean accumulated replica by replica: 125.92499999999998 where the decimal mean is 125.925.
  CHECK(number_text(125.92499999999998) == "125.925");
  // Values that need their 15 digits keep them: 1/3 and a 15-digit integer.
  CHECK(number_text(1.0 / 3.0) == "0.333333333333333");
  CHECK(number_text(123456789012345.0) == "123456789012345");
  // Small and large magnitudes in exponent form, as fmt writes them.
  CHECK(number_text(3e-5) == "3e-05");
  CHECK(number_text(0.0) == "0");
  CHECK(number_text(std::numeric_limits<double>::infinity()) == "inf");
}

TEST_CASE("numbers: tidy_number is idempotent and moves a value by at most half a unit of the 15th digit") {
  for (double x : {0.1 + 0.2, 2.0 / 3.0, 1e300 / 7.0, 6.02214076e23 / 3.0, -5.0 / 9.0}) {
    CAPTURE(x);
    const double t = tidy_number(x);
    CHECK(tidy_number(t) == t);
    // |t - x| <= 0.5 x 10^(e - 14) where 10^e <= |x| < 10^(e+1), plus the rounding of t itself.
    const double unit = std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 14);
    CHECK(std::fabs(t - x) <= 0.5 * unit * (1 + 1e-9));
  }
}

TEST_CASE("numbers: tidy_numbers walks results but leaves the scenario and manifest as written") {
  nlohmann::json doc = {{"summary", {{"ettr", {{"mean", 0.1 + 0.2}}}, {"list", {0.1 + 0.2, 1}}}},
                        {"scenario", {{"x", 0.1 + 0.2}}},
                        {"manifest", {{"y", 0.1 + 0.2}}}};
  const nlohmann::json t = tidy_numbers(doc);
  CHECK(t["summary"]["ettr"]["mean"].get<double>() == 0.3);
  CHECK(t["summary"]["list"][0].get<double>() == 0.3);
  CHECK(t["summary"]["list"][1].is_number_integer());  // integers stay integers
  CHECK(t["scenario"]["x"].get<double>() == 0.1 + 0.2);  // inputs written back: untouched
  CHECK(t["manifest"]["y"].get<double>() == 0.1 + 0.2);
  CHECK(t["summary"].dump() == R"({"ettr":{"mean":0.3},"list":[0.3,1]})");
}

TEST_SUITE_END();
