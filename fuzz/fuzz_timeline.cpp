// libFuzzer harness: the replay files `ckptsim validate` and `ckptsim calibrate` read
// (docs/timeline-format.md). One input goes through the command-line front end three times:
//   - as the measured timeline of `validate PLAN INPUT --json` (PLAN: a valid seed plan);
//   - as the plan of `validate INPUT MEASURED --json` (MEASURED: a valid seed timeline);
//   - as the measurements of `calibrate INPUT -o /dev/null --json` (the fits are computed and
//     printed; nothing is written to disk, which keeps runs fast).
// and, when ckptsim-replay is built, through its plan reader (read_plan_file, 1 GiB limit).
// Any exit code is allowed; an exception the front end reports as an internal error (one that
// is not a typed error of core/error.hpp) is a bug and aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/plan_file.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "fuzz_input.hpp"

namespace {

void run(const std::vector<std::string>& argv) {
  std::ostringstream out;
  std::ostringstream err;
  (void)ckptsim::cli::dispatch(argv, out, err);
  if (err.str().find("internal error") != std::string::npos) {
    std::fprintf(stderr, "%s", err.str().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".json");
  const std::string plan = CKPTSIM_SOURCE_ROOT "/fuzz/seeds/timeline/plan.json";
  const std::string measured = CKPTSIM_SOURCE_ROOT "/fuzz/seeds/timeline/measured.json";
  const std::string& path = file.hold(data, size);
  run({"validate", plan, path, "--json"});
  run({"validate", path, measured, "--json"});
  run({"calibrate", path, "-o", "/dev/null", "--json"});
  try {
    (void)ckptsim::read_plan_file(path, 1024.0 * 1024 * 1024);
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  }
  try {
    (void)ckptsim::parse_measured_timeline(ckptsim::read_json_file(path, "a measured timeline"), path);
  } catch (const ckptsim::InputError&) {
  }
  return 0;
}
