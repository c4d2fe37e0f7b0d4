// libFuzzer harness: a scenario file through the whole loader (parse, duplicate keys,
// validation, presets and defaults), the derivation of the strategy's costs, the run model
// (placement, failure trace) and one Monte Carlo replica, as `ckptsim run -r 1` does (the last
// three for scenarios of at most kFuzzIterationFlows estimated training flows). Bad input
// must end in one of the typed errors of core/error.hpp; anything else (a crash, a sanitizer
// report, another exception, a timeout) is a bug.
#include <cstddef>
#include <cstdint>

#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "fuzz_input.hpp"

namespace {

// Under the sanitizers one run of the iteration model on a 1,024-machine example takes seconds:
// above this many estimated training flows (iteration_work.hpp; the paper's 16 x 8 GPUs x 124
// layers make 47,616) the harness stops after loading, so the fuzzing time goes to mutated
// inputs rather than to re-running the largest seeds. Smaller scenarios run the whole model.
constexpr double kFuzzIterationFlows = 1e5;

bool iteration_model_too_large(const ckptsim::Scenario& scenario) {
  if (scenario.training.iteration_time) return false;  // the model is not run
  return !(ckptsim::estimate_iteration_flows(scenario) <= kFuzzIterationFlows);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".json");
  try {
    const ckptsim::Scenario scenario = ckptsim::load_scenario_file(file.hold(data, size));
    if (iteration_model_too_large(scenario)) return 0;
    // The checks of `ckptsim run -r 1` (run/run_checks.hpp), then one replica.
    const ckptsim::RunChecks checks;
    const ckptsim::StrategyCosts costs = ckptsim::checked_strategy_costs(scenario, checks);
    (void)ckptsim::checked_run_model(scenario, costs, 1, checks).simulate(0);
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::ModelError&) {
  } catch (const ckptsim::IoError&) {
  }
  return 0;
}
