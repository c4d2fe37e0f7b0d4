// write_output_file / check_output_writable / refuse_output_over_inputs: atomic replacement,
// devices written in place, symlinks never followed at the temporary name, errors with the errno
// text, no temporary left, the write's refusals known before the work.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/output/output_file.hpp"

using namespace ckptsim;
namespace fs = std::filesystem;

namespace {

/// A fresh folder under the system temporary folder, removed with everything in it.
struct ScratchFolder {
  fs::path path;
  ScratchFolder() {
    std::string pattern = (fs::temp_directory_path() / "ckptsim-output-test-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~ScratchFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  [[nodiscard]] std::string at(const std::string& name) const { return (path / name).string(); }
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// The IoError message `action` throws, or "" when it does not throw.
template <class Action>
std::string io_error_in(Action&& action) {
  try {
    action();
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

/// The IoError message of write_output_file(path, text), or "" when it did not throw.
std::string io_error_of(const std::string& path, const std::string& text) {
  return io_error_in([&] { write_output_file(path, text); });
}

/// The IoError message of check_output_writable(path), or "" when it did not throw.
std::string probe_error_of(const std::string& path) {
  return io_error_in([&] { check_output_writable(path); });
}

}  // namespace

TEST_CASE("write_output_file creates the file and leaves no temporary behind") {
  ScratchFolder dir;
  write_output_file(dir.at("out.json"), "{\"a\": 1}\n");
  CHECK(read_all(dir.at("out.json")) == "{\"a\": 1}\n");
  CHECK(dir.names() == std::vector<std::string>{"out.json"});
}

TEST_CASE("write_output_file replaces an existing file by rename, never rewriting it in place") {
  // A second hard link to the old file keeps the old bytes only if the new contents went to a
  // new inode renamed over the name (an in-place rewrite would change both names).
  ScratchFolder dir;
  put(dir.at("out.json"), "old");
  REQUIRE(::link(dir.at("out.json").c_str(), dir.at("other-name").c_str()) == 0);
  write_output_file(dir.at("out.json"), "new");
  CHECK(read_all(dir.at("out.json")) == "new");
  CHECK(read_all(dir.at("other-name")) == "old");
  CHECK(dir.names() == std::vector<std::string>{"other-name", "out.json"});
}

TEST_CASE("write_output_file never follows a symlink placed at the old temporary name") {
  // Before, the report went to "<target>.tmp" opened without O_EXCL: a symlink there sent the
  // bytes into whatever it pointed at.
  ScratchFolder dir;
  put(dir.at("victim"), "precious");
  fs::create_symlink(dir.at("victim"), dir.at("out.json.tmp"));
  write_output_file(dir.at("out.json"), "report");
  CHECK(read_all(dir.at("victim")) == "precious");
  CHECK(fs::is_symlink(dir.at("out.json.tmp")));
  CHECK(read_all(dir.at("out.json")) == "report");
  CHECK(dir.names() == std::vector<std::string>{"out.json", "out.json.tmp", "victim"});
}

TEST_CASE("write_output_file through a symlink to a regular file replaces the file and keeps the link") {
  ScratchFolder dir;
  put(dir.at("real.json"), "old");
  fs::create_symlink("real.json", dir.at("link.json"));
  write_output_file(dir.at("link.json"), "new");
  CHECK(fs::is_symlink(dir.at("link.json")));
  CHECK(read_all(dir.at("real.json")) == "new");
  CHECK(dir.names() == std::vector<std::string>{"link.json", "real.json"});
}

TEST_CASE("write_output_file writes devices in place and reports a full device") {
  write_output_file("/dev/null", "discarded");
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));  // still the device, even when the tests run as root
  // /dev/full fails every write with ENOSPC, whose strerror text is this:
  CHECK(io_error_of("/dev/full", "x") == "cannot write /dev/full: No space left on device");
  REQUIRE(::stat("/dev/full", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("write_output_file refuses a directory and a folder that cannot exist") {
  ScratchFolder dir;
  CHECK(io_error_of(dir.path.string(), "x") == "cannot write " + dir.path.string() + ": Is a directory");
  // A path below a regular file can never be created, whoever runs the test (root included).
  put(dir.at("plain"), "");
  CHECK(io_error_of(dir.at("plain/out.json"), "x") == "cannot write " + dir.at("plain/out.json") + ": Not a directory");
  CHECK(dir.names() == std::vector<std::string>{"plain"});
}

TEST_CASE("check_output_writable refuses, before any work, what the write would refuse, with its message") {
  // Each refusal is compared with the error the write itself gives for the same path.
  ScratchFolder dir;
  put(dir.at("plain"), "");
  for (const std::string& path : {dir.path.string(), dir.at("plain/out.json"), dir.at("missing/out.json")}) {
    CAPTURE(path);
    const std::string expected = io_error_of(path, "x");
    REQUIRE(!expected.empty());
    CHECK(probe_error_of(path) == expected);
  }
  CHECK(dir.names() == std::vector<std::string>{"plain"});
}

TEST_CASE("check_output_writable accepts a new file, an existing one and a device, and leaves each as it was") {
  ScratchFolder dir;
  put(dir.at("old.json"), "the previous report");
  CHECK(probe_error_of(dir.at("new.json")).empty());
  CHECK(probe_error_of(dir.at("old.json")).empty());
  CHECK(probe_error_of("/dev/null").empty());
  // The probe's temporary file is gone, no new file exists and the old one kept its bytes.
  CHECK(dir.names() == std::vector<std::string>{"old.json"});
  CHECK(read_all(dir.at("old.json")) == "the previous report");
}

TEST_CASE("write_output_file removes its temporary file and keeps the old target when a write fails") {
  // RLIMIT_FSIZE makes write(2) fail with EFBIG past 16 bytes (SIGXFSZ ignored), even for root:
  // the failure happens after the temporary file exists, so its removal is what is checked.
  ScratchFolder dir;
  put(dir.at("out.json"), "the previous report");
  struct rlimit old {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 16;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const std::string error = io_error_of(dir.at("out.json"), std::string(100, 'x'));
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  CHECK(error == "cannot write " + dir.at("out.json") + ": File too large");
  CHECK(read_all(dir.at("out.json")) == "the previous report");
  CHECK(dir.names() == std::vector<std::string>{"out.json"});
}

TEST_CASE("refuse_output_over_inputs compares files, not spellings") {
  ScratchFolder dir;
  put(dir.at("in.json"), "{}");
  fs::create_symlink("in.json", dir.at("alias.json"));
  // Same inode through a symlink: refused, naming the option and both paths.
  try {
    refuse_output_over_inputs("--output", dir.at("alias.json"), {dir.at("in.json")});
    FAIL("no InputError");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].pointer == "--output");
    CHECK(e.problems()[0].found.find("the same file as the input") != std::string::npos);
  }
  // A different file, a file that does not exist yet and an empty input list are fine.
  put(dir.at("other.json"), "{}");
  CHECK_NOTHROW(refuse_output_over_inputs("--output", dir.at("other.json"), {dir.at("in.json")}));
  CHECK_NOTHROW(refuse_output_over_inputs("--output", dir.at("new.json"), {dir.at("in.json")}));
  CHECK_NOTHROW(refuse_output_over_inputs("--output", dir.at("in.json"), {}));
}

TEST_CASE("two outputs of one command naming the same file are refused, existing or not") {
  const fs::path dir = fs::temp_directory_path() / ("ckptsim-two-outputs-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string a = (dir / "out.json").string();
  const std::string b = (dir / "." / "out.json").string();  // the same file, spelled differently
  try {
    refuse_outputs_sharing_a_file({{"--trace", a}, {"--write-profile", b}});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.problems().front().pointer == "--write-profile");
  }
  { std::ofstream(a) << "x"; }  // existing: compared by device and inode
  CHECK_THROWS_AS(refuse_outputs_sharing_a_file({{"--trace", a}, {"--write-profile", b}}), InputError);
  CHECK_NOTHROW(refuse_outputs_sharing_a_file({{"--trace", a}, {"--write-profile", (dir / "other.json").string()}}));
  CHECK_NOTHROW(refuse_outputs_sharing_a_file({{"--trace", a}, {"--write-profile", ""}}));  // not given
  fs::remove_all(dir);
}
