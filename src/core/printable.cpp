// printable() of printable.hpp.
#include "ckptsim/core/printable.hpp"

#include <fmt/format.h>

namespace ckptsim {

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  const std::size_t shown = std::min(text.size(), max_bytes);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  if (shown < text.size()) out += fmt::format("... ({} bytes in all)", text.size());
  return out;
}

}  // namespace ckptsim
