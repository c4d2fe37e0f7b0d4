#pragma once
// Guarded JSON input for sweeps (spec files, base scenarios, shard results): regular files of at
// most 16 MiB, then core/input_file.hpp's parser (one document, nesting at most 64 levels, each
// key once per object, numbers within a double). Problems are InputError naming the file.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ckptsim::sweep {

inline constexpr std::uintmax_t kMaxJsonFileBytes = 16u * 1024u * 1024u;

/// `what` describes the file in problems ("sweep spec", "base scenario").
nlohmann::json read_json_file(const std::string& path, const std::string& what);
nlohmann::json parse_json_text(const std::string& text, const std::string& label, const std::string& what);

}  // namespace ckptsim::sweep
