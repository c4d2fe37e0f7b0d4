// libFuzzer harness: every unit-string parser of the scenario format (scenario/units.hpp) on
// the same text, and the table formatters on whatever a parser accepts. A parser may only
// throw UnitError, and a value it accepts must be finite and inside the range its header
// documents (non-negative sizes and rates, positive bandwidths and FLOP rates, fractions in
// [0, 1]); a violation traps so libFuzzer records the input.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ckptsim/scenario/units.hpp"

namespace {

template <typename Parse, typename Use>
void try_parse(std::string_view text, Parse parse, Use use) {
  try {
    use(parse(text));
  } catch (const ckptsim::UnitError&) {
  }
}

void require(bool invariant) {
  if (!invariant) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace ckptsim;
  try_parse(text, parse_duration, [](SimTime t) {
    require(t >= SimTime::zero());
    (void)format_duration(t);
  });
  try_parse(text, parse_bytes, [](double b) {
    require(std::isfinite(b) && b >= 0);
    (void)format_bytes(b);
  });
  try_parse(text, parse_bandwidth, [](double b) {
    require(std::isfinite(b) && b > 0);
    (void)format_bandwidth(b);
  });
  try_parse(text, parse_failure_rate, [](double r) { require(std::isfinite(r) && r >= 0); });
  // A rate that names no subject is a zero; a scope's rate names one of its own subjects.
  for (const RateScope scope : {RateScope::machine, RateScope::domain})
    try_parse(text, [scope](std::string_view t) { return read_failure_rate(t, scope); }, [scope](const FailureRate& r) {
      require(std::isfinite(r.per_second) && r.per_second >= 0);
      require(r.subject != RateSubject::none || r.per_second == 0);
      require(r.subject != (scope == RateScope::machine ? RateSubject::domain : RateSubject::machine));
    });
  try_parse(text, parse_flop_rate, [](double f) { require(std::isfinite(f) && f > 0); });
  try_parse(text, parse_fraction, [](double f) { require(f >= 0 && f <= 1); });
  return 0;
}
