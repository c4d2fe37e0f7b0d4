// The sweep journal (journal.hpp).
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/sweep/journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/sweep/results.hpp"

namespace ckptsim::sweep {
namespace {

/// The JSON text of a line when its checksum matches, nullopt otherwise.
std::optional<nlohmann::json> checked_line(const std::string& line) {
  if (line.size() < 18 || line[16] != ' ') return std::nullopt;
  const std::string_view text(line.data() + 17, line.size() - 17);
  if (fmt::format("{:016x}", fnv1a_64(text)) != line.substr(0, 16)) return std::nullopt;
  try {
    return parse_json_strict(text, "journal line");  // depth-checked before parsing
  } catch (const InputError&) {
    return std::nullopt;
  }
}

void write_all(int fd, const std::string& bytes, const std::string& path) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError(fmt::format("{}: cannot write the sweep journal: {}", path, std::strerror(errno)));
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string journal_line(const nlohmann::json& value) {
  const std::string text = value.dump();
  return fmt::format("{:016x} {}\n", fnv1a_64(text), text);
}

JournalContents read_journal(const std::string& path) {
  JournalContents contents;
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0 && errno == ENOENT) return contents;  // no journal yet
  // The guarded reader (core/input_file.hpp): a FIFO or a link to /dev/zero is refused, never
  // waited on or read without end.
  const std::string bytes = read_input_file(path, "a sweep journal", kMaxSweepFileBytes);
  std::size_t start = 0;
  bool first = true;
  while (start < bytes.size()) {
    const auto end = bytes.find('\n', start);
    if (end == std::string::npos) {  // torn last line: its point is computed again
      ++contents.dropped_lines;
      break;
    }
    const std::string line = bytes.substr(start, end - start);
    const auto value = checked_line(line);
    const std::string line_text = line.size() > 17 ? line.substr(17) : std::string();
    start = end + 1;
    if (first) {
      first = false;
      if (value && value->is_object() && value->contains("ckptsim_sweep_journal")) {
        contents.header = *value;
        continue;
      }
    }
    try {
      if (!value) throw std::invalid_argument("bad checksum");
      PointRecord record = record_from_json(*value);
      record.text = line_text;
      contents.records.emplace(record.index, std::move(record));
    } catch (const std::invalid_argument&) {
      ++contents.dropped_lines;
    }
  }
  return contents;
}

JournalWriter::JournalWriter(const std::string& path, const nlohmann::json& header,
                             const std::map<std::int64_t, PointRecord>& records)
    : path_(path) {
  std::string text = journal_line(header);
  for (const auto& [index, record] : records)
    text += record.text.empty() ? journal_line(record_to_json(record))
                                : fmt::format("{:016x} {}\n", fnv1a_64(record.text), record.text);
  write_output_file(path, text);
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) throw IoError(fmt::format("{}: cannot open the sweep journal: {}", path, std::strerror(errno)));
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::append(PointRecord& record) {
  const std::string& text = record_text(record);
  write_all(fd_, fmt::format("{:016x} {}\n", fnv1a_64(text), text), path_);
}

}  // namespace ckptsim::sweep
