#pragma once
// The base scenario of the sweep unit tests: the paper's testbed (16 x p4d, GPT-2 100B) shortened
// to one day and 4 replicas, quick enough to evaluate points in a unit test.
#include <string>

#include <nlohmann/json.hpp>

#include "ckptsim/sweep/json_file.hpp"

namespace ckptsim::test {

inline nlohmann::json small_paper_base() {
  nlohmann::json base =
      sweep::read_json_file(std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper/gpt2-100b-16xp4d.json", "scenario");
  base["run"]["duration"] = "1d";
  base["run"]["replicas"] = 4;
  return base;
}

}  // namespace ckptsim::test
