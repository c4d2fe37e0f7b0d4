#pragma once
// Guarded reading of input files and JSON documents (docs/limits.md, "Input files").
//
// Every input file (scenario, profile, placement, trace, sweep spec, journal, points, manifest)
// is read through read_input_file:
//   - it must be a regular file: a directory, FIFO, socket or device (/dev/zero, a pipe with no
//     writer) is refused before anything is read, so reading never blocks or runs unbounded (the
//     file is opened without blocking and checked on its descriptor; a symbolic link is followed
//     to what it names, which must be a regular file too);
//   - it must be at most max_bytes long (kMaxInputFileBytes unless the reader says otherwise;
//     refused with its size, before reading);
//   - a missing file, a symbolic-link loop or a permission problem is reported with its reason.
// Every JSON document is parsed through parse_json_document, which refuses, naming the file and
// the JSON pointer being read: nesting deeper than kMaxJsonDepth (checked before parsing, so a
// hostile document costs linear time and no recursion), syntax errors (line and column), NUL
// bytes and anything after the document, numbers outside the range of a double (1e400), and
// keys written twice in one object. A leading UTF-8 byte-order mark is skipped; a second one
// is refused. The document is built from the parser's SAX events in time linear in the text
// (benchmarks/core/json_reader_benchmark.cpp: 200,000 objects in an array).
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckptsim {

inline constexpr std::size_t kMaxInputFileBytes = 64u * 1024u * 1024u;  ///< 64 MiB
inline constexpr int kMaxJsonDepth = 64;                                 ///< nested arrays/objects

/// The whole text of a regular file; throws InputError(path, "", "<what>", reason) otherwise.
/// `what` describes the file for messages, e.g. "a scenario file"; `beyond_limit` is added to
/// the refusal of a file larger than max_bytes (e.g. "--force reads up to 4 GiB").
std::string read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes = kMaxInputFileBytes,
                            std::string_view beyond_limit = {});

/// Drops a leading UTF-8 byte-order mark (EF BB BF), if any.
std::string_view strip_utf8_bom(std::string_view text);

/// The same, refusing a second mark after the first (InputError naming `file`): a file converted
/// twice, whose second mark would otherwise be skipped by the JSON parser or read as text.
std::string_view strip_utf8_bom(std::string_view text, const std::string& file);

struct JsonDocument {
  nlohmann::json value;
  std::vector<std::string> duplicate_keys;  ///< JSON pointers of keys written more than once
};

/// Parses `text` (the contents of `file`) as one JSON document; throws InputError as described
/// above. Keys written twice are returned, not thrown, so a loader can report them together with
/// its own problems; use parse_json_strict to refuse them at once.
JsonDocument parse_json_document(std::string_view text, const std::string& file);

/// parse_json_document, refusing keys written twice.
nlohmann::json parse_json_strict(std::string_view text, const std::string& file);

/// Which elements of one large array to keep while parsing (the events of a trace): the array is
/// the document itself or the value of the top-level key `key`; each object element for which
/// `keep` is false is replaced by null as soon as it is read, so the parsed document holds only
/// the kept elements (the indices, hence every JSON pointer, stay as in the file). Syntax,
/// depth, number range and duplicate keys are checked in every element, kept or not.
struct JsonArrayFilter {
  std::string key;
  std::function<bool(const nlohmann::json& element)> keep;
};

/// parse_json_strict with the elements `filter` drops replaced by null.
nlohmann::json parse_json_strict(std::string_view text, const std::string& file, const JsonArrayFilter& filter);

/// A text read in chunks: fills up to `n` bytes at `out` and returns how many, 0 at its end
/// (a file read block by block, or inflated as it is read: calibration/gzip_input.hpp).
using TextChunks = std::function<std::size_t(char* out, std::size_t n)>;

/// parse_json_strict with `filter` over a text read in chunks of 1 MiB that is never held whole
/// (only the parsed, filtered document is): the same checks and messages, the depth and NUL-byte
/// checks made on each chunk as it arrives, line and column counted from the text's start. A
/// text with several problems may be refused for another of them than the whole-text reader
/// names (that one checks depth and NUL bytes in the whole text before parsing).
nlohmann::json parse_json_strict(const TextChunks& chunks, const std::string& file, const JsonArrayFilter& filter);

/// An input file opened and checked as read_input_file does (a regular file of at most
/// max_bytes, InputError otherwise), then read block by block: a TextChunks source.
class InputFileBlocks {
 public:
  InputFileBlocks(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit = {});
  ~InputFileBlocks();
  InputFileBlocks(const InputFileBlocks&) = delete;
  InputFileBlocks& operator=(const InputFileBlocks&) = delete;
  /// Up to n bytes; 0 at the end. InputError when the file cannot be read or grew past max_bytes.
  std::size_t read(char* out, std::size_t n);

 private:
  std::string path_, what_, beyond_limit_;
  std::size_t max_bytes_;
  std::size_t read_ = 0;
  int fd_;
};

/// read_input_file + parse_json_strict.
nlohmann::json read_json_file(const std::string& path, std::string_view what);

/// RFC 6901 escaping of one reference token ("~" -> "~0", "/" -> "~1").
std::string escape_json_pointer_token(std::string_view token);

/// True when `inner` names `outer` or a place inside it ("/strategy/replicas" is within
/// "/strategy"; "/strategyx" is not): writing `outer` replaces whatever `inner` wrote.
bool json_pointer_within(std::string_view inner, std::string_view outer);

}  // namespace ckptsim
