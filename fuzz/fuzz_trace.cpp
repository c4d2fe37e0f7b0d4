// libFuzzer harness: the failure-trace readers. One input goes through
//   - the trace CSV reader (failures.trace), for a 16-machine cluster;
//   - the header reader of `ckptsim trace stats` ("# machines: N", "# duration: D");
//   - its first line as a `ckptsim trace synth` spec ("NAME[:key=value,...]"), and when that
//     parses, the synthesis of one day on 16 machines (bounded by the trace record limit).
// Bad input must end in InputError, LimitError or IoError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/failure/trace_tools.hpp"
#include "fuzz_input.hpp"

namespace {

constexpr int kMachines = 16;  // the cluster of scenarios/examples/p4d-gemini-trace.json

template <class Reader>
void expecting_typed_errors(Reader&& reader) {
  try {
    reader();
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::IoError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".csv");
  const std::string& path = file.hold(data, size);
  expecting_typed_errors([&] { (void)ckptsim::load_failure_trace(path, kMachines); });
  expecting_typed_errors([&] { (void)ckptsim::read_trace_header(path); });
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string first_line = text.substr(0, text.find('\n'));
  expecting_typed_errors([&] {
    const ckptsim::TraceSynthesisSpec spec = ckptsim::parse_trace_spec(first_line);
    (void)ckptsim::synthesize_trace(spec.failures, kMachines, ckptsim::SimTime::from_seconds(86400.0), 1);
  });
  return 0;
}
