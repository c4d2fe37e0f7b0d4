// Fields a scenario writes that nothing it runs reads (unread_fields.hpp).
#include "ckptsim/run/unread_fields.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ckptsim/run/strategy.hpp"
#include "ckptsim/scenario/parameters.hpp"

namespace ckptsim {
namespace {

constexpr std::string_view kStrategyPrefix = "/strategy/";

/// Why `f` is not read by `s`, or "" when it is.
std::string unread_reason(const Scenario& s, const Field& f, UnreadFor report) {
  if (f.pointer.substr(0, kStrategyPrefix.size()) == kStrategyPrefix && f.pointer != "/strategy/kind") {
    if (report == UnreadFor::iteration && iteration_reads(f, s)) return "";
    const Strategy& strategy = strategy_of(s.strategy.kind);
    const std::vector<std::string_view> reads = strategy.parameters();
    if (std::find(reads.begin(), reads.end(), f.pointer) != reads.end()) return "";
    if (reads.empty()) return fmt::format("not read by strategy \"{}\", which reads no /strategy field", name_of(s.strategy.kind));
    std::string list;
    for (std::string_view p : reads) list += (list.empty() ? "" : ", ") + std::string(p);
    return fmt::format("not read by strategy \"{}\" (its checkpoint period comes from {}; it reads {})",
                       name_of(s.strategy.kind), strategy.period_field(s), list);
  }
  if (f.read_when != nullptr && !f.read_when->holds(s)) return fmt::format("not read: it is read only when {}", f.read_when->text);
  if (f.presence == Presence::when_process && name_of(s.failures.process) != f.when)
    return fmt::format("not read: it is read only when failures.process is \"{}\" (here \"{}\")", f.when,
                       name_of(s.failures.process));
  return "";
}

}  // namespace

std::vector<FieldWarning> unread_field_warnings(const Scenario& s, UnreadFor report) {
  std::vector<FieldWarning> out;
  for (const Field& f : scenario_fields()) {
    if (f.presence == Presence::alias || !std::binary_search(s.written.begin(), s.written.end(), f.pointer)) continue;
    // Written with the value it holds anyway (an effective scenario read back): nothing ignored.
    if (std::binary_search(s.written_unchanged.begin(), s.written_unchanged.end(), f.pointer)) continue;
    std::string reason = unread_reason(s, f, report);
    if (reason.empty()) continue;
    out.push_back({std::string(f.pointer), fmt::format("{} is {}", f.pointer, reason)});
  }
  return out;
}

std::vector<std::string> unread_field_messages(const Scenario& s, UnreadFor report) {
  std::vector<std::string> out;
  for (FieldWarning& w : unread_field_warnings(s, report)) out.push_back(std::move(w.message));
  return out;
}

bool field_is_read(const Scenario& s, std::string_view pointer, UnreadFor report) {
  const Field* f = find_field(pointer);
  return f != nullptr && unread_reason(s, *f, report).empty();
}

}  // namespace ckptsim
