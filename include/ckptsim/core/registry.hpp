#pragma once
// Registry: models and strategies chosen by name (STYLE.md habit 1).
//
// Each entry is {name, one-line description, factory}. `ckptsim list` prints every registry;
// a scenario names an entry, and an unknown name is reported with the list of names that exist.
// Registries are built by functions returning values (no static mutable state), so any number
// of simulations can run at once.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ckptsim {

template <typename Factory>
struct RegistryEntry {
  std::string name;
  std::string description;
  Factory factory;
};

template <typename Factory>
class Registry {
 public:
  explicit Registry(std::string what) : what_(std::move(what)) {}

  Registry& add(std::string name, std::string description, Factory factory) {
    entries_.push_back({std::move(name), std::move(description), std::move(factory)});
    return *this;
  }

  /// nullptr when absent.
  [[nodiscard]] const RegistryEntry<Factory>* find(const std::string& name) const {
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.name == name; });
    return it == entries_.end() ? nullptr : &*it;
  }

  /// The entry named `name`, which must exist: names reaching a registry were parsed into an
  /// enum whose name table the registry follows (scenario/kinds.hpp), so a missing one is a bug.
  [[nodiscard]] const RegistryEntry<Factory>& at(std::string_view name) const {
    const auto* entry = find(std::string(name));
    if (entry == nullptr) throw std::logic_error(what_ + " registry has no entry \"" + std::string(name) + "\"");
    return *entry;
  }

  [[nodiscard]] const std::vector<RegistryEntry<Factory>>& entries() const { return entries_; }
  [[nodiscard]] const std::string& what() const { return what_; }

  /// "one of \"a\", \"b\", \"c\"": for error messages.
  [[nodiscard]] std::string names_for_error() const {
    std::string out = "one of ";
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (i) out += ", ";
      out += '"' + entries_[i].name + '"';
    }
    return out;
  }

 private:
  std::string what_;
  std::vector<RegistryEntry<Factory>> entries_;
};

}  // namespace ckptsim
