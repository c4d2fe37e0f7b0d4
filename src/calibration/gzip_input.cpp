#include "ckptsim/calibration/gzip_input.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

namespace ckptsim {

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

std::string read_maybe_gzip_file(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit) {
  // A plain file is the text itself, read to a buffer of its size; a compressed one is the
  // stream drained (one inflater for gzip files, whole or in chunks), its buffer reserved from
  // the last member's trailer, its length modulo 2^32 (RFC 1952, ISIZE): exact for one member
  // under 4 GiB, which is what the profiler writes; a wrong hint only costs growth.
  const std::string data = read_input_file(path, what, max_bytes, beyond_limit);
  if (!is_gzip(data)) return data;
  std::string out;
  if (data.size() >= 18) {
    const auto* tail = reinterpret_cast<const unsigned char*>(data.data() + data.size() - 4);
    const std::size_t hint = std::size_t{tail[0]} | std::size_t{tail[1]} << 8 | std::size_t{tail[2]} << 16 | std::size_t{tail[3]} << 24;
    out.reserve(std::min(hint, max_bytes) + 1);
  }
  MaybeGzipText text(path, what, max_bytes, beyond_limit);
  std::vector<char> block(1u << 20);
  for (std::size_t n; (n = text.read(block.data(), block.size())) > 0;) out.append(block.data(), n);
  return out;
}

struct MaybeGzipText::Inflater {
  z_stream z{};
  ~Inflater() { inflateEnd(&z); }
};

MaybeGzipText::MaybeGzipText(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit)
    : file_(path, what, max_bytes, beyond_limit), path_(path), beyond_limit_(beyond_limit), max_bytes_(max_bytes), in_(1u << 20) {
  // The first bytes decide: the gzip magic bytes, or plain text handed on as it is.
  while (in_end_ < 2) {
    const std::size_t got = file_.read(in_.data() + in_end_, in_.size() - in_end_);
    if (got == 0) break;
    in_end_ += got;
  }
  gzip_ = is_gzip(std::string_view(in_.data(), in_end_));
  if (!gzip_) return;
  z_ = std::make_unique<Inflater>();
  // 16 + MAX_WBITS: a gzip header and trailer (zlib manual, inflateInit2).
  if (inflateInit2(&z_->z, 16 + MAX_WBITS) != Z_OK) throw IoError(fmt::format("{}: zlib could not start inflating", path));
  z_->z.next_in = reinterpret_cast<Bytef*>(in_.data());
  z_->z.avail_in = static_cast<uInt>(in_end_);
}

MaybeGzipText::~MaybeGzipText() = default;

bool MaybeGzipText::refill() {
  z_stream& z = z_->z;
  // Keep what the inflater has not read (at most a byte or two before a member's magic check).
  const std::size_t left = z.avail_in;
  if (left > 0) std::memmove(in_.data(), z.next_in, left);
  const std::size_t got = file_.read(in_.data() + left, in_.size() - left);
  z.next_in = reinterpret_cast<Bytef*>(in_.data());
  z.avail_in = static_cast<uInt>(left + got);
  return got > 0;
}

void MaybeGzipText::something_else_after() {
  std::size_t rest = z_->z.avail_in;
  while (true) {
    const std::size_t got = file_.read(in_.data(), in_.size());
    if (got == 0) break;
    rest += got;
  }
  throw InputError(path_, "", "a gzip file (one or more gzip members)", fmt::format("{} bytes of something else after the compressed data", rest));
}

std::size_t MaybeGzipText::read(char* out, std::size_t n) {
  if (!gzip_) {
    if (in_pos_ < in_end_) {
      const std::size_t k = std::min(n, in_end_ - in_pos_);
      std::memcpy(out, in_.data() + in_pos_, k);
      in_pos_ += k;
      return k;
    }
    return file_.read(out, n);
  }
  z_stream& z = z_->z;
  while (!done_ && n > 0) {
    // Input first, unless the inflater may still hold output from a full buffer.
    if (z.avail_in == 0 && !pending_ && !refill())
      throw InputError(path_, "", "a complete gzip stream", "a truncated one (the file ends inside it)");
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    const uInt asked = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t produced = asked - z.avail_out;
    pending_ = z.avail_out == 0;
    if (rc == Z_BUF_ERROR) {
      pending_ = false;  // no progress: it needs input
    } else if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string why = z.msg ? z.msg : fmt::format("zlib error {}", rc);
      throw InputError(path_, "", "a complete gzip stream", fmt::format("a damaged one ({})", why));
    }
    out_total_ += produced;
    if (out_total_ > max_bytes_)
      throw LimitError(fmt::format("{}: the trace inflates to more than {} MiB, beyond the limit{}", path_, max_bytes_ >> 20,
                                   beyond_limit_.empty() ? "" : fmt::format(" ({})", beyond_limit_)));
    if (rc == Z_STREAM_END) {
      pending_ = false;
      // Concatenated members (gzip -c a b): the next one, if any bytes are left.
      if (z.avail_in < 2) (void)refill();
      if (z.avail_in == 0) {
        done_ = true;
      } else {
        if (!is_gzip(std::string_view(reinterpret_cast<const char*>(z.next_in), z.avail_in))) something_else_after();
        inflateReset(&z);
      }
    }
    if (produced > 0) return produced;
  }
  return 0;
}

}  // namespace ckptsim
