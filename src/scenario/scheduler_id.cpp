// The process's list of scheduler names (scheduler_id.hpp).
#include "ckptsim/scenario/scheduler_id.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

namespace {

// Ids 0..3 are SchedulerKind's values: its name table must list them in the enum's order.
constexpr bool builtin_table_in_enum_order() {
  for (int i = 0; i < kBuiltinSchedulers; ++i)
    if (static_cast<int>(EnumNames<SchedulerKind>::table[static_cast<std::size_t>(i)].value) != i) return false;
  return true;
}
static_assert(builtin_table_in_enum_order(), "SchedulerKind's name table must list its values in order (ids 0..3)");

constexpr std::size_t kLongestSchedulerName = 64;

/// The registered names (ids kBuiltinSchedulers and above), behind their mutex.
struct RegisteredSchedulerNames {
  std::mutex mutex;
  std::deque<std::string> names;
};

RegisteredSchedulerNames& registered_scheduler_names() {
  static RegisteredSchedulerNames list;
  return list;
}

bool scheduler_name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

std::string quoted_scheduler_names(const std::vector<SchedulerId>& ids) {
  std::string out;
  for (const SchedulerId id : ids) out += (out.empty() ? "\"" : ", \"") + name_of(id) + '"';
  return out;
}

}  // namespace

std::string name_of(SchedulerId id) {
  if (const auto kind = id.builtin()) return std::string(name_of(*kind));
  RegisteredSchedulerNames& list = registered_scheduler_names();
  const std::lock_guard<std::mutex> lock(list.mutex);
  const auto k = static_cast<std::size_t>(id.index() - kBuiltinSchedulers);
  // An id is made only by this file, for a name in the list, and the list never shrinks.
  if (id.index() < 0 || k >= list.names.size()) throw std::logic_error("scheduler id out of the list of names");
  return list.names[k];
}

std::optional<SchedulerId> find_scheduler(std::string_view name) {
  if (const auto kind = parse_name<SchedulerKind>(name)) return SchedulerId(*kind);
  RegisteredSchedulerNames& list = registered_scheduler_names();
  const std::lock_guard<std::mutex> lock(list.mutex);
  const auto it = std::find(list.names.begin(), list.names.end(), name);
  if (it == list.names.end()) return std::nullopt;
  return SchedulerId(kBuiltinSchedulers + static_cast<int>(it - list.names.begin()));
}

std::vector<SchedulerId> all_schedulers() {
  std::vector<SchedulerId> out;
  for (const auto& e : EnumNames<SchedulerKind>::table) out.emplace_back(e.value);
  RegisteredSchedulerNames& list = registered_scheduler_names();
  const std::lock_guard<std::mutex> lock(list.mutex);
  for (std::size_t k = 0; k < list.names.size(); ++k) out.push_back(SchedulerId(kBuiltinSchedulers + static_cast<int>(k)));
  return out;
}

SchedulerId add_scheduler_name(const std::string& name) {
  const auto refusal = [&](const std::string& expected) {
    return InputError("register_scheduler", "", "a scheduler name: " + expected, '"' + name + '"');
  };
  if (name.empty() || name.size() > kLongestSchedulerName ||
      !std::all_of(name.begin(), name.end(), scheduler_name_character))
    throw refusal("1 to 64 letters, digits, '-', '_' or '.'");
  if (name == "all") throw refusal("any but \"all\" (the iteration command's \"every scheduler\")");
  RegisteredSchedulerNames& list = registered_scheduler_names();
  {
    const std::lock_guard<std::mutex> lock(list.mutex);
    const bool taken = parse_name<SchedulerKind>(name).has_value() ||
                       std::find(list.names.begin(), list.names.end(), name) != list.names.end();
    if (!taken) {
      list.names.push_back(name);
      return SchedulerId(kBuiltinSchedulers + static_cast<int>(list.names.size() - 1));
    }
  }
  throw refusal("one not taken already (taken: " + quoted_scheduler_names(all_schedulers()) + ")");
}

}  // namespace ckptsim
