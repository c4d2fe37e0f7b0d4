#pragma once
// SchedulerId: the checkpoint traffic scheduler a scenario chose (strategy.scheduler), one of the
// built-ins or one a program using the library registered (checkpoint/scheduler.hpp,
// register_scheduler; docs/library.md, "Adding a scheduler out of tree").
//
// The built-ins are SchedulerKind's values, with ids 0..3 in its name table's order
// (scenario/kinds.hpp); a registered scheduler takes the next id. The process's list of names
// starts with the built-ins and only grows: a registration is never withdrawn, so an id keeps
// its name for the life of the process. The list is read and extended under a mutex, so threads
// may load scenarios while another registers. Ids are never written out: outputs, cache keys and
// effective scenarios carry the name (an id depends on the order of registration).
// This is the one process-wide mutable list in the library (style habit: "no globals or static
// registries of instances"): it holds names, not instances, and a program that registers
// nothing sees exactly the built-ins.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptsim/scenario/kinds.hpp"

namespace ckptsim {

/// Number of built-in schedulers (SchedulerKind's values).
inline constexpr int kBuiltinSchedulers = static_cast<int>(EnumNames<SchedulerKind>::table.size());

class SchedulerId {
 public:
  constexpr SchedulerId() = default;  ///< gemini, the default of strategy.scheduler
  /// Every built-in is an id (implicit, so that code naming a SchedulerKind keeps working).
  constexpr SchedulerId(SchedulerKind kind) : index_(static_cast<int>(kind)) {}  // NOLINT(google-explicit-constructor)

  /// Position in the process's list: 0..3 the built-ins, then registrations in order.
  [[nodiscard]] constexpr int index() const { return index_; }
  /// The built-in it is; nullopt for a registered scheduler.
  [[nodiscard]] constexpr std::optional<SchedulerKind> builtin() const {
    if (index_ < kBuiltinSchedulers) return static_cast<SchedulerKind>(index_);
    return std::nullopt;
  }
  constexpr bool operator==(const SchedulerId&) const = default;

 private:
  explicit constexpr SchedulerId(int index) : index_(index) {}
  friend SchedulerId add_scheduler_name(const std::string& name);
  friend std::optional<SchedulerId> find_scheduler(std::string_view name);
  friend std::vector<SchedulerId> all_schedulers();

  int index_ = static_cast<int>(SchedulerKind::gemini);
};

/// The scheduler's name ("gemini", or the name it was registered under).
std::string name_of(SchedulerId id);

/// The scheduler named `name`, built-in or registered; nullopt for a name not in the list.
std::optional<SchedulerId> find_scheduler(std::string_view name);

/// Every scheduler, the built-ins first, then the registered ones in the order of registration.
std::vector<SchedulerId> all_schedulers();

/// Adds a name to the list and returns its id. Called by register_scheduler
/// (checkpoint/scheduler.hpp), which also stores the plan function: call that one. Throws
/// InputError (file "register_scheduler") for an empty name, a name longer than 64 characters or
/// with characters other than letters, digits, '-', '_' and '.', the reserved name "all" (the
/// `iteration` command's "every scheduler"), and a name already taken.
SchedulerId add_scheduler_name(const std::string& name);

}  // namespace ckptsim
