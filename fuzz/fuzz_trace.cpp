// libFuzzer harness: the failure-trace CSV reader (failures.trace). The input is the CSV text,
// read for a 16-machine cluster. Bad input must end in InputError.
#include <cstddef>
#include <cstdint>

#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".csv");
  constexpr int kMachines = 16;  // the cluster of scenarios/examples/p4d-gemini-trace.json
  try {
    (void)ckptsim::load_failure_trace(file.hold(data, size), kMachines);
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::IoError&) {
  }
  return 0;
}
