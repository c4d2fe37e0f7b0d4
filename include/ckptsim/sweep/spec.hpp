#pragma once
// Sweep specs: a base scenario, axes over JSON pointers into it, a mode, the command each point
// runs, the metrics kept and a seed (format: docs/sweep-format.md).
//
// The loader reports every problem of a spec at once (InputError naming the spec file and the
// JSON pointer inside the spec), like the scenario loader. Point scenarios are NOT validated
// here: an invalid point is recorded with its error when the sweep reaches it.
//
// Spec hash: 64-bit FNV-1a over the compact dump of the normalized spec (the base scenario
// inlined, axes expanded to their value lists or distributions), so a changed base file or axis
// changes the hash and `--resume` can refuse to mix two different sweeps.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckptsim::sweep {

enum class SweepMode { grid, zip, random };
enum class PointCommand { run, iteration, analyze, placement };

/// How a random-mode axis draws its value (axes with a value list draw one of the values).
struct Distribution {
  enum class Kind { uniform, log_uniform } kind = Kind::uniform;
  double low = 0;
  double high = 1;
  bool integer = false;   ///< round to the nearest integer (written as a JSON integer)
  std::string unit;       ///< when not empty the value is written as the string "<number><unit>"
};

struct Axis {
  std::string pointer;                    ///< RFC 6901 pointer into the scenario
  std::string name;                       ///< CSV column (default: the pointer without its first '/', '/' -> '.')
  std::vector<nlohmann::json> values;     ///< explicit or expanded range (grid, zip; random: choices)
  std::optional<Distribution> distribution;  ///< random mode only
};

struct Metric {
  std::string name;     ///< CSV column prefix
  std::string pointer;  ///< into the command's JSON result
};

struct SweepSpec {
  std::string file;                 ///< spec path as given ("" when built in code)
  nlohmann::json base;              ///< the base scenario document
  std::string base_label;           ///< names the base in point errors
  std::string base_dir;             ///< resolves relative paths inside the base (trace files)
  PointCommand command = PointCommand::run;
  SweepMode mode = SweepMode::grid;
  std::uint64_t seed = 1;
  std::int64_t count = 0;           ///< random mode: number of points
  std::vector<Axis> axes;
  std::vector<Metric> metrics;
  std::string hash;                 ///< 16 hex digits, see above
};

/// Reads and validates a spec file (regular file, at most 16 MiB, nesting at most 64 deep,
/// one JSON document, each key once). Throws InputError with every problem found.
SweepSpec load_sweep_spec_file(const std::string& path);

/// Validates a parsed spec; `file` names it in problems, `dir` resolves a relative base path.
SweepSpec load_sweep_spec_json(const nlohmann::json& doc, const std::string& file, const std::string& dir);

/// The metrics kept when a spec names none, per command.
std::vector<Metric> default_metrics(PointCommand command);

const char* command_name(PointCommand command);
/// The command named `name` ("run", "iteration", "analyze", "placement"), or nullopt.
std::optional<PointCommand> parse_point_command(const std::string& name);
const char* mode_name(SweepMode mode);

/// Points in the sweep: the product of the axis lengths (grid), their common length (zip), the
/// count (random). Grid counts above 100 million points are a LimitError when loading.
std::int64_t point_count(const SweepSpec& spec);

/// The normalized spec hashed into SweepSpec::hash (written into manifest.json).
nlohmann::json normalized_spec_json(const SweepSpec& spec);

}  // namespace ckptsim::sweep
