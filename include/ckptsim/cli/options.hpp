#pragma once
// Command-line parsing shared by the subcommands (Boost.Program_options).
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {

/// Parses ctx.args against `visible`, plus one positional argument named `positional_name`
/// (nullptr: none) stored in `*positional_value`. Returns nullopt after printing `visible` as
/// help when --help/-h was given (`visible` must declare "help,h"); throws on bad usage.
std::optional<boost::program_options::variables_map> parse_command_options(
    const CommandContext& ctx, const boost::program_options::options_description& visible,
    const char* positional_name = nullptr, std::string* positional_value = nullptr);

/// What parse_files_options returns: the options, and every positional argument in order.
struct ParsedFileOptions {
  boost::program_options::variables_map vm;
  std::vector<std::string> files;
};

/// Parses `args` (ctx.args, or the words after a subcommand's own word, as `import nccl-tests
/// FILE...`) against `visible`, taking the positional arguments as files: any number, or at most
/// `max_files` (more is a usage error). Returns nullopt after printing `visible` as help when
/// --help/-h was given (`visible` must declare "help,h"); throws on bad usage. The files may be
/// fewer than the command needs: it says what it expects.
std::optional<ParsedFileOptions> parse_files_options(const CommandContext& ctx, const std::vector<std::string>& args,
                                                     const boost::program_options::options_description& visible,
                                                     int max_files = -1);

/// The most worker threads --jobs may ask for (docs/limits.md): beyond the cores they only
/// cost memory and start-up time, and a huge count exhausts the process's thread limit.
inline constexpr int kMaxJobs = 256;
inline constexpr const char* kJobsHelp = "worker threads: 0 = all cores, at most 256; the output is identical for every value";

/// --jobs as given (0 = all cores) -> the thread count; UsageError outside 0..kMaxJobs.
int resolve_jobs(int jobs);

/// An option's value through a unit parser of scenario/units.hpp (parse_fraction, parse_bytes,
/// parse_duration...): UsageError "OPTION expects <what the parser expects>, found \"TEXT\""
/// when it is refused, so every unit option names itself and the value given.
template <typename Parse>
auto parse_unit_option(const std::string& option, const std::string& text, Parse parse) -> decltype(parse(text)) {
  try {
    return parse(text);
  } catch (const UnitError& e) {
    throw UsageError(option + " expects " + e.what() + ", found \"" + text + "\"");
  }
}

}  // namespace ckptsim::cli
