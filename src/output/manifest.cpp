#include "ckptsim/output/manifest.hpp"

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/scenario_json.hpp"

namespace ckptsim {

nlohmann::json make_manifest(const Scenario& scenario, const std::string& command_line) {
  return nlohmann::json{{"ckptsim_version", ckptsim_version()},
                        {"git_revision", ckptsim_git_revision()},
                        {"seed", scenario.run.seed},
                        {"scenario_hash", scenario_hash(scenario)},
                        {"command_line", command_line}};
}

}  // namespace ckptsim
