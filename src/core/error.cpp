#include "ckptsim/core/error.hpp"

#include <fmt/format.h>

#include "ckptsim/core/printable.hpp"

namespace ckptsim {

std::string format_problem(const Problem& p) {
  // Inputs may hold control characters or megabytes in one value: printed escaped and cut short.
  return fmt::format("{}: {}: expected {}, found {}", printable(p.file), p.pointer.empty() ? "/" : printable(p.pointer),
                     printable(p.expected, 2000), printable(p.found));
}

namespace {
std::string join_problems(const std::vector<Problem>& problems) {
  std::string out;
  for (const auto& p : problems) {
    if (!out.empty()) out += '\n';
    out += format_problem(p);
  }
  return out;
}
}  // namespace

InputError::InputError(std::vector<Problem> problems)
    : std::runtime_error(join_problems(problems)), problems_(std::move(problems)) {}

InputError::InputError(std::string file, std::string pointer, std::string expected, std::string found)
    : InputError(std::vector<Problem>{Problem{std::move(file), std::move(pointer), std::move(expected), std::move(found)}}) {}

void ProblemList::add(std::string pointer, std::string expected, std::string found) {
  problems_.push_back(Problem{file_, std::move(pointer), std::move(expected), std::move(found)});
}

void ProblemList::throw_if_any() const {
  if (!problems_.empty()) throw InputError(problems_);
}

}  // namespace ckptsim
