// Guarded reading of input files and JSON documents (input_file.hpp).
#include "ckptsim/core/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {
namespace {

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

/// Closes a descriptor when the read ends, however it ends.
struct Descriptor {
  explicit Descriptor(int descriptor) : fd(descriptor) {}
  int fd;
  ~Descriptor() { ::close(fd); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
};

/// "64 MiB", "4 GiB", "1.5 KiB".
std::string size_text(std::size_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (std::size_t{1} << 30)) return fmt::format("{:.3g} GiB", b / (1 << 30));
  if (bytes >= (std::size_t{1} << 20)) return fmt::format("{:.3g} MiB", b / (1 << 20));
  return fmt::format("{:.3g} KiB", b / 1024);
}

std::string errno_reason(int error) {
  if (error == ENOENT) return "no such file";
  if (error == ELOOP) return "a symbolic link loop (too many levels of symbolic links)";
  return std::strerror(error);
}

struct Position {
  std::size_t line = 1, column = 1;
};

Position position_of(std::string_view text, std::size_t offset) {
  Position p;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

/// Refuses nesting deeper than kMaxJsonDepth in one linear pass (strings are skipped), before
/// the recursive parser sees the text.
void check_depth_and_bytes(std::string_view text, const std::string& file) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0') {
      const Position p = position_of(text, i);
      throw InputError(file, "", "JSON text (a NUL byte is never valid JSON)",
                       fmt::format("a NUL byte at line {}, column {}", p.line, p.column));
    }
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        const Position p = position_of(text, i);
        throw InputError(file, "", fmt::format("JSON nested at most {} levels deep", kMaxJsonDepth),
                         fmt::format("deeper nesting at line {}, column {}", p.line, p.column));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

/// Follows the parser to know the JSON pointer being read, and finds keys written twice.
class PathTracker {
 public:
  bool observe(nlohmann::json::parse_event_t event, const nlohmann::json& value) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        frames_.push_back({frames_.empty() ? std::string() : current(), event == E::array_start, {}, false, 0, {}});
        break;
      case E::object_end:
      case E::array_end:
        if (!frames_.empty()) frames_.pop_back();
        element_done();
        document_done_ = frames_.empty();
        break;
      case E::key:
        if (!frames_.empty() && value.is_string()) {
          Frame& f = frames_.back();
          f.key = escape_json_pointer_token(value.get<std::string>());
          f.has_key = true;
          if (!f.keys.insert(f.key).second) duplicates_.push_back(f.path + "/" + f.key);
        }
        break;
      case E::value:
        element_done();
        document_done_ = frames_.empty();
        break;
    }
    return true;
  }
  /// Pointer of the value being read now ("" at the top level).
  [[nodiscard]] std::string current() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    if (f.is_array) return f.path + "/" + std::to_string(f.next_index);
    return f.has_key ? f.path + "/" + f.key : f.path;
  }
  /// True once the top-level value was read completely.
  [[nodiscard]] bool document_done() const { return document_done_; }
  [[nodiscard]] std::vector<std::string> take_duplicates() { return std::move(duplicates_); }

 private:
  struct Frame {
    std::string path;
    bool is_array;
    std::string key;
    bool has_key;
    long next_index;
    std::set<std::string> keys;
  };
  void element_done() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().next_index;
  }
  std::vector<Frame> frames_;
  std::vector<std::string> duplicates_;
  bool document_done_ = false;
};

/// "syntax error while parsing value - invalid literal; last read: 'tru'" -> its parts.
std::pair<std::string, std::string> describe_syntax_error(const std::string& what) {
  std::string message = what;
  if (!message.empty() && message.front() == '[') {
    const auto end = message.find("] ");
    if (end != std::string::npos) message.erase(0, end + 2);
  }
  const auto dash = message.find(" - ");
  if (dash != std::string::npos) message.erase(0, dash + 3);
  std::string expected = "valid JSON";
  const auto exp = message.find("; expected ");
  if (exp != std::string::npos) {
    expected = "valid JSON: " + message.substr(exp + 2);
    message.erase(exp);
  }
  const auto last = message.find("; last read:");
  if (last != std::string::npos) message.erase(last);
  return {expected, message};
}

}  // namespace

std::string escape_json_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

bool json_pointer_within(std::string_view inner, std::string_view outer) {
  if (inner.substr(0, outer.size()) != outer) return false;
  return inner.size() == outer.size() || inner[outer.size()] == '/';
}

std::string read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  const auto too_large = [&](const std::string& found) {
    return InputError(path, "", fmt::format("{} of at most {}", what, size_text(max_bytes)), found);
  };
  // Opened without blocking (a FIFO with no writer would block open(2) itself), then checked on
  // the descriptor: what is read is what was checked, even if the path changes meanwhile.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int error = errno;
    struct stat info {};
    if (error != ENOENT && error != ELOOP && ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
      throw InputError(path, "", std::string(what) + " (a regular file)", file_kind(info.st_mode));
    throw InputError(path, "", std::string(what), errno_reason(error));
  }
  const Descriptor guard{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw InputError(path, "", std::string(what), errno_reason(errno));
  if (!S_ISREG(info.st_mode)) throw InputError(path, "", std::string(what) + " (a regular file)", file_kind(info.st_mode));
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size > max_bytes) throw too_large(fmt::format("a file of {}", size_text(size)));
  // Read in blocks into a string sized from fstat (not the limit: zero-filling 64 MiB for every
  // file read cost more than the parse), still refusing a file that grew past the limit.
  std::string text;
  text.reserve(size + 1);
  std::array<char, 1 << 16> block{};
  for (;;) {
    const ssize_t n = ::read(fd, block.data(), block.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path, "", std::string(what), "a file that cannot be read: " + errno_reason(errno));
    if (n == 0) break;
    text.append(block.data(), static_cast<std::size_t>(n));
    if (text.size() > max_bytes) throw too_large("a larger file (it grew while being read)");
  }
  return text;
}

std::string_view strip_utf8_bom(std::string_view text) {
  if (text.substr(0, 3) == kUtf8Bom) text.remove_prefix(3);
  return text;
}

std::string_view strip_utf8_bom(std::string_view text, const std::string& file) {
  text = strip_utf8_bom(text);
  if (text.substr(0, 3) == kUtf8Bom)
    throw InputError(file, "", "at most one UTF-8 byte-order mark (EF BB BF) before the text",
                     "a second byte-order mark (the file was most likely converted twice)");
  return text;
}

JsonDocument parse_json_document(std::string_view text, const std::string& file) {
  text = strip_utf8_bom(text, file);
  check_depth_and_bytes(text, file);
  PathTracker tracker;
  JsonDocument doc;
  try {
    doc.value = nlohmann::json::parse(text, [&tracker](int, nlohmann::json::parse_event_t event, nlohmann::json& value) {
      return tracker.observe(event, value);
    });
  } catch (const nlohmann::json::parse_error& e) {
    const Position p = position_of(text, e.byte > 0 ? e.byte - 1 : 0);
    if (tracker.document_done())
      throw InputError(file, "", "nothing after the JSON document",
                       fmt::format("more text at line {}, column {}", p.line, p.column));
    auto [expected, found] = describe_syntax_error(e.what());
    throw InputError(file, tracker.current(), expected,
                     fmt::format("{} (line {}, column {})", found, p.line, p.column));
  } catch (const nlohmann::json::out_of_range&) {
    throw InputError(file, tracker.current(), "a number within the range of a double (magnitude below 1.8e308)",
                     "a number out of range");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, tracker.current(), "valid JSON", describe_syntax_error(e.what()).second);
  }
  doc.duplicate_keys = tracker.take_duplicates();
  return doc;
}

nlohmann::json parse_json_strict(std::string_view text, const std::string& file) {
  JsonDocument doc = parse_json_document(text, file);
  if (!doc.duplicate_keys.empty()) {
    std::vector<Problem> problems;
    for (const std::string& pointer : doc.duplicate_keys)
      problems.push_back({file, pointer, "each key once per object", "the key written more than once"});
    throw InputError(std::move(problems));
  }
  return std::move(doc.value);
}

nlohmann::json read_json_file(const std::string& path, std::string_view what) {
  return parse_json_strict(read_input_file(path, what), path);
}

}  // namespace ckptsim
