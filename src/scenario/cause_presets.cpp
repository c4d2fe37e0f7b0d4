// Published failure cause tables (cause_presets.hpp).
#include "ckptsim/scenario/cause_presets.hpp"

#include <algorithm>

namespace ckptsim {
namespace {

FailureCauseSpec cause(const char* name, double count, bool hardware) {
  return FailureCauseSpec{name, count, hardware, std::nullopt, std::nullopt};
}

CausePreset llama3_405b() {
  // https://arxiv.org/abs/2407.21783 (Table 5: root-cause categorization of unexpected
  // interruptions during a 54-day period of Llama 3 405B pre-training).
  // Outcome by Table 5's category column: GPU, Host and Unplanned Maintenance causes are hardware
  // (the report's "approximately 78%" hardware: 321 / 419 = 76.6%); Network (switch/cable) keeps
  // the machines' CPU memory like the leaf-switch domain, Dependency and Unknown are software
  // (docs/failure-data.md).
  constexpr bool hw = true;
  constexpr bool sw = false;
  CausePreset p;
  p.name = "llama3-405b";
  p.source =
      "Llama 3 405B pre-training, 419 unexpected interruptions in 54 days on 2,048 machines (16,384 H100), "
      "Dubey et al., arXiv 2407.21783, Table 5, https://arxiv.org/abs/2407.21783";
  p.causes = {cause("faulty-gpu", 148, hw),          cause("gpu-hbm3-memory", 72, hw),
              cause("software-bug", 54, sw),         cause("network-switch-cable", 35, sw),
              cause("host-maintenance", 32, hw),     cause("gpu-sram-memory", 19, hw),
              cause("gpu-system-processor", 17, hw), cause("nic", 7, hw),
              cause("nccl-watchdog-timeout", 7, sw), cause("silent-data-corruption", 6, hw),
              cause("gpu-thermal-interface", 6, hw), cause("ssd", 3, hw),
              cause("power-supply", 3, hw),          cause("server-chassis", 2, hw),
              cause("io-expansion-board", 2, hw),    cause("dependency", 2, sw),
              cause("cpu", 2, hw),                   cause("system-memory", 2, hw)};
  // 419 interruptions / (2,048 machines x 54 days).
  p.rate_per_machine = 419.0 / (2048.0 * 54.0 * 86400.0);
  return p;
}

}  // namespace

const std::vector<CausePreset>& cause_presets() {
  static const std::vector<CausePreset> presets{llama3_405b()};
  return presets;
}

std::vector<std::string> cause_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : cause_presets()) names.push_back(p.name);
  return names;
}

const CausePreset* find_cause_preset(const std::string& name) {
  const auto& all = cause_presets();
  auto it = std::find_if(all.begin(), all.end(), [&](const CausePreset& p) { return p.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace ckptsim
