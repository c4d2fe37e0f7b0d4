#pragma once
// Errors (DESIGN.md, "Input errors"; STYLE.md habit 6).
//
// Bad input is an InputError carrying every Problem found: the file, the JSON pointer, what was
// expected and what was found. The CLI prints them all and exits with code 2. Broken invariants
// are assertions; simulated failures are ordinary domain events, never exceptions.
#include <stdexcept>
#include <string>
#include <vector>

namespace ckptsim {

struct Problem {
  std::string file;      ///< path as given by the user, or "<command line>"
  std::string pointer;   ///< RFC 6901 JSON pointer, "" for the whole document
  std::string expected;  ///< what a valid input holds there
  std::string found;     ///< what the input holds there
};

/// "file: /pointer: expected X, found Y"
std::string format_problem(const Problem& p);

class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Problem> problems);
  InputError(std::string file, std::string pointer, std::string expected, std::string found);
  [[nodiscard]] const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::vector<Problem> problems_;
};

/// Collects problems while a loader walks a document, then throws them all at once.
class ProblemList {
 public:
  explicit ProblemList(std::string file) : file_(std::move(file)) {}
  void add(std::string pointer, std::string expected, std::string found);
  [[nodiscard]] bool empty() const { return problems_.empty(); }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::vector<Problem>& problems() const { return problems_; }
  /// Throws InputError when any problem was recorded.
  void throw_if_any() const;

 private:
  std::string file_;
  std::vector<Problem> problems_;
};

}  // namespace ckptsim
