#pragma once
// Sweep progress on a stream (stderr): on a terminal a bar redrawn in place with points done,
// rate and ETA; otherwise one line per 10% of the points. Rates use the steady clock and only
// ever reach the progress stream, never a result file.
#include <chrono>
#include <cstdint>
#include <iosfwd>

namespace ckptsim::sweep {

class Progress {
 public:
  /// `total` points to do in this process, `already` of them done before it started (resume).
  Progress(std::ostream& out, bool terminal, std::int64_t total, std::int64_t already);
  /// Called with the number of points done so far (including `already`); not thread-safe.
  void update(std::int64_t done);
  void finish();

 private:
  std::ostream& out_;
  bool terminal_;
  std::int64_t total_;
  std::int64_t already_;
  std::int64_t next_tenth_ = 1;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool finished_ = false;
};

}  // namespace ckptsim::sweep
