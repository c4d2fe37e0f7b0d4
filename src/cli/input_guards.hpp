#pragma once
// Guards of the command line's file arguments shared by calibrate, validate and import.
#include <string>
#include <vector>

namespace ckptsim::cli {

/// Throws UsageError when two of `files` are the same file (same device and inode, whatever the
/// spelling: a path and a symlink to it, "a.json" and "./a.json"); measurements counted twice
/// would weigh a fit. Files that do not exist are left to the readers.
void refuse_repeated_inputs(const std::string& what, const std::vector<std::string>& files);

}  // namespace ckptsim::cli
