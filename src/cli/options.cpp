#include "ckptsim/cli/options.hpp"

#include <algorithm>
#include <ostream>
#include <thread>

#include <fmt/format.h>

namespace ckptsim::cli {

namespace po = boost::program_options;

std::optional<po::variables_map> parse_command_options(const CommandContext& ctx,
                                                       const po::options_description& visible,
                                                       const char* positional_name, std::string* positional_value) {
  po::options_description all;
  all.add(visible);
  po::options_description hidden;
  po::positional_options_description positional;
  if (positional_name != nullptr) {
    hidden.add_options()(positional_name, po::value<std::string>(positional_value));
    all.add(hidden);
    positional.add(positional_name, 1);
  }
  po::variables_map vm;
  po::store(po::command_line_parser(ctx.args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    ctx.out << visible << '\n';
    return std::nullopt;
  }
  po::notify(vm);
  return vm;
}

int resolve_jobs(int jobs) {
  if (jobs < 0 || jobs > kMaxJobs)
    throw UsageError(fmt::format("--jobs expects 0 (all cores) to {}, found {}", kMaxJobs, jobs));
  if (jobs == 0) return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, unsigned(kMaxJobs)));
  return jobs;
}

}  // namespace ckptsim::cli
