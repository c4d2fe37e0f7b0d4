// `--vary` parsing (cli/vary_axis.hpp).
#include "ckptsim/cli/vary_axis.hpp"

#include <nlohmann/json.hpp>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/core/input_file.hpp"

namespace ckptsim::cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

nlohmann::json parse_value(const std::string& text) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_discarded() && (parsed.is_number() || parsed.is_boolean() || parsed.is_null() || parsed.is_string()))
    return parsed;
  return nlohmann::json(text);
}

}  // namespace

VaryAxis parse_vary_axis(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos) throw UsageError("--vary expects POINTER=V1,V2,..., found \"" + spec + "\"");
  VaryAxis axis;
  axis.pointer = trim(spec.substr(0, eq));
  if (axis.pointer.empty() || axis.pointer.front() != '/')
    throw UsageError("--vary expects a JSON pointer starting with '/', found \"" + axis.pointer + "\"");
  try {
    (void)nlohmann::json::json_pointer(axis.pointer);
  } catch (const nlohmann::json::exception&) {
    throw UsageError("--vary: \"" + axis.pointer + "\" is not a valid JSON pointer");
  }
  const std::string rest = spec.substr(eq + 1);
  std::size_t start = 0;
  for (;;) {
    const auto comma = rest.find(',', start);
    const std::string item = trim(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw UsageError("--vary " + axis.pointer + ": empty value in \"" + rest + "\"");
    axis.values.push_back(parse_value(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return axis;
}

void check_vary_axes(const std::vector<VaryAxis>& axes) {
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      if (axes[i].pointer == axes[j].pointer)
        throw UsageError("--vary " + axes[i].pointer + " is given twice: give all its values in one --vary " +
                         axes[i].pointer + "=V1,V2,...");
      // Values are written in order: a later pointer enclosing an earlier one would replace it.
      if (json_pointer_within(axes[j].pointer, axes[i].pointer))
        throw UsageError("--vary " + axes[i].pointer + " encloses the earlier --vary " + axes[j].pointer +
                         " and would replace its values: give the enclosing --vary first");
    }
}

}  // namespace ckptsim::cli
