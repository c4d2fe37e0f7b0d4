// Guarded reading of input files and JSON documents (input_file.hpp).
#include "ckptsim/core/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <istream>
#include <optional>
#include <streambuf>
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

/// nlohmann/json's id of "number overflow parsing '1e400'" (an out_of_range error).
constexpr int kNumberOverflowId = 406;

/// Closes a descriptor when the read ends, however it ends.
struct Descriptor {
  explicit Descriptor(int descriptor) : fd(descriptor) {}
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
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

/// Builds the document from the parser's SAX events while following the JSON pointer being read
/// and finding keys written twice, in time linear in the text. (nlohmann/json's callback parser,
/// used before, scans the parent container after every object it ends, looking for a discarded
/// element: an array of n objects cost n^2 / 2 steps, 17-28 s for 200,000 objects.)
/// The pointer is composed only when a message needs it: each open container keeps the array
/// index or the key being read in it.
class JsonDocumentBuilder {
 public:
  using json = nlohmann::json;

  explicit JsonDocumentBuilder(json& root, const JsonArrayFilter* filter = nullptr) : root_(root), filter_(filter) {}

  bool null() { return add(json(nullptr)); }
  bool boolean(bool v) { return add(json(v)); }
  bool number_integer(json::number_integer_t v) { return add(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return add(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t& /*text*/) { return add(json(v)); }
  bool string(json::string_t& v) { return add(json(std::move(v))); }
  bool binary(json::binary_t& v) { return add(json::binary(std::move(v))); }
  bool start_object(std::size_t /*elements*/) { return open(json::value_t::object); }
  bool start_array(std::size_t /*elements*/) { return open(json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    auto [it, inserted] = f.value->get_ref<json::object_t&>().emplace(std::move(k), nullptr);
    // Written twice: the last value stays, as nlohmann/json keeps it; the key is reported.
    if (!inserted) {
      std::string pointer = pointer_of_frames();
      pointer += '/';
      pointer += escape_json_pointer_token(it->first);
      duplicates_.push_back(std::move(pointer));
    }
    f.key = &it->first;
    f.slot = &it->second;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/, const nlohmann::json::exception& e) {
    error_ = ParseFailure{position, e.id, e.what()};
    return false;
  }

  /// Pointer of the value being read now ("" at the top level).
  [[nodiscard]] std::string current() const {
    if (frames_.empty()) return "";
    std::string out = pointer_of_frames();
    const Frame& f = frames_.back();
    if (f.key == nullptr && !f.is_array) return out;
    out += '/';
    out += selector(f);
    return out;
  }
  /// True once the top-level value was read completely.
  [[nodiscard]] bool document_done() const { return document_done_; }
  [[nodiscard]] std::vector<std::string> take_duplicates() { return std::move(duplicates_); }

  struct ParseFailure {
    std::size_t position;  ///< bytes read when the parser stopped
    int id;                ///< nlohmann/json's exception id (101 syntax, 406 number overflow, ...)
    std::string what;
  };
  [[nodiscard]] const std::optional<ParseFailure>& failure() const { return error_; }

 private:
  struct Frame {
    json* value;                       ///< the container being filled
    bool is_array;
    std::size_t next_index = 0;        ///< arrays: index of the element being read
    const std::string* key = nullptr;  ///< objects: the key being read (owned by the object)
    json* slot = nullptr;              ///< objects: where that key's value goes
    bool filtered = false;             ///< arrays: the one whose elements filter_ chooses
  };

  /// Where a value read now goes: the root, the end of an array, or the slot of the last key.
  json* place(json&& v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = frames_.back();
    if (f.is_array) {
      auto& array = f.value->get_ref<json::array_t&>();
      array.push_back(std::move(v));
      return &array.back();
    }
    *f.slot = std::move(v);
    return f.slot;
  }
  bool add(json&& v) {
    place(std::move(v));
    element_done();
    return true;
  }
  // A container's address stays valid while it is open: its parent array grows only after it
  // is closed, and std::map nodes never move.
  bool open(json::value_t type) {
    json* value = place(json(type));
    // The filtered array: the document itself, or the value of the top-level key filter_->key.
    const bool filtered = filter_ && type == json::value_t::array &&
                          (frames_.empty() || (frames_.size() == 1 && !frames_[0].is_array && frames_[0].key && *frames_[0].key == filter_->key));
    frames_.push_back({value, type == json::value_t::array});
    frames_.back().filtered = filtered;
    return true;
  }
  bool close() {
    // An object element of the filtered array, read completely: dropped (null) unless kept.
    if (frames_.size() >= 2 && frames_[frames_.size() - 2].filtered && frames_.back().value->is_object() &&
        !filter_->keep(*frames_.back().value)) {
      *frames_.back().value = nullptr;
    }
    frames_.pop_back();
    element_done();
    return true;
  }
  void element_done() {
    if (frames_.empty()) document_done_ = true;
    else if (frames_.back().is_array) ++frames_.back().next_index;
  }
  static std::string selector(const Frame& f) {
    return f.is_array ? std::to_string(f.next_index) : escape_json_pointer_token(*f.key);
  }
  /// Pointer of the innermost open container.
  [[nodiscard]] std::string pointer_of_frames() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      out += '/';
      out += selector(frames_[i]);
    }
    return out;
  }

  json& root_;
  const JsonArrayFilter* filter_;
  std::vector<Frame> frames_;
  std::vector<std::string> duplicates_;
  std::optional<ParseFailure> error_;
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

namespace {

InputError too_large_error(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit,
                           const std::string& found) {
  return InputError(path, "", fmt::format("{} of at most {}", what, size_text(max_bytes)),
                    beyond_limit.empty() ? found : fmt::format("{} ({})", found, beyond_limit));
}

/// The file opened and checked (header): its descriptor, the caller closes it; `size` its length.
int open_checked(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit,
                 std::size_t& size) {
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
  Descriptor guard{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw InputError(path, "", std::string(what), errno_reason(errno));
  if (!S_ISREG(info.st_mode)) throw InputError(path, "", std::string(what) + " (a regular file)", file_kind(info.st_mode));
  size = static_cast<std::size_t>(info.st_size);
  if (size > max_bytes) throw too_large_error(path, what, max_bytes, beyond_limit, fmt::format("a file of {}", size_text(size)));
  guard.fd = -1;  // the caller's now
  return fd;
}

}  // namespace

std::string read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit) {
  const auto too_large = [&](const std::string& found) { return too_large_error(path, what, max_bytes, beyond_limit, found); };
  std::size_t size = 0;
  const int fd = open_checked(path, what, max_bytes, beyond_limit, size);
  const Descriptor guard{fd};
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

namespace {

/// The parser stopped: the InputError for it (`position_at`: line and column of a text offset).
[[noreturn]] void throw_parse_failure(const JsonDocumentBuilder& builder, const std::string& file,
                                      const std::function<Position(std::size_t)>& position_at) {
  const JsonDocumentBuilder::ParseFailure failure = builder.failure().value_or(JsonDocumentBuilder::ParseFailure{0, 0, "valid JSON"});
  const Position p = position_at(failure.position > 0 ? failure.position - 1 : 0);
  if (failure.id == kNumberOverflowId) {
    throw InputError(file, builder.current(), "a number within the range of a double (magnitude below 1.8e308)",
                     "a number out of range");
  }
  if (builder.document_done())
    throw InputError(file, "", "nothing after the JSON document", fmt::format("more text at line {}, column {}", p.line, p.column));
  auto [expected, found] = describe_syntax_error(failure.what);
  throw InputError(file, builder.current(), expected, fmt::format("{} (line {}, column {})", found, p.line, p.column));
}

JsonDocument parse_json_filtered(std::string_view text, const std::string& file, const JsonArrayFilter* filter) {
  text = strip_utf8_bom(text, file);
  check_depth_and_bytes(text, file);
  JsonDocument doc;
  JsonDocumentBuilder builder(doc.value, filter);
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &builder))
    throw_parse_failure(builder, file, [&](std::size_t offset) { return position_of(text, offset); });
  doc.duplicate_keys = builder.take_duplicates();
  return doc;
}

/// A text read in chunks as a stream buffer for the parser (input_file.hpp, parse_json_strict
/// over TextChunks): each chunk is checked as it arrives, as check_depth_and_bytes checks a
/// whole text (nesting, NUL bytes), a leading byte-order mark is skipped, and the line and
/// column at the current chunk's start are kept so that a parse error's offset can be placed.
class ChunkedText final : public std::streambuf {
 public:
  ChunkedText(const TextChunks& chunks, const std::string& file) : chunks_(chunks), file_(file), buffer_(kChunk) {}

  /// Line and column of `offset` (bytes after the byte-order mark): exact inside the current
  /// chunk, where the parser stops; the chunk's start otherwise.
  [[nodiscard]] Position position_at(std::size_t offset) const {
    Position p = chunk_start_position_;
    if (offset < chunk_start_) return p;
    const std::size_t upto = std::min(offset - chunk_start_, chunk_size_);
    for (std::size_t i = 0; i < upto; ++i) {
      if (buffer_[i] == '\n') {
        ++p.line;
        p.column = 1;
      } else {
        ++p.column;
      }
    }
    return p;
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    std::size_t n = fill(0);
    if (first_) {
      first_ = false;
      // Enough bytes to see two byte-order marks, as strip_utf8_bom(text, file) does.
      while (n < 6) {
        const std::size_t more = fill(n);
        if (more == 0) break;
        n += more;
      }
      const std::string_view head(buffer_.data(), n);
      const std::string_view text = strip_utf8_bom(head, file_);
      const std::size_t skipped = head.size() - text.size();
      std::memmove(buffer_.data(), buffer_.data() + skipped, n - skipped);
      n -= skipped;
    }
    // At the end the last chunk stays, so that an error at its end is placed in it.
    if (n == 0) return traits_type::eof();
    chunk_start_ += chunk_size_;
    chunk_start_position_ = scan_position_;
    chunk_size_ = n;
    check(n);
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  static constexpr std::size_t kChunk = 1u << 20;

  std::size_t fill(std::size_t at) { return chunks_(buffer_.data() + at, buffer_.size() - at); }

  /// check_depth_and_bytes over the new chunk, its state carried from the chunks before.
  void check(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = buffer_[i];
      if (c == '\0')
        throw InputError(file_, "", "JSON text (a NUL byte is never valid JSON)",
                         fmt::format("a NUL byte at line {}, column {}", scan_position_.line, scan_position_.column));
      if (in_string_) {
        if (escaped_) escaped_ = false;
        else if (c == '\\') escaped_ = true;
        else if (c == '"') in_string_ = false;
      } else if (c == '"') {
        in_string_ = true;
      } else if (c == '[' || c == '{') {
        if (++depth_ > kMaxJsonDepth)
          throw InputError(file_, "", fmt::format("JSON nested at most {} levels deep", kMaxJsonDepth),
                           fmt::format("deeper nesting at line {}, column {}", scan_position_.line, scan_position_.column));
      } else if ((c == ']' || c == '}') && depth_ > 0) {
        --depth_;
      }
      if (c == '\n') {
        ++scan_position_.line;
        scan_position_.column = 1;
      } else {
        ++scan_position_.column;
      }
    }
  }

  const TextChunks& chunks_;
  const std::string& file_;
  std::vector<char> buffer_;
  bool first_ = true;
  std::size_t chunk_start_ = 0, chunk_size_ = 0;
  Position chunk_start_position_, scan_position_;
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
};

nlohmann::json strict_value(JsonDocument doc, const std::string& file) {
  if (!doc.duplicate_keys.empty()) {
    std::vector<Problem> problems;
    for (const std::string& pointer : doc.duplicate_keys)
      problems.push_back({file, pointer, "each key once per object", "the key written more than once"});
    throw InputError(std::move(problems));
  }
  return std::move(doc.value);
}

}  // namespace

JsonDocument parse_json_document(std::string_view text, const std::string& file) { return parse_json_filtered(text, file, nullptr); }

nlohmann::json parse_json_strict(std::string_view text, const std::string& file) {
  return strict_value(parse_json_filtered(text, file, nullptr), file);
}

nlohmann::json parse_json_strict(std::string_view text, const std::string& file, const JsonArrayFilter& filter) {
  return strict_value(parse_json_filtered(text, file, &filter), file);
}

nlohmann::json parse_json_strict(const TextChunks& chunks, const std::string& file, const JsonArrayFilter& filter) {
  ChunkedText text(chunks, file);
  std::istream stream(&text);
  JsonDocument doc;
  JsonDocumentBuilder builder(doc.value, &filter);
  if (!nlohmann::json::sax_parse(stream, &builder))
    throw_parse_failure(builder, file, [&](std::size_t offset) { return text.position_at(offset); });
  doc.duplicate_keys = builder.take_duplicates();
  return strict_value(std::move(doc), file);
}

InputFileBlocks::InputFileBlocks(const std::string& path, std::string_view what, std::size_t max_bytes, std::string_view beyond_limit)
    : path_(path), what_(what), beyond_limit_(beyond_limit), max_bytes_(max_bytes) {
  std::size_t size = 0;
  fd_ = open_checked(path, what, max_bytes, beyond_limit, size);
}

InputFileBlocks::~InputFileBlocks() { ::close(fd_); }

std::size_t InputFileBlocks::read(char* out, std::size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, out, n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(path_, "", what_, "a file that cannot be read: " + errno_reason(errno));
    read_ += static_cast<std::size_t>(got);
    if (read_ > max_bytes_)
      throw too_large_error(path_, what_, max_bytes_, beyond_limit_, "a larger file (it grew while being read)");
    return static_cast<std::size_t>(got);
  }
}

nlohmann::json read_json_file(const std::string& path, std::string_view what) {
  return parse_json_strict(read_input_file(path, what), path);
}

}  // namespace ckptsim
