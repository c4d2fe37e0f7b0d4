// The size limits of PyTorch profiler traces (docs/limits.md: 256 MiB of JSON text, 4 GiB with
// --force), plain or gzip: read_maybe_gzip_file holds a plain file to the limit it is given, not
// to the 64 MiB of other input files, and names what lifts it.
#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <doctest/doctest.h>

#include "ckptsim/calibration/gzip_input.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

using namespace ckptsim;

namespace {

/// A file of `bytes` zero bytes (sparse: no disk is written) in a fresh folder, removed at the end.
class ZeroFile {
 public:
  explicit ZeroFile(std::uintmax_t bytes)
      : dir_(std::filesystem::temp_directory_path() / ("ckptsim-trace-limit-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "trace.json").string();
    { std::FILE* f = std::fopen(path_.c_str(), "w"); REQUIRE(f != nullptr); std::fclose(f); }
    std::filesystem::resize_file(path_, bytes);
  }
  ~ZeroFile() { std::filesystem::remove_all(dir_); }
  ZeroFile(const ZeroFile&) = delete;
  ZeroFile& operator=(const ZeroFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

}  // namespace

TEST_CASE("a plain trace above 64 MiB is read up to the trace's own limit") {
  // 64 MiB + 1 byte: above the generic input limit (kMaxInputFileBytes), below a trace's 256 MiB.
  const ZeroFile file(kMaxInputFileBytes + 1);
  const std::string text = read_maybe_gzip_file(file.path(), "a PyTorch profiler trace", std::size_t{256} << 20);
  CHECK(text.size() == kMaxInputFileBytes + 1);
  // The text's buffer is the file's size (+1 for the terminator), not a doubled one.
  CHECK(text.capacity() <= kMaxInputFileBytes + 16);
}

TEST_CASE("a plain trace above its limit is refused with its size and what lifts the limit") {
  // 3 MiB against a 2 MiB limit: refused before reading, naming both sizes and the note.
  const ZeroFile file(std::size_t{3} << 20);
  try {
    (void)read_maybe_gzip_file(file.path(), "a PyTorch profiler trace", std::size_t{2} << 20, "--force reads up to 4 GiB");
    FAIL("a 3 MiB file was read under a 2 MiB limit");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].expected == "a PyTorch profiler trace of at most 2 MiB");
    CHECK(e.problems()[0].found == "a file of 3 MiB (--force reads up to 4 GiB)");
  }
}
