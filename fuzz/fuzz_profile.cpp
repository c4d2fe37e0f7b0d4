// libFuzzer harness: the measured-profile reader (`--profile FILE`, docs/profile-format.md).
// The input is the file, read for a 16-machine cluster.
// Bad input must end in InputError.
#include <cstddef>
#include <cstdint>

#include "ckptsim/core/error.hpp"
#include "ckptsim/workload/profile.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".json");
  constexpr int kMachines = 16;  // the cluster of scenarios/examples/p4d-gemini-trace.json
  try {
    (void)ckptsim::load_profile_file(file.hold(data, size), kMachines);
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::IoError&) {
  }
  return 0;
}
