#pragma once
// Errors (docs/architecture.md, "Errors and exit codes").
//
// The library throws typed errors; the CLI maps each type to an exit code:
//   InputError  bad input: every Problem found (file, JSON pointer, expected, found)  -> exit 2
//   LimitError  the work or memory an input asks for is beyond a documented limit     -> exit 2
//   ModelError  a model cannot answer for these parameters (names the parameter)       -> exit 2
//   IoError     reading or writing a file failed (names the file and the reason)        -> exit 1
// Anything else escaping to the CLI is an internal bug (exit 1). Broken invariants are
// assertions; simulated failures are ordinary domain events, never exceptions.
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

/// The work or memory an input asks for exceeds a stated limit. `what` names the input, the
/// estimate and the limit (and `--force` where one exists), e.g.
/// "placement --machines 1000000: the exact count needs ~17.5 GB, above the 2 GB limit".
class LimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A model cannot answer for parameters the user can reach. `parameter` names the input that
/// caused it (a JSON pointer or an option such as "--replicas").
class ModelError : public std::runtime_error {
 public:
  ModelError(std::string parameter, std::string message)
      : std::runtime_error(parameter + ": " + message), parameter_(std::move(parameter)), message_(std::move(message)) {}
  [[nodiscard]] const std::string& parameter() const { return parameter_; }
  /// The message without the parameter in front (what() is "parameter: message").
  [[nodiscard]] const std::string& message() const { return message_; }

 private:
  std::string parameter_;
  std::string message_;
};

/// Reading or writing a file failed; `what` names the file and the reason (errno text).
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ckptsim
