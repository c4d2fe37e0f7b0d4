#pragma once
// How result files write numbers: at most 15 significant digits, the fewest that give the value.
//
// Means, ratios and nanosecond-to-second conversions carry the rounding of binary arithmetic in
// their last bits (a mean of 200 replicas printed as 125.92499999999998, 80873372904 ns as
// 80.87337290400001 s). A double holds 15 significant decimal digits exactly (DBL_DIG), so a
// value rounded to 15 digits keeps everything the arithmetic determined and drops only that
// noise: tidy_number(x) is the double nearest to x written with 15 significant digits, and its
// shortest round-trip form (what fmt's "{}" and nlohmann/json print) has no noise digits. CSV
// cells and JSON results both go through it, so a value reads the same in either file; inputs
// written back (the effective scenario of a manifest) are left as they are, so they load back
// to the same scenario and hash.
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ckptsim {

/// x rounded to 15 significant decimal digits (infinities and NaN unchanged).
double tidy_number(double x);

/// The shortest text that reads back as tidy_number(x): "125.925", "0.09", "3e-05", "inf".
std::string number_text(double x);

/// Every floating-point number in `doc` through tidy_number, except under the top-level members
/// "scenario" and "manifest" (inputs written back). Returns the document.
nlohmann::json tidy_numbers(nlohmann::json doc);

}  // namespace ckptsim
