// libFuzzer harness: the placement-file reader (`placement --placement-file FILE`), and for a
// placement it accepts, the figures `ckptsim placement` derives from it. Bad input must end in
// InputError.
#include <cstddef>
#include <cstdint>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/core/error.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".json");
  try {
    const ckptsim::Placement p = ckptsim::load_placement_file(file.hold(data, size));
    (void)ckptsim::placement_cpu_memory_bytes(p, 1e9);
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::IoError&) {
  }
  return 0;
}
