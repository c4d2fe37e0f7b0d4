// libFuzzer harness: the readers of `ckptsim sweep`. One input is read twice:
//   - as a sweep spec (load_sweep_spec_file: docs/sweep-format.md), and when it loads, the
//     point count and the scenarios of its first points (as the executor builds them);
//   - as a sweep journal (read_journal, what --resume reads: checksummed lines, torn tails).
// Bad input must end in the typed errors of core/error.hpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "ckptsim/core/error.hpp"
#include "ckptsim/sweep/journal.hpp"
#include "ckptsim/sweep/points.hpp"
#include "ckptsim/sweep/spec.hpp"
#include "fuzz_input.hpp"

namespace {

void read_as_spec(const std::string& path) {
  try {
    const ckptsim::sweep::SweepSpec spec = ckptsim::sweep::load_sweep_spec_file(path);
    const std::int64_t points = std::min<std::int64_t>(ckptsim::sweep::point_count(spec), 4);
    for (std::int64_t i = 0; i < points; ++i) {
      try {
        (void)ckptsim::sweep::point_scenario(spec, ckptsim::sweep::point_values(spec, i));
      } catch (const ckptsim::InputError&) {  // an invalid point is recorded, the sweep goes on
      }
    }
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::IoError&) {
  }
}

void read_as_journal(const std::string& path) {
  try {
    (void)ckptsim::sweep::read_journal(path);
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::IoError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".json");
  const std::string& path = file.hold(data, size);
  read_as_spec(path);
  read_as_journal(path);
  return 0;
}
