// Atomic, never-following writes of result files (see output_file.hpp for the rules).
#include "ckptsim/output/output_file.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {
namespace {

[[noreturn]] void fail(const std::string& path, int error, std::string_view doing = "cannot write") {
  throw IoError(fmt::format("{} {}: {}", doing, path, std::strerror(error)));
}

/// write(2) until everything is written; returns 0 or the errno of the failure.
int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

/// The descriptor (1 or 2) whose file is `st`, or -1.
int standard_stream_for(const struct stat& st) {
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat s {};
    if (::fstat(fd, &s) == 0 && s.st_dev == st.st_dev && s.st_ino == st.st_ino) return fd;
  }
  return -1;
}

void write_in_place(const std::string& path, std::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) fail(path, errno);
  const int error = write_all(fd, contents);
  const int close_error = ::close(fd) == 0 ? 0 : errno;
  if (error != 0) fail(path, error);
  if (close_error != 0) fail(path, close_error);
}

/// A temporary file created exclusively next to its target; removed unless committed.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target) {
    const auto slash = target.rfind('/');
    folder_ = slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
    const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
    std::random_device entropy;
    // A clash (or a file an attacker placed at a guessed name) only costs another try.
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::uint64_t tag = (std::uint64_t{entropy()} << 32) ^ entropy();
      name_ = fmt::format("{}/.{}.tmp-{}-{:016x}", folder_, base, ::getpid(), tag);
      fd_ = ::open(name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd_ >= 0) return;
      if (errno != EEXIST) fail(folder_, errno, "cannot create a temporary file in");
    }
    fail(folder_, EEXIST, "cannot create a temporary file in");
  }
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(name_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::string& folder() const { return folder_; }

  /// Closes the file (reporting a deferred write error) and renames it over `target`.
  void commit(const std::string& target) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(target, errno);
    if (::rename(name_.c_str(), target.c_str()) != 0) fail(target, errno);
    committed_ = true;
  }

 private:
  std::string folder_;
  std::string name_;
  int fd_ = -1;
  bool committed_ = false;
};

/// A file written to its temporary and flushed, waiting to be renamed over its target.
struct StagedFile {
  std::string target;
  std::unique_ptr<TemporaryFile> tmp;
};

StagedFile stage(const std::string& target, std::string_view contents, const struct stat* existing) {
  StagedFile f{target, std::make_unique<TemporaryFile>(target)};
  // Keep the permissions of a file being replaced (as an in-place rewrite would).
  if (existing != nullptr) (void)::fchmod(f.tmp->fd(), existing->st_mode & 07777);
  if (const int error = write_all(f.tmp->fd(), contents); error != 0) fail(target, error);
  if (::fsync(f.tmp->fd()) != 0) fail(target, errno);
  return f;
}

void commit(StagedFile& f) {
  f.tmp->commit(f.target);
  // Make the rename itself durable; a folder that cannot be synced loses nothing already written.
  const int dir = ::open(f.tmp->folder().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
}

/// The file a symlink finally names (so the link survives the replacement); the path itself
/// when it is no symlink or a dangling one.
std::string final_target(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return path;
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
}

}  // namespace

void write_output_file(const std::string& path, std::string_view contents) { write_output_files({{path, contents}}); }

void write_output_files(const std::vector<OutputText>& outputs) {
  // Every regular (or new) file is staged first; then what is written in place (devices, FIFOs,
  // the process's own stdout/stderr); the renames come last, once every write has succeeded.
  std::vector<StagedFile> staged;
  std::vector<const OutputText*> in_place;
  for (const OutputText& o : outputs) {
    if (o.path.empty()) fail("\"\"", ENOENT);
    struct stat st {};
    if (::stat(o.path.c_str(), &st) != 0) {
      if (errno != ENOENT) fail(o.path, errno);
      staged.push_back(stage(final_target(o.path), o.contents, nullptr));
    } else if (S_ISDIR(st.st_mode)) {
      fail(o.path, EISDIR);
    } else if (!S_ISREG(st.st_mode) || standard_stream_for(st) >= 0) {
      in_place.push_back(&o);
    } else {
      staged.push_back(stage(final_target(o.path), o.contents, &st));
    }
  }
  for (const OutputText* o : in_place) {
    struct stat st {};
    if (::stat(o->path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (const int error = write_all(standard_stream_for(st), o->contents); error != 0) fail(o->path, error);
    } else {
      write_in_place(o->path, o->contents);
    }
  }
  for (StagedFile& f : staged) commit(f);
}

void check_output_writable(const std::string& path) {
  if (path.empty()) fail("\"\"", ENOENT);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(path, errno);
  } else if (S_ISDIR(st.st_mode)) {
    fail(path, EISDIR);
  } else if (!S_ISREG(st.st_mode) || standard_stream_for(st) >= 0) {
    return;  // written in place or through the stream, as write_output_file does
  }
  // The first step of replace_atomically; the probe is removed when it goes out of scope.
  const TemporaryFile probe(final_target(path));
}

void refuse_output_over_inputs(const std::string& option, const std::string& output,
                               const std::vector<std::string>& inputs) {
  struct stat out {};
  if (output.empty() || ::stat(output.c_str(), &out) != 0) return;
  for (const std::string& input : inputs) {
    struct stat in {};
    if (input.empty() || ::stat(input.c_str(), &in) != 0) continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
      throw InputError("<command line>", option, "an output file that is not one of the inputs",
                       fmt::format("\"{}\", the same file as the input \"{}\"", output, input));
    }
  }
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  // Made absolute first: weakly_canonical leaves a relative path none of whose parts exists
  // relative ("X"), while "./X" starts with a part that exists and becomes "/cwd/X".
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ea), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, eb), eb);
  return !ea && !eb && ca.lexically_normal() == cb.lexically_normal();
}

}  // namespace

void refuse_outputs_sharing_a_file(const std::vector<OutputOption>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const OutputOption& a = outputs[i];
      const OutputOption& b = outputs[j];
      if (a.path.empty() || b.path.empty() || a.path == "-" || b.path == "-" || !same_file(a.path, b.path)) continue;
      throw InputError("<command line>", b.option, fmt::format("a file that {} does not write too", a.option),
                       fmt::format("\"{}\", the same file as {} \"{}\"", b.path, a.option, a.path));
    }
}

}  // namespace ckptsim
