// ckptsim: the command-line front end. All work happens in cli::dispatch; main only owns the
// standard output, so that a failed write to it (a full disk, /dev/full, a closed pipe) ends
// in a non-zero exit with the reason instead of a silently truncated result.
#include <array>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string>
#include <vector>

#include <unistd.h>

#include "ckptsim/cli/commands.hpp"

namespace {

/// A buffered stream buffer over a file descriptor that remembers the errno of its first
/// failed write (std::cout's own buffer reports only "failed").
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  [[nodiscard]] int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* next = pbase();
    while (error_ == 0 && next < pptr()) {
      const ssize_t n = ::write(fd_, next, static_cast<std::size_t>(pptr() - next));
      if (n < 0 && errno != EINTR) error_ = errno;
      if (n > 0) next += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0;
  }

  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_{};
};

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  DescriptorBuffer stdout_buffer(STDOUT_FILENO);
  std::streambuf* const original = std::cout.rdbuf(&stdout_buffer);
  std::vector<std::string> args(argv + 1, argv + argc);
  int code = ckptsim::cli::dispatch(args, std::cout, std::cerr);
  std::cout.flush();
  std::cout.rdbuf(original);
  if (stdout_buffer.error() != 0) {
    std::cerr << "error: cannot write the standard output: " << std::strerror(stdout_buffer.error()) << '\n';
    if (code == 0) code = 1;
  }
  return code;
}
