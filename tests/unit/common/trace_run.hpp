#pragma once
// One replica of a scenario under the failures of a trace written for the test: `rows` are the
// CSV rows after the header `time,machine,type` (traces/ format); the file is removed after the run.
#include <filesystem>
#include <string>

#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "trace_files.hpp"

namespace ckptsim::test {

inline ReplicaResult simulate_trace(Scenario s, const std::string& file_name, const std::string& rows) {
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = write_trace_file(file_name, "time,machine,type\n" + rows);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  std::filesystem::remove(s.failures.trace_file);
  return r;
}

}  // namespace ckptsim::test
