#pragma once
// Parsing `--vary POINTER=V1,V2,...` (ckptsim optimize) into the axes the optimizer searches
// (analysis/optimizer.hpp).
#include <string>
#include <vector>

#include "ckptsim/analysis/optimizer.hpp"

namespace ckptsim::cli {

/// Parses "POINTER=V1,V2,...". A value that parses as a JSON number, boolean or null (or a
/// quoted string) is written as such; anything else ("64MiB", "3h") as a string. Spaces around
/// the pointer and each value are dropped. Throws UsageError on a malformed spec: no '=', a
/// pointer that does not start with '/' or is not a valid JSON pointer, an empty value.
VaryAxis parse_vary_axis(const std::string& spec);

/// Throws UsageError when two --vary name the same pointer (the later would silently replace the
/// earlier) or a later one encloses an earlier one ("/strategy" after "/strategy/replicas").
void check_vary_axes(const std::vector<VaryAxis>& axes);

}  // namespace ckptsim::cli
