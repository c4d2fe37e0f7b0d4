// Sweep progress reporting (progress.hpp).
#include "ckptsim/sweep/progress.hpp"

#include <ostream>
#include <string>

#include <fmt/format.h>

namespace ckptsim::sweep {
namespace {

std::string eta_text(double seconds) {
  if (seconds < 0 || seconds > 1e7) return "--";
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace

Progress::Progress(std::ostream& out, bool terminal, std::int64_t total, std::int64_t already)
    : out_(out), terminal_(terminal), total_(total), already_(already),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {
  while (next_tenth_ <= 10 && already_ * 10 >= next_tenth_ * total_) ++next_tenth_;
}

void Progress::update(std::int64_t done) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done - already_) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : -1.0;
  if (terminal_) {
    if (done < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    constexpr int kWidth = 30;
    const auto filled = total_ > 0 ? static_cast<int>(kWidth * done / total_) : kWidth;
    out_ << fmt::format("\r[{}{}] {}/{} points  {:.0f}/s  ETA {}   ", std::string(static_cast<std::size_t>(filled), '#'),
                        std::string(static_cast<std::size_t>(kWidth - filled), '.'), done, total_, rate, eta_text(eta))
         << std::flush;
    return;
  }
  if (next_tenth_ > 10 || done * 10 < next_tenth_ * total_) return;
  while (next_tenth_ <= 10 && done * 10 >= next_tenth_ * total_) ++next_tenth_;
  out_ << fmt::format("sweep: {}% ({}/{} points, {:.0f}/s, ETA {})\n", (next_tenth_ - 1) * 10, done, total_, rate,
                      eta_text(eta));
}

void Progress::finish() {
  if (terminal_ && !finished_) out_ << '\n' << std::flush;
  finished_ = true;
}

}  // namespace ckptsim::sweep
