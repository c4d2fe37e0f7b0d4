#include "input_guards.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

void refuse_repeated_inputs(const std::string& what, const std::vector<std::string>& files) {
  std::vector<struct stat> seen(files.size());
  std::vector<char> ok(files.size(), 0);
  for (std::size_t i = 0; i < files.size(); ++i) {
    ok[i] = ::stat(files[i].c_str(), &seen[i]) == 0;
    for (std::size_t j = 0; ok[i] && j < i; ++j) {
      if (ok[j] && seen[i].st_dev == seen[j].st_dev && seen[i].st_ino == seen[j].st_ino) {
        throw UsageError(fmt::format("{} \"{}\" and \"{}\" are the same file: each measurement may be given once", what, files[j], files[i]));
      }
    }
  }
}

}  // namespace ckptsim::cli
