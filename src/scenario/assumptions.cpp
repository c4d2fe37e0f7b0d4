#include "ckptsim/scenario/assumptions.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <variant>

#include <fmt/format.h>

#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "field_format.hpp"

namespace ckptsim {

namespace {

bool written(const std::vector<std::string>& fields, std::string_view pointer) {
  return std::find(fields.begin(), fields.end(), pointer) != fields.end();
}

/// The document at the scenario's source file; null when there is none or it no longer parses.
nlohmann::json source_document(const Scenario& s) {
  if (s.source_file.empty()) return nullptr;
  std::ifstream in(s.source_file);
  if (!in) return nullptr;
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

/// The parameter table's default as `ckptsim list parameters` writes it ("1.0", "3h").
std::string table_default(std::string_view pointer) {
  static const std::vector<ParameterDoc> docs = scenario_parameters();
  for (const auto& d : docs)
    if (d.pointer == pointer) return d.default_text;
  return {};
}

/// Whether an unwritten model field holds the model preset's value (the loader's rules): every
/// field of the architecture the preset fills, whatever its presence (the instance fills none of
/// them); the parameter count while the architecture is the preset's (else it is counted anew);
/// the key/value heads unless the preset has no grouped-query attention and the heads are
/// written (then one per written head).
bool from_model_preset(const Field& f, const Scenario& s, const std::vector<std::string>& fields) {
  const ModelPreset* preset = find_model_preset(s.model.preset);
  if (preset == nullptr || f.pointer.substr(0, 7) != "/model/" || f.pointer == "/model/preset") return false;
  if (f.pointer == "/model/parameters") return has_preset_architecture(s.model, *preset);
  if (f.pointer == "/model/kv_heads") return preset->kv_heads || !written(fields, "/model/heads");
  return true;
}

/// Where an unwritten field's value came from (the same rule as the loader's error messages).
void set_origin(const Field& f, const Scenario& s, const std::vector<std::string>& fields, Assumption& a) {
  if (written(fields, f.pointer)) {
    a.origin = ValueOrigin::file;
    a.source = "scenario file";
    return;
  }
  if (f.pointer == "/name") {  // the loader's rule: the file name without its extension
    a.origin = ValueOrigin::computed;
    a.source = "file name";
  } else if (from_model_preset(f, s, fields)) {
    a.origin = ValueOrigin::preset;
    a.source = "model preset \"" + s.model.preset + "\"";
  } else if ((f.presence == Presence::from_instance || f.pointer == "/cluster/gpu" ||
              f.pointer == "/cluster/gpudirect_rdma") &&
             !s.cluster.instance.empty()) {
    // (an instance names its GPU type, which an explicit /cluster/gpu would replace, and always
    // says whether its NICs reach GPU memory: true from the p4d preset is the preset's, even
    // though it equals the table's default)
    a.origin = ValueOrigin::preset;
    a.source = "instance \"" + s.cluster.instance + "\"";
  } else if ((f.presence == Presence::from_gpu || f.presence == Presence::gpu_kernel) && !s.cluster.gpu.empty()) {
    a.origin = ValueOrigin::preset;
    a.source = "GPU type \"" + s.cluster.gpu + "\"";
  } else if (f.presence == Presence::defaulted && !s.cluster.instance.empty() && f.pointer.substr(0, 9) == "/cluster/" &&
             !a.value.empty() && a.value != table_default(f.pointer)) {
    // A table default the instance preset overrides (its measured network factors, its GPU
    // type): the parameter table states these as "default: the instance preset's, else ...".
    // An instance fills cluster fields only: a model field that differs from the table's
    // default was filled by the model preset or the loader (one key/value head per head).
    a.origin = ValueOrigin::preset;
    a.source = "instance \"" + s.cluster.instance + "\"";
  } else if (f.presence == Presence::computed) {
    a.origin = ValueOrigin::computed;
    a.source = "computed";
  } else if (f.presence == Presence::from_phases) {
    a.origin = ValueOrigin::computed;
    a.source = "restart phases";
  } else {
    a.origin = ValueOrigin::defaulted;
    a.source = "default";
  }
}

}  // namespace

std::vector<std::string> written_pointers(const nlohmann::json& doc) {
  std::vector<std::string> out;
  if (!doc.is_object()) return out;
  for (const Field& f : scenario_fields()) {
    if (f.presence == Presence::alias) continue;
    const nlohmann::json* node = &doc;
    std::size_t pos = 1;
    while (node != nullptr && pos <= f.pointer.size()) {
      const std::size_t next = std::min(f.pointer.find('/', pos), f.pointer.size());
      const std::string key(f.pointer.substr(pos, next - pos));
      const auto it = node->is_object() ? node->find(key) : node->end();
      node = node->is_object() && it != node->end() ? &*it : nullptr;
      pos = next + 1;
    }
    if (node != nullptr) out.emplace_back(f.pointer);
  }
  // The top-level "seed" is another spelling of run.seed; a bare duration for the replacement
  // time writes a fixed one (the loader's rule).
  if (doc.contains("seed")) out.emplace_back("/run/seed");
  const auto failures = doc.find("failures");
  if (failures != doc.end() && failures->is_object()) {
    const auto replacement = failures->find("replacement");
    if (replacement != failures->end() && (replacement->is_string() || replacement->is_number())) {
      out.emplace_back("/failures/replacement/distribution");
      out.emplace_back("/failures/replacement/value");
    }
  }
  return out;
}

std::vector<Assumption> scenario_assumptions(const Scenario& s) {
  const std::vector<std::string> fields = written_pointers(source_document(s));
  Scenario copy = s;  // format_field binds members through a non-const Scenario; it only reads
  std::vector<Assumption> out;
  for (const Field& f : scenario_fields()) {
    if (f.presence == Presence::alias) continue;
    const nlohmann::json value = format_field(f, copy);
    if (value.is_null()) continue;
    Assumption a;
    a.pointer = std::string(f.pointer);
    a.value = value.is_string() ? value.get<std::string>() : value.dump();
    set_origin(f, s, fields, a);
    // A sum of restart phases is whole nanoseconds, which the exact form writes as
    // "289008672us": shown in seconds to the millisecond instead (the restart line of `run`
    // gives each phase).
    if (f.presence == Presence::from_phases && a.origin == ValueOrigin::computed) {
      const FieldRef ref = f.bind(copy);
      if (const auto* t = std::get_if<SimTime*>(&ref)) a.value = fmt::format("{:.3f}s", (*t)->seconds());
      if (const auto* t = std::get_if<std::optional<SimTime>*>(&ref); t != nullptr && (*t)->has_value())
        a.value = fmt::format("{:.3f}s", (**t)->seconds());
    }
    out.push_back(std::move(a));
  }
  return out;
}

const std::vector<std::string_view>& key_assumption_pointers() {
  static const std::vector<std::string_view> pointers = {
      "/training/micro_batch",
      "/training/sequence_length",
      "/training/compute_efficiency",
      "/cluster/network/collective_efficiency",
      "/cluster/network/p2p_efficiency",
      "/failures/rate",
      "/failures/hardware_fraction",
      "/failures/detection",
      "/failures/restart",
  };
  return pointers;
}

bool hardware_failures_possible(const FailureSpec& f) {
  const bool machine_failures = f.process == FailureProcessKind::weibull || f.process == FailureProcessKind::trace ||
                                (f.process == FailureProcessKind::exponential && f.rate > 0);
  if (machine_failures) {
    if (f.process == FailureProcessKind::trace) return true;  // its rows say, and it is not read here
    if (f.lemons.quarantine_failures > 0) return true;         // a quarantined machine is replaced
    const bool hardware = f.causes.causes.empty()
                              ? f.hardware_fraction > 0
                              : std::any_of(f.causes.causes.begin(), f.causes.causes.end(),
                                            [](const FailureCauseSpec& c) { return c.hardware; });
    if (hardware) return true;
  }
  for (const DomainSpec& d : f.domains)
    if (d.machines > 0 && d.rate > 0 && d.hardware_fraction > 0) return true;
  // An evicted straggler and a machine found corrupting data are replaced too.
  if (f.stragglers.rate > 0 && f.stragglers.speed < 1.0 && f.stragglers.eviction) return true;
  return f.silent_corruption.rate > 0;
}

std::vector<std::string_view> replacement_assumption_pointers(const FailureSpec& f) {
  switch (f.replacement.distribution) {
    case ReplacementDistribution::fixed: return {"/failures/replacement/distribution", "/failures/replacement/value"};
    case ReplacementDistribution::uniform:
      return {"/failures/replacement/distribution", "/failures/replacement/low", "/failures/replacement/high"};
    case ReplacementDistribution::lognormal:
      return {"/failures/replacement/distribution", "/failures/replacement/median", "/failures/replacement/sigma"};
  }
  return {"/failures/replacement/distribution"};
}

std::vector<Assumption> key_assumptions(const Scenario& s) {
  const std::vector<Assumption> all = scenario_assumptions(s);
  std::vector<Assumption> out;
  std::vector<std::string_view> pointers = key_assumption_pointers();
  const std::size_t first_replacement = pointers.size();
  for (std::string_view p : replacement_assumption_pointers(s.failures)) pointers.push_back(p);
  const bool replaced = hardware_failures_possible(s.failures);
  for (std::size_t i = 0; i < pointers.size(); ++i) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const Assumption& a) { return a.pointer == pointers[i]; });
    if (it == all.end()) continue;
    out.push_back(*it);
    // Shown always (issue 42): a scenario whose failures replace no machine says so beside it.
    if (i >= first_replacement && !replaced) out.back().source += "; no failure here replaces a machine";
  }
  return out;
}

}  // namespace ckptsim
