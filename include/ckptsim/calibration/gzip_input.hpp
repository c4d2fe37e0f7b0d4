#pragma once
// Reading an input file that may be gzip-compressed (RFC 1952; PyTorch's
// tensorboard_trace_handler writes *.pt.trace.json.gz), through zlib.
//
// The file is read with the guards of core/input_file.hpp (regular file), at most `max_bytes`
// whether plain or compressed. A file starting with the gzip magic bytes 1f 8b is inflated,
// several concatenated gzip members included, refusing more than `max_bytes` of output
// (LimitError naming the file and the limit, with `beyond_limit`, e.g. "--force reads up to
// 4 GiB") and a truncated or corrupt stream (InputError); any other file is returned as it is
// (a file above max_bytes: InputError with its size and `beyond_limit`).
// MaybeGzipText reads the same files as a stream (below); read_maybe_gzip_file is that stream
// drained into one string. `import torch-profiler` parses its traces from the stream without
// holding the text.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckptsim/core/input_file.hpp"

namespace ckptsim {

std::string read_maybe_gzip_file(const std::string& path, std::string_view what, std::size_t max_bytes,
                                 std::string_view beyond_limit = {});

/// Whether `data` starts with the gzip magic bytes.
bool is_gzip(std::string_view data);

/// read_maybe_gzip_file as a stream: the file is read block by block and, when it starts with
/// the gzip magic bytes, inflated as it is read, so neither the file nor its text is ever held
/// whole (a TextChunks source for parse_json_strict, core/input_file.hpp). The same guards and
/// messages: a regular file of at most max_bytes, at most max_bytes of text, several members,
/// a truncated or damaged stream and bytes after the last member refused.
class MaybeGzipText {
 public:
  MaybeGzipText(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit = {});
  ~MaybeGzipText();
  MaybeGzipText(const MaybeGzipText&) = delete;
  MaybeGzipText& operator=(const MaybeGzipText&) = delete;
  /// Up to n bytes of text; 0 at its end.
  std::size_t read(char* out, std::size_t n);

 private:
  struct Inflater;
  [[nodiscard]] bool refill();
  [[noreturn]] void something_else_after();
  InputFileBlocks file_;
  std::string path_, beyond_limit_;
  std::size_t max_bytes_;
  std::vector<char> in_;
  std::size_t in_pos_ = 0, in_end_ = 0;
  bool gzip_ = false, done_ = false, pending_ = false;
  std::size_t out_total_ = 0;
  std::unique_ptr<Inflater> z_;
};

}  // namespace ckptsim
