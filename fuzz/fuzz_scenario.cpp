// libFuzzer harness: a scenario file through the whole loader (parse, duplicate keys,
// validation, presets and defaults), the derivation of the strategy's costs, the run model
// (placement, failure trace) and one Monte Carlo replica, as `ckptsim run -r 1` does. Bad input
// must end in one of the typed errors of core/error.hpp; anything else (a crash, a sanitizer
// report, another exception, a timeout) is a bug.
#include <cstddef>
#include <cstdint>

#include "ckptsim/core/error.hpp"
#include "ckptsim/run/resolve_costs.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".json");
  try {
    const ckptsim::Scenario scenario = ckptsim::load_scenario_file(file.hold(data, size));
    const ckptsim::RunModel model(scenario, ckptsim::resolve_strategy_costs(scenario));
    (void)model.simulate(0);
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::ModelError&) {
  } catch (const ckptsim::IoError&) {
  }
  return 0;
}
