// Traces read as streams (issue 40): parse_json_strict over TextChunks (core/input_file.hpp)
// against the whole-text parser, the oracle: the same document for good input and the same
// refusal (file, pointer, expected, found, line and column) for bad input, whatever the chunk
// boundaries; MaybeGzipText (calibration/gzip_input.hpp) against zlib's own gzread.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "ckptsim/calibration/gzip_input.hpp"
#include "ckptsim/calibration/torch_profiler.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "../common/error_text.hpp"

using namespace ckptsim;

namespace streamed_trace_test {

const std::string kTraces = CKPTSIM_SOURCE_ROOT "/tests/fixtures/torch-profiler/";

/// `text` handed out `chunk` bytes at a time.
TextChunks chunks_of(const std::string& text, std::size_t chunk, std::size_t& at) {
  return [&text, chunk, &at](char* out, std::size_t n) {
    const std::size_t k = std::min({n, chunk, text.size() - at});
    std::copy_n(text.data() + at, k, out);
    at += k;
    return k;
  };
}

/// The message of what `f` throws ("" if nothing).
std::string refusal(const std::function<void()>& f) { return test::what_of(f); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() / ("ckptsim-streamed-" + name)).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

const JsonArrayFilter kFilter{"traceEvents", torch_profiler_reads};

}  // namespace streamed_trace_test

using namespace streamed_trace_test;

TEST_CASE("streamed JSON: the same document and the same refusals as the whole text, at any chunk size") {
  const std::vector<std::string> texts = {
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": "X", "cat": "cpu_op", "name": "b"}], "x": 1})",
      "\xEF\xBB\xBF{\"traceEvents\": []}",                       // a byte-order mark, skipped
      "\xEF\xBB\xBF\xEF\xBB\xBF{}",                               // two: refused
      "{\"traceEvents\": [\n  {\"ph\": \"X\",\n   \"ts\": tru}]}",  // a syntax error on line 3
      "{\"a\": 1}\n{\"b\": 2}",                                   // text after the document
      "{\"a\": 1, \"a\": 2}",                                     // a key written twice
      std::string("{\"a\": \"x\0y\"}", 12),                       // a NUL byte
      std::string(70, '[') + std::string(70, ']'),                // nested beyond 64
      "{\"traceEvents\": [1e400]}",                               // a number beyond a double
      "{\"traceEvents\": [",                                      // cut short
  };
  for (const std::string& text : texts) {
    CAPTURE(text);
    std::string whole_error;
    nlohmann::json whole;
    whole_error = refusal([&] { whole = parse_json_strict(text, "t.json", kFilter); });
    // Chunks of 1, 2, 3 and 7 bytes put a boundary everywhere, inside the BOM and every token.
    for (std::size_t chunk : {1u, 2u, 3u, 7u, 1u << 20}) {
      CAPTURE(chunk);
      std::size_t at = 0;
      nlohmann::json streamed;
      const std::string streamed_error =
          refusal([&] { streamed = parse_json_strict(chunks_of(text, chunk, at), "t.json", kFilter); });
      // Depth and NUL bytes are checked per chunk, before the parser reaches them, as the whole
      // text is checked before it is parsed: the same messages either way.
      CHECK(streamed_error == whole_error);
      if (whole_error.empty()) CHECK(streamed == whole);
    }
  }
}

TEST_CASE("streamed gzip: the profiler's traces inflate as zlib's gzread does, and damaged files are refused") {
  const std::string gz = slurp(kTraces + "hta-sampled-rank-1.json.gz");
  REQUIRE(gz.size() > 20000);
  const std::size_t limit = 256u << 20;
  // Inflated in pieces (the reader asks for `ask` bytes at a time).
  const auto streamed_text = [&](const std::string& path, std::size_t ask) {
    MaybeGzipText text(path, "a trace", limit);
    std::string out;
    std::vector<char> block(ask);
    for (std::size_t n; (n = text.read(block.data(), block.size())) > 0;) out.append(block.data(), n);
    return out;
  };
  // The oracle: zlib's own gzip file reader (it reads concatenated members and plain files too).
  const auto gzread_text = [](const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    REQUIRE(f != nullptr);
    std::string out;
    char block[65536];
    for (int n; (n = gzread(f, block, sizeof block)) > 0;) out.append(block, static_cast<std::size_t>(n));
    gzclose(f);
    return out;
  };
  const std::string whole = gzread_text(kTraces + "hta-sampled-rank-1.json.gz");
  REQUIRE(whole.size() > gz.size());
  CHECK(streamed_text(kTraces + "hta-sampled-rank-1.json.gz", 4096) == whole);
  CHECK(read_maybe_gzip_file(kTraces + "hta-sampled-rank-1.json.gz", "a trace", limit) == whole);
  // A plain file is handed on as it is.
  const std::string plain = write_temp("plain.json", whole.substr(0, 5000));
  CHECK(streamed_text(plain, 777) == whole.substr(0, 5000));
  // Two members (gzip -c a a): both inflated, one after the other.
  const std::string twice = write_temp("twice.json.gz", gz + gz);
  CHECK(streamed_text(twice, 65536) == whole + whole);
  // Cut short, followed by other bytes (8 of them), or damaged inside: refused with the reason.
  std::string damaged = gz;
  damaged[damaged.size() / 2] = static_cast<char>(damaged[damaged.size() / 2] ^ 0x55);
  const std::vector<std::pair<std::string, std::string>> bad{{"cut.json.gz", gz.substr(0, 20000)},
                                                             {"extra.json.gz", gz + "trailing"},
                                                             {"damaged.json.gz", damaged}};
  const std::vector<std::string> reasons{"a truncated one (the file ends inside it)", "8 bytes of something else after the compressed data",
                                         "a damaged one ("};
  for (std::size_t k = 0; k < bad.size(); ++k) {
    const std::string& name = bad[k].first;
    CAPTURE(name);
    const std::string path = write_temp(name, bad[k].second);
    CHECK(refusal([&] { (void)streamed_text(path, 4096); }).find(reasons[k]) != std::string::npos);
    CHECK(refusal([&] { (void)read_maybe_gzip_file(path, "a trace", limit); }).find(reasons[k]) != std::string::npos);
  }
  // Beyond the limit on inflated text (1 MiB of a longer text): a LimitError.
  CHECK_THROWS_AS(
      [&] {
        MaybeGzipText text(kTraces + "hta-sampled-rank-1.json.gz", "a trace", 1u << 20);
        std::vector<char> block(65536);
        while (text.read(block.data(), block.size()) > 0) {
        }
      }(),
      LimitError);
}
