// Work-limit messages (core/work_limits.hpp).
#include <doctest/doctest.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/work_limits.hpp"

using namespace ckptsim;

TEST_CASE("work limits: bytes read in GiB below 1,000 GiB and in TiB from there, never with an exponent") {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  CHECK(format_work_amount(4 * kGiB, WorkUnit::bytes) == "4 GiB");
  CHECK(format_work_amount(992 * kGiB, WorkUnit::bytes) == "992 GiB");
  // 1,040 GiB = 1.015625 TiB: three significant digits.
  CHECK(format_work_amount(1040 * kGiB, WorkUnit::bytes) == "1.02 TiB");
  CHECK(format_work_amount(2.5e6, WorkUnit::failure_events) == "2.5e+06 failure events");
}

TEST_CASE("work limits: the first estimate above its limit is refused with its input, values and way out") {
  const std::vector<WorkEstimate> estimates{{"--replicas", "memory for the replica results", 2.0, 4.0, WorkUnit::bytes},
                                            {"--replicas", "memory for the replica results", 8.0, 4.0, WorkUnit::bytes,
                                             "s.json", "3"}};
  CHECK_THROWS_WITH_AS(enforce_work_limits(estimates, false),
                       doctest::Contains("s.json: --replicas = 3: memory for the replica results needs about"), LimitError);
  CHECK_NOTHROW(enforce_work_limits(estimates, true));
}
