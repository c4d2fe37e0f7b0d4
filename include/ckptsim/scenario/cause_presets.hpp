#pragma once
// Published failure cause tables, selectable by name as /failures/causes (and used by
// `ckptsim trace synth`). Each entry restates its source; docs/failure-data.md has the details.
//
//   llama3-405b  Llama 3 405B pre-training, 54 days on 16,384 H100 GPUs (2,048 machines):
//                419 unexpected interruptions by root cause (Dubey et al., "The Llama 3 Herd of
//                Models", arXiv 2407.21783, Table 5). Shares are the published counts / 419
//                (the table's printed 30.1% for "faulty GPU" disagrees with its own count,
//                148/419 = 35.3%; the counts are used). Software vs hardware: software bug,
//                NCCL watchdog timeout and dependency are software (processes restart in place);
//                every other cause takes the machine out (hardware).
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct CausePreset {
  std::string name;
  std::string source;                      ///< citation with URL
  std::vector<FailureCauseSpec> causes;    ///< shares as published counts (normalized by users)
  /// Unexpected interruptions per machine per second over the whole report (the rate the
  /// counts add up to), for trace synthesis.
  double rate_per_machine = 0;
};

const std::vector<CausePreset>& cause_presets();
std::vector<std::string> cause_preset_names();
/// nullptr when unknown.
const CausePreset* find_cause_preset(const std::string& name);

}  // namespace ckptsim
