#pragma once
// A file of the source tree by its path from the repository root, for tests that read bundled
// scenarios, traces and fixtures (CKPTSIM_SOURCE_ROOT is set by tests/unit/meson.build).
#include <string>

namespace ckptsim::test {

inline std::string source_path(const std::string& relative) { return std::string(CKPTSIM_SOURCE_ROOT) + "/" + relative; }

}  // namespace ckptsim::test
