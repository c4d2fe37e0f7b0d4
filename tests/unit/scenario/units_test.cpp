// Unit-string parsers (scenario/units.hpp): hand-computed SI values and rejected inputs.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "ckptsim/scenario/units.hpp"

using namespace ckptsim;

TEST_SUITE_BEGIN("scenario");

TEST_CASE("units: bandwidth strings, bits and bytes explicit") {
  // 400 Gbit/s = 400e9 bits/s / 8 bits per byte = 5e10 B/s.
  CHECK(parse_bandwidth("400Gbps") == 5e10);
  // 20 Gbit/s / 8 = 2.5e9 B/s (GEMINI's remote storage).
  CHECK(parse_bandwidth("20Gbps") == 2.5e9);
  // 25 GB/s = 25e9 B/s (decimal prefix).
  CHECK(parse_bandwidth("25GB/s") == 25e9);
  // 1 GiB/s = 1024^3 = 1073741824 B/s.
  CHECK(parse_bandwidth("1GiB/s") == 1073741824.0);
  // 930 MB/s = 9.3e8 B/s.
  CHECK(parse_bandwidth("930MB/s") == doctest::Approx(9.3e8));
  CHECK_THROWS_AS(parse_bandwidth("20Gbs"), UnitError);
  CHECK_THROWS_AS(parse_bandwidth("-1Gbps"), UnitError);
  CHECK_THROWS_AS(parse_bandwidth("0Gbps"), UnitError);
  CHECK_THROWS_AS(parse_bandwidth("400"), UnitError);  // bits or bytes must be explicit
}

TEST_CASE("units: rates written as scenario input, read back by the parsers") {
  // 12,345,678,901 B/s to 6 significant digits: 1.23457e+10 B/s; 9.89e14 FLOP/s stays exact.
  CHECK(bandwidth_input_text(12345678901.0, 6) == "1.23457e+10B/s");
  CHECK(parse_bandwidth(bandwidth_input_text(12345678901.0, 6)) == doctest::Approx(1.23457e10).epsilon(1e-12));
  CHECK(flop_rate_input_text(989e12, 6) == "9.89e+14FLOPS");
  CHECK(parse_flop_rate(flop_rate_input_text(989e12, 6)) == doctest::Approx(989e12).epsilon(1e-12));
  // 50 GB/s to 3 digits: 5e+10B/s, the same rate as "50GB/s".
  CHECK(parse_bandwidth(bandwidth_input_text(50e9, 3)) == parse_bandwidth("50GB/s"));
}

TEST_CASE("units: sizes, 1000 vs 1024 explicit") {
  // 128 MiB = 128 x 1024 x 1024 = 134217728 B.
  CHECK(parse_bytes("128MiB") == 134217728.0);
  // 1.2 TB = 1.2e12 B.
  CHECK(parse_bytes("1.2TB") == doctest::Approx(1.2e12));
  // 1152 GiB = 1152 x 1073741824 = 1236950581248 B.
  CHECK(parse_bytes("1152GiB") == 1236950581248.0);
  CHECK_THROWS_AS(parse_bytes("512"), UnitError);  // strings need a suffix (bare JSON numbers are bytes)
  CHECK_THROWS_AS(parse_bytes("12 parsecs"), UnitError);
  CHECK_THROWS_AS(parse_bytes("-1GB"), UnitError);
}

TEST_CASE("units: durations") {
  // 3 h = 10800 s = 1.08e13 ns.
  CHECK(parse_duration("3h").ns() == 10'800'000'000'000);
  // 250 ms = 2.5e8 ns.
  CHECK(parse_duration("250ms").ns() == 250'000'000);
  // 30 d = 2,592,000 s.
  CHECK(parse_duration("30d") == seconds(2'592'000));
  // 5 min = 300 s; 10 us = 10,000 ns.
  CHECK(parse_duration("5min") == seconds(300));
  CHECK(parse_duration("10us").ns() == 10'000);
  CHECK_THROWS_AS(parse_duration("-1h"), UnitError);
  CHECK_THROWS_AS(parse_duration("3 fortnights"), UnitError);
  CHECK_THROWS_AS(parse_duration("15"), UnitError);  // strings need a suffix
}

TEST_CASE("units: failure rates per machine per second") {
  // 1.5%/machine/day = 0.015 failures per machine per 86400 s.
  CHECK(parse_failure_rate("1.5%/machine/day") == doctest::Approx(0.015 / 86400.0).epsilon(1e-12));
  // 0.02 per machine per hour = 0.02 / 3600 per s.
  CHECK(parse_failure_rate("0.02/machine/h") == doctest::Approx(0.02 / 3600.0).epsilon(1e-12));
  CHECK_THROWS_AS(parse_failure_rate("1.5%/machine/fortnight"), UnitError);
  CHECK_THROWS_AS(parse_failure_rate("1.5%"), UnitError);
  // A rate per cluster needs the machine count, which a bare text does not carry.
  CHECK_THROWS_AS(parse_failure_rate("2/cluster/day"), UnitError);
}

TEST_CASE("units: a failure rate names its subject, per machine or per cluster (issue 38, item 3)") {
  // "2/cluster/day": 2 failures of the whole cluster per 86400 s; "/job/" says the same.
  const FailureRate cluster = read_failure_rate("2/cluster/day", RateScope::machine);
  CHECK(cluster.subject == RateSubject::cluster);
  CHECK(cluster.per_second == doctest::Approx(2.0 / 86400.0).epsilon(1e-12));
  CHECK(read_failure_rate("2/job/day", RateScope::machine).subject == RateSubject::cluster);
  CHECK(read_failure_rate("1.5%/machine/day", RateScope::machine).subject == RateSubject::machine);
  // A domain's rate: per domain or per cluster.
  const FailureRate rack = read_failure_rate("0.06%/domain/day", RateScope::domain);
  CHECK(rack.subject == RateSubject::domain);
  CHECK(rack.per_second == doctest::Approx(0.0006 / 86400.0).epsilon(1e-12));
  CHECK(read_failure_rate("2/cluster/week", RateScope::domain).per_second ==
        doctest::Approx(2.0 / (7 * 86400.0)).epsilon(1e-12));
  // Zero needs no subject: it is zero for every reader.
  CHECK(read_failure_rate("0/day", RateScope::machine).per_second == 0.0);
  CHECK(read_failure_rate("0%/day", RateScope::domain).per_second == 0.0);
  CHECK(parse_failure_rate("0/day") == 0.0);
}

TEST_CASE("units: a failure rate that names no subject is refused, and the message offers both") {
  // "2/day" on 128 machines reads as 2 per machine (256 a day) to one reader and 2 for the whole
  // cluster to another: refused, with both spellings in the message.
  for (const char* bare : {"2/day", "1.5%/day", "1.5 %/week"}) {
    try {
      (void)read_failure_rate(bare, RateScope::machine);
      FAIL("accepted ", bare);
    } catch (const UnitError& e) {
      const std::string what = e.what();
      CHECK(what.find("per machine or per cluster") != std::string::npos);
      CHECK(what.find("\"1.5%/machine/day\"") != std::string::npos);
      CHECK(what.find("\"2/cluster/day\"") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(parse_failure_rate("1.5%/day"), UnitError);
  CHECK_THROWS_AS(read_failure_rate("0.06%/day", RateScope::domain), UnitError);
  // A subject that does not fit the field: a domain's rate per machine, a machine's per domain.
  CHECK_THROWS_WITH_AS(read_failure_rate("1%/machine/day", RateScope::domain),
                       doctest::Contains("a rate per machine does not say how often it fails"), UnitError);
  CHECK_THROWS_AS(read_failure_rate("1%/domain/day", RateScope::machine), UnitError);
  // Negative (even -0) and misspelt subjects stay refused.
  CHECK_THROWS_AS(read_failure_rate("-0/machine/day", RateScope::machine), UnitError);
  CHECK_THROWS_AS(read_failure_rate("1/machines/day", RateScope::machine), UnitError);
  CHECK_THROWS_AS(read_failure_rate("1/machine/machine/day", RateScope::machine), UnitError);
}

TEST_CASE("units: FLOP rates and fractions") {
  // 312 TFLOPS = 3.12e14 FLOP/s (A100 dense BF16).
  CHECK(parse_flop_rate("312TFLOPS") == doctest::Approx(3.12e14));
  CHECK_THROWS_AS(parse_flop_rate("312TF"), UnitError);
  // "50%" = 0.5; bare 0.25 = 0.25.
  CHECK(parse_fraction("50%") == 0.5);
  CHECK(parse_fraction("0.25") == 0.25);
  CHECK_THROWS_AS(parse_fraction("150%"), UnitError);
  CHECK_THROWS_AS(parse_fraction("-0.1"), UnitError);
}

TEST_CASE("units: a number times its unit must stay finite (fuzz/fuzz_units findings)") {
  // 1e300 is finite, but times 2^50 (PiB), 2^30 (GiB/s), 1e15 (PFLOPS) or 1e9 (GB) it exceeds
  // the largest double (~1.8e308) and would reach the models as infinity.
  CHECK_THROWS_AS(parse_bytes("1e300PiB"), UnitError);
  CHECK_THROWS_AS(parse_bytes("01e300GB "), UnitError);
  CHECK_THROWS_AS(parse_bandwidth("41e300GiB/s"), UnitError);
  CHECK_THROWS_AS(parse_bandwidth("1e300 TiB/s"), UnitError);
  CHECK_THROWS_AS(parse_flop_rate("01e300PFLOPS"), UnitError);
  // Finite products are still refused above the plausibility limit of 1e21 FLOPS per GPU
  // (docs/limits.md): 1e290 x 1e15 = 1e305. A data-sheet value passes: 312 TFLOPS = 3.12e14.
  CHECK_THROWS_AS(parse_flop_rate("1e290PFLOPS"), UnitError);
  CHECK(parse_flop_rate("312TFLOPS") == doctest::Approx(3.12e14));
}

TEST_SUITE_END();

TEST_CASE("units: one range check for a duration, from a unit string or from seconds") {
  // 36,525 d = 100 x 365.25 d = 3,155,760,000 s: the largest duration, inclusive.
  CHECK(parse_duration("36525d") == duration_from_seconds(3'155'760'000.0));
  CHECK(duration_from_seconds(3'155'760'000.0).ns() == 3'155'760'000'000'000'000);
  CHECK_THROWS_AS(parse_duration("36526d"), UnitError);
  CHECK_THROWS_AS(duration_from_seconds(3'155'760'001.0), UnitError);
  CHECK_THROWS_AS(duration_from_seconds(-1e-9), UnitError);
  CHECK_THROWS_AS(duration_from_seconds(std::nan("")), UnitError);
  // The same words for both forms.
  std::string from_string, from_number;
  try {
    (void)parse_duration("104167d");
  } catch (const UnitError& e) {
    from_string = e.what();
  }
  try {
    (void)duration_from_seconds(9e9);
  } catch (const UnitError& e) {
    from_number = e.what();
  }
  CHECK(from_string == from_number);
  CHECK(from_string.find("at most 100 years") != std::string::npos);
}
