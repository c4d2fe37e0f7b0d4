// The profile reader's refusal of an iteration time of zero reads as English (issue 38: it said
// "expected a positive a duration (...)").
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/workload/profile.hpp"

using namespace ckptsim;

TEST_CASE("profile: an iteration time of zero is refused with a readable expectation") {
  const nlohmann::json doc = {{"format", "ckptsim-profile/1"}, {"iterations", {{{"iteration_time", 0}, {"spans", nlohmann::json::array()}}}}};
  try {
    (void)parse_profile(doc, "p.json", 1);
    FAIL("an iteration time of 0 was accepted");
  } catch (const InputError& e) {
    bool found = false;
    for (const Problem& p : e.problems()) {
      if (p.pointer != "/iterations/0/iteration_time") continue;
      found = true;
      CHECK(p.file == "p.json");
      CHECK(p.expected == "a duration greater than zero (seconds as a number, or a string such as \"12ms\")");
      CHECK(p.found == "0");
    }
    CHECK(found);
  }
}
