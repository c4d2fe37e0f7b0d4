// libFuzzer harness: the importers of external formats (calibration layer). One input goes
//   - as nccl-tests output through parse_nccl_tests (the collective, ranks and machines given,
//     so rows are read even without a header's Rank lines) and, when it parses, through the
//     fits of calibrate(); and as it stands (ranks, machines, devices and NCCL_ALGO / TUNING lines
//     from the text), through the cluster check, the run reports and the fits over the import's
//     default size range (64 MiB and up);
//   - its first line as a --sizes range (parse_size_range: std::invalid_argument for bad text);
//   - through read_maybe_gzip_file (gzip or plain, 64 MiB of output at most) and the JSON parser,
//     then as a PyTorch profiler trace (parse_torch_profiler: steps on the GPU's clock, launches
//     by correlation or ac2g flow; and the idle-span profile of what it read, which matches
//     spans across steps when their counts differ) and as a kernel-class document
//     (parse_kernel_classes_document, add_kernel_samples, then --skip and the fits of
//     calibrate(), whose kernel classes are refused alone without a kernel model);
//   - repeated up to 256 times (about 1 MiB at most) as the events of one trace ({"traceEvents": [IN, IN, ...]}),
//     through the JSON reader and parse_torch_profiler: a large array of whatever the input is,
//     the shape of a real trace (issue 38: the reader once took quadratic time in such arrays),
//     read once whole and once as the importer reads it (parse_json_strict with the
//     torch_profiler_reads filter: unread events dropped while parsing);
//   - as a Chakra execution trace (parse_chakra_trace, when this build has the reader) scheduled
//     with every node timed (schedule_chakra_trace, bus bandwidth, group size and FLOP/s given),
//     and as GEMINI's comm_gap.txt (parse_gemini_gaps, laid out in a 1000 s iteration).
// Bad input must end in the typed errors of core/error.hpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

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
    for (const auto& run : ckptsim::parse_nccl_tests(text, path, {ckptsim::SampleKind::all_gather, 8, 2, std::nullopt})) {
      set.samples.insert(set.samples.end(), run.samples.begin(), run.samples.end());
    }
    (void)ckptsim::calibrate(set, {});
  });
  guarded([&] {
    const auto runs = ckptsim::parse_nccl_tests(text, path, {});
    ckptsim::refuse_mixed_clusters(runs);
    ckptsim::MeasurementSet set;
    for (const auto& run : runs) {
      (void)ckptsim::describe_nccl_tests_run(run);
      set.samples.insert(set.samples.end(), run.samples.begin(), run.samples.end());
    }
    ckptsim::CalibrationBase base;
    base.sizes = ckptsim::default_size_range({});
    (void)ckptsim::calibrate(set, base);
  });
  try {
    (void)ckptsim::parse_size_range(text.substr(0, std::min<std::size_t>(text.find('\n'), 64)));
  } catch (const std::invalid_argument&) {
  }
  guarded([&] {
    const nlohmann::json doc = ckptsim::parse_json_strict(ckptsim::read_maybe_gzip_file(path, "a trace", std::size_t{64} << 20), path);
    guarded([&] {
      const ckptsim::ProfiledRank r = ckptsim::parse_torch_profiler(doc, path, 0, {});
      std::vector<std::string> notes;
      (void)ckptsim::idle_span_profile({r}, "fuzz", &notes);
      (void)ckptsim::kernel_classes_document({r});
      // The same trace with short gaps left out: unequal span counts between steps, matched.
      ckptsim::TorchProfilerOptions o;
      o.min_span_s = 1e-5;
      (void)ckptsim::idle_span_profile({r, ckptsim::parse_torch_profiler(doc, path, 1, o)}, "fuzz", &notes);
    });
    guarded([&] {
      ckptsim::MeasurementSet set;
      ckptsim::add_kernel_samples(doc, path, set);
      (void)ckptsim::skip_kind(set, "all-to-all");
      (void)ckptsim::calibrate(set, {});
    });
  });
  // The importer's streamed reading (MaybeGzipText in 7-byte pieces, parse_json_strict over
  // TextChunks) against the whole-text reading: the same document, or both refused (with several
  // problems each may name another first: the whole text is checked for depth and NUL bytes
  // before it is parsed, a stream chunk by chunk).
  {
    std::string whole_error, streamed_error;
    nlohmann::json whole, streamed;
    const ckptsim::JsonArrayFilter filter{"traceEvents", ckptsim::torch_profiler_reads};
    try {
      whole = ckptsim::parse_json_strict(ckptsim::read_maybe_gzip_file(path, "a trace", std::size_t{64} << 20), path, filter);
    } catch (const std::exception& e) {
      whole_error = e.what();
    }
    try {
      ckptsim::MaybeGzipText stream(path, "a trace", std::size_t{64} << 20);
      streamed = ckptsim::parse_json_strict([&](char* out, std::size_t n) { return stream.read(out, std::min<std::size_t>(n, 7)); },
                                            path, filter);
    } catch (const std::exception& e) {
      streamed_error = e.what();
    }
    if (whole_error.empty() != streamed_error.empty() || (whole_error.empty() && whole != streamed)) __builtin_trap();
  }
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
    // The importer's own reading: the events it does not read dropped while parsing.
    (void)ckptsim::parse_torch_profiler(ckptsim::parse_json_strict(events, path, {"traceEvents", ckptsim::torch_profiler_reads}), path, 0, {});
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
