// libFuzzer harness: the importers of external formats (calibration layer). One input goes
//   - as nccl-tests output through parse_nccl_tests (the collective, ranks and machines given,
//     so rows are read even without a header's Rank lines) and, when it parses, through the
//     fits of calibrate();
//   - through read_maybe_gzip_file (gzip or plain, 64 MiB of output at most) and the JSON parser,
//     then as a PyTorch profiler trace (parse_torch_profiler, and the idle-span profile of what
//     it read) and as a kernel-class document (parse_kernel_classes_document, add_kernel_samples);
//   - repeated up to 256 times (about 1 MiB at most) as the events of one trace ({"traceEvents": [IN, IN, ...]}),
//     through the JSON reader and parse_torch_profiler: a large array of whatever the input is,
//     the shape of a real trace (issue 38: the reader once took quadratic time in such arrays);
//   - as a Chakra execution trace (parse_chakra_trace, when this build has the reader) scheduled
//     with every node timed (schedule_chakra_trace, bus bandwidth, group size and FLOP/s given),
//     and as GEMINI's comm_gap.txt (parse_gemini_gaps, laid out in a 1000 s iteration).
// Bad input must end in the typed errors of core/error.hpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ckptsim/calibration/calibrate.hpp"
#include "ckptsim/calibration/chakra_trace.hpp"
#include "ckptsim/calibration/gemini_gaps.hpp"
#include "ckptsim/calibration/gzip_input.hpp"
#include "ckptsim/calibration/nccl_tests.hpp"
#include "ckptsim/calibration/torch_profiler.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "fuzz_input.hpp"

namespace {

/// Copies of the input in the large-array document: 256, fewer for inputs above 4 KiB, so that
/// the document stays within about 1 MiB.
std::size_t large_array_copies(std::size_t input_bytes) {
  return std::max<std::size_t>(1, std::min<std::size_t>(256, (std::size_t{1} << 20) / (input_bytes + 1)));
}

template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::ModelError&) {
  } catch (const ckptsim::IoError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ckptsim::fuzz::InputFile file(".json");
  const std::string& path = file.hold(data, size);
  const std::string text(reinterpret_cast<const char*>(data), size);
  guarded([&] {
    ckptsim::MeasurementSet set;
    for (const auto& run : ckptsim::parse_nccl_tests(text, path, {ckptsim::SampleKind::all_gather, 8, 2})) {
      set.samples.insert(set.samples.end(), run.samples.begin(), run.samples.end());
    }
    (void)ckptsim::calibrate(set, {});
  });
  guarded([&] {
    const nlohmann::json doc = ckptsim::parse_json_strict(ckptsim::read_maybe_gzip_file(path, "a trace", std::size_t{64} << 20), path);
    guarded([&] {
      const ckptsim::ProfiledRank r = ckptsim::parse_torch_profiler(doc, path, 0, {});
      (void)ckptsim::idle_span_profile({r}, "fuzz");
      (void)ckptsim::kernel_classes_document({r});
    });
    guarded([&] {
      ckptsim::MeasurementSet set;
      ckptsim::add_kernel_samples(doc, path, set);
    });
  });
  guarded([&] {
    std::string events = R"({"traceEvents": [)";
    const std::size_t copies = large_array_copies(text.size());
    events.reserve(events.size() + copies * (text.size() + 1) + 2);
    for (std::size_t k = 0; k < copies; ++k) {
      if (k > 0) events += ',';
      events += text;
    }
    events += "]}";
    const nlohmann::json doc = ckptsim::parse_json_strict(events, path);
    (void)ckptsim::parse_torch_profiler(doc, path, 0, {});
  });
  if (ckptsim::chakra_reader_available()) {
    guarded([&] {
      const ckptsim::ChakraTrace trace = ckptsim::parse_chakra_trace(text, path);
      const ckptsim::ChakraSchedule s = ckptsim::schedule_chakra_trace(trace, {1e10, 8, 1e14}, 0);
      (void)ckptsim::chakra_idle_span_profile({s}, "fuzz");
    });
  }
  guarded([&] {
    const ckptsim::GeminiGapsProfile p = ckptsim::gemini_gaps_spans(ckptsim::parse_gemini_gaps(text, path), {std::nullopt, 1000.0, 0});
    (void)ckptsim::gemini_gaps_profile(p, 1000.0, "fuzz");
  });
  return 0;
}
