#include "ckptsim/calibration/gzip_input.hpp"

#include <zlib.h>

#include <algorithm>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

namespace ckptsim {

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

std::string gunzip(std::string_view data, const std::string& path, std::size_t max_bytes, std::string_view beyond_limit) {
  z_stream z{};
  // 16 + MAX_WBITS: a gzip header and trailer (zlib manual, inflateInit2).
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw IoError(fmt::format("{}: zlib could not start inflating", path));
  std::string out;
  // The last member's trailer ends with its length modulo 2^32 (RFC 1952, ISIZE): exact for one
  // member under 4 GiB, which is what the profiler writes. Reserving it (at most max_bytes) keeps
  // the text from growing by doubling to up to twice its size; a wrong hint only costs growth.
  if (data.size() >= 18) {
    const auto* tail = reinterpret_cast<const unsigned char*>(data.data() + data.size() - 4);
    const std::size_t hint = std::size_t{tail[0]} | std::size_t{tail[1]} << 8 | std::size_t{tail[2]} << 16 | std::size_t{tail[3]} << 24;
    out.reserve(std::min(hint, max_bytes) + 1);
  }
  std::size_t pos = 0;
  char buffer[1 << 16];
  int rc = Z_OK;
  while (true) {
    const std::size_t chunk = std::min<std::size_t>(data.size() - pos, 1u << 30);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + pos));
    z.avail_in = static_cast<uInt>(chunk);
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      rc = inflate(&z, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END) {
        const std::string why = z.msg ? z.msg : fmt::format("zlib error {}", rc);
        inflateEnd(&z);
        throw InputError(path, "", "a complete gzip stream", fmt::format("a damaged one ({})", why));
      }
      out.append(buffer, sizeof buffer - z.avail_out);
      if (out.size() > max_bytes) {
        inflateEnd(&z);
        throw LimitError(fmt::format("{}: the trace inflates to more than {} MiB, beyond the limit{}", path, max_bytes >> 20,
                                     beyond_limit.empty() ? "" : fmt::format(" ({})", beyond_limit)));
      }
    } while (z.avail_out == 0 && rc != Z_STREAM_END);
    pos += chunk - z.avail_in;
    if (rc == Z_STREAM_END) {
      // Concatenated members (gzip -c a b): start the next one, if any bytes are left.
      if (pos >= data.size()) break;
      if (!is_gzip(data.substr(pos))) {
        inflateEnd(&z);
        throw InputError(path, "", "a gzip file (one or more gzip members)", fmt::format("{} bytes of something else after the compressed data", data.size() - pos));
      }
      inflateReset(&z);
      continue;
    }
    if (chunk == 0 || pos >= data.size()) {
      inflateEnd(&z);
      throw InputError(path, "", "a complete gzip stream", "a truncated one (the file ends inside it)");
    }
  }
  inflateEnd(&z);
  return out;
}

std::string read_maybe_gzip_file(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit) {
  // A plain file is the text itself, so it is held to max_bytes as it is read; a compressed one
  // is smaller than its text, and what it inflates to is held to max_bytes by gunzip.
  const std::string data = read_input_file(path, what, max_bytes, beyond_limit);
  if (!is_gzip(data)) return data;
  return gunzip(data, path, max_bytes, beyond_limit);
}

}  // namespace ckptsim
