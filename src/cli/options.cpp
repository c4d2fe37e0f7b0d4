#include "ckptsim/cli/options.hpp"

#include <algorithm>
#include <ostream>
#include <string_view>
#include <thread>
#include <typeinfo>

#include <fmt/format.h>

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

/// The options that name a file or folder a command writes, in every command that has them.
constexpr const char* kOutputOptions[] = {"output", "trace", "write-profile", "kernels"};

/// An output option given an empty path ("-o \"\"") would be taken for one not given: refused.
/// (Only options that take a value: `compute --kernels` is a switch.)
void refuse_empty_output_paths(const po::variables_map& vm, const po::options_description& visible) {
  for (const char* name : kOutputOptions) {
    const po::option_description* option = visible.find_nothrow(name, false);
    if (option == nullptr || option->semantic()->max_tokens() == 0) continue;
    if (!vm.count(name) || vm[name].defaulted() || vm[name].value().type() != typeid(std::string)) continue;
    if (vm[name].as<std::string>().empty()) {
      throw UsageError(fmt::format("{}--{} expects a path to write, found an empty one (\"\")", std::string_view(name) == "output" ? "-o/" : "", name));
    }
  }
}

/// `args` against `visible` plus the hidden positional `hidden`; nullopt after printing help.
std::optional<po::variables_map> parse_with_positionals(const CommandContext& ctx, const std::vector<std::string>& args,
                                                        const po::options_description& visible,
                                                        const po::options_description& hidden,
                                                        const po::positional_options_description& positional) {
  po::options_description all;
  all.add(visible).add(hidden);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    ctx.out << visible << '\n';
    return std::nullopt;
  }
  po::notify(vm);
  refuse_empty_output_paths(vm, visible);
  return vm;
}

}  // namespace

std::optional<po::variables_map> parse_command_options(const CommandContext& ctx,
                                                       const po::options_description& visible,
                                                       const char* positional_name, std::string* positional_value) {
  po::options_description hidden;
  po::positional_options_description positional;
  if (positional_name != nullptr) {
    hidden.add_options()(positional_name, po::value<std::string>(positional_value));
    positional.add(positional_name, 1);
  }
  return parse_with_positionals(ctx, ctx.args, visible, hidden, positional);
}

std::optional<ParsedFileOptions> parse_files_options(const CommandContext& ctx, const std::vector<std::string>& args,
                                                     const po::options_description& visible, int max_files) {
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("files", max_files);
  auto vm = parse_with_positionals(ctx, args, visible, hidden, positional);
  if (!vm) return std::nullopt;
  ParsedFileOptions out{*vm, {}};
  if (out.vm.count("files")) out.files = out.vm["files"].as<std::vector<std::string>>();
  return out;
}

int resolve_jobs(int jobs) {
  if (jobs < 0 || jobs > kMaxJobs)
    throw UsageError(fmt::format("--jobs expects 0 (all cores) to {}, found {}", kMaxJobs, jobs));
  if (jobs == 0) return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, unsigned(kMaxJobs)));
  return jobs;
}

}  // namespace ckptsim::cli
