#pragma once
// Reading an input file that may be gzip-compressed (RFC 1952; PyTorch's
// tensorboard_trace_handler writes *.pt.trace.json.gz), through zlib.
//
// The file is read with the guards of core/input_file.hpp (regular file), at most `max_bytes`
// whether plain or compressed. A file starting with the gzip magic bytes 1f 8b is inflated,
// several concatenated gzip members included, refusing more than `max_bytes` of output
// (LimitError naming the file and the limit, with `beyond_limit`, e.g. "--force reads up to
// 4 GiB") and a truncated or corrupt stream (InputError); any other file is returned as it is
// (a file above max_bytes: InputError with its size and `beyond_limit`). The text returned is
// the only copy held: its capacity is its size (plain) or the gzip trailer's length (inflated).
#include <cstddef>
#include <string>
#include <string_view>

namespace ckptsim {

std::string read_maybe_gzip_file(const std::string& path, std::string_view what, std::size_t max_bytes,
                                 std::string_view beyond_limit = {});

/// Whether `data` starts with the gzip magic bytes.
bool is_gzip(std::string_view data);

/// Inflates gzip `data` (named `path` in messages), at most `max_bytes` of output.
std::string gunzip(std::string_view data, const std::string& path, std::size_t max_bytes, std::string_view beyond_limit = {});

}  // namespace ckptsim
