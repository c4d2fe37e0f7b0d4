#pragma once
// The result of `ckptsim compute`: where one GPU's compute time goes in a training step under
// the kernel compute model (workload/kernel_time.hpp) — per kernel class and pass for one
// transformer layer, per submodule use, the iteration's total, and DeepSpeed's boundary and
// optimizer-step phases (workload/step_phases.hpp) — with the GPU figures it used. One builder,
// a text writer and a JSON writer.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/kernel_time.hpp"
#include "ckptsim/workload/step_phases.hpp"

namespace ckptsim {

struct ComputeReport {
  Scenario scenario;
  ComputeTimes times;
  std::vector<StepPhase> boundary;   ///< before the update (the scalar all-reduces' latency not included)
  std::vector<StepPhase> optimizer;  ///< the update and the step end
};

/// Builds the report (throws ModelError when the scenario lacks what the model needs).
ComputeReport make_compute_report(const Scenario& scenario);

/// The text report; with `kernels` every kernel of one layer and of the embedding and output
/// stages is listed with its shape or bytes and time.
void print_compute_report(std::ostream& out, const ComputeReport& report, bool kernels);

/// The same as JSON: gpu, layer_by_class_s, uses_s, iteration_compute_s, step_phases, and with
/// `kernels` every kernel.
nlohmann::json compute_report_json(const ComputeReport& report, bool kernels);

/// A list of step phases as a table under `title` (name, kernels, syncs, HBM bytes, time, and a
/// total line), and as a JSON array; the megatron report prints its optimizer step with them.
void print_step_phases(std::ostream& out, const char* title, const std::vector<StepPhase>& phases);
nlohmann::json step_phases_json(const std::vector<StepPhase>& phases);

}  // namespace ckptsim
