#pragma once
// Text from inputs made safe to print on a terminal (docs/limits.md, "Input files").
#include <cstddef>
#include <string>
#include <string_view>

namespace ckptsim {

/// `text` with control characters (bytes below 0x20 and 0x7f, e.g. ESC sequences) escaped as
/// \xNN, cut after `max_bytes` bytes with "... (N bytes in all)" appended.
std::string printable(std::string_view text, std::size_t max_bytes = 200);

}  // namespace ckptsim
