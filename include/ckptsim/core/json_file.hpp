// Guarded JSON file reading (replay plans, measured timelines): regular files only, a size
// limit, a nesting-depth limit, no trailing bytes; problems as InputError naming the file.
#pragma once
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace ckptsim {

inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{256} << 20;  // 256 MiB
inline constexpr int kMaxJsonDepth = 32;

nlohmann::json read_json_file(const std::string& path);

}  // namespace ckptsim
