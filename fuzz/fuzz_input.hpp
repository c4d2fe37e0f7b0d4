#pragma once
// Shared by the libFuzzer harnesses (fuzz/README.md): the readers under test take a path, so
// each input is written to one private temporary file that is rewritten for every run, and the
// documented error types are the only exceptions a reader may throw.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace ckptsim::fuzz {

/// A regular file in $TMPDIR (or /tmp) holding the current input; removed at exit.
class InputFile {
 public:
  explicit InputFile(const char* suffix) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/ckptsim-fuzz-XXXXXX" + suffix;
    fd_ = mkstemps(path_.data(), static_cast<int>(std::string(suffix).size()));
    if (fd_ < 0) {
      std::perror("ckptsim fuzz: cannot create the input file");
      std::abort();
    }
  }
  ~InputFile() {
    close(fd_);
    unlink(path_.c_str());
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// Replaces the file's contents with the input and returns its path.
  const std::string& hold(const std::uint8_t* data, std::size_t size) {
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size)) {
      std::perror("ckptsim fuzz: cannot write the input file");
      std::abort();
    }
    return path_;
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace ckptsim::fuzz
