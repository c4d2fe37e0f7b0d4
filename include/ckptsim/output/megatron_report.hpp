#pragma once
// Writers for `ckptsim iteration` on a training.parallelism "megatron" scenario: the readable
// report and the JSON document of one simulated step (workload/megatron_iteration.hpp).
//
// Contents: the layout and schedule; the iteration time split into the pipeline schedule, the
// exposed gradient reduce, the optimizer step and the exposed parameter gather; the first
// rank's bubble beside the closed form for uniform stages ((p-1)/v over m + (p-1)/v); one layer's
// compute and tensor-parallel time; one row per pipeline stage (layers, parameters per rank,
// forward and backward per micro-batch, schedule end, exposed reduce, step, bubble, network idle
// time and spans that a checkpoint scheduler can fill, memory per rank against the GPU's); the
// collectives one rank runs; and the blast radius of machine 0's failure.
#include <iosfwd>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/megatron_iteration.hpp"

namespace ckptsim {

void print_megatron_report(std::ostream& out, const Scenario& scenario, const MegatronIteration& it);

/// {"manifest", "scenario", "parallelism", "layout", "iteration_time_s", "phases_s", "bubble",
/// "layer", "stages" [...], "collectives" [...], "blast_radius"}.
nlohmann::json megatron_report_json(const Scenario& scenario, const MegatronIteration& it, const std::string& command_line);

}  // namespace ckptsim
