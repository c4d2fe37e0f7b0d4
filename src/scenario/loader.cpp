// Scenario loader: walks the parameter table (parameters.hpp) over a parsed JSON document,
// collecting every problem, then runs the cross-field checks (checks.cpp). See loader.hpp;
// reading the file itself is in scenario_file.cpp.
#include <fmt/format.h>

#include "ckptsim/scenario/loader.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <type_traits>
#include <variant>

#include "cause_table.hpp"
#include "checks.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/failure_rate_fields.hpp"
#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/scenario/parameter_count.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "ckptsim/scenario/restart_phases.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/scenario/schema.hpp"
#include "field_format.hpp"
#include "field_read.hpp"

namespace ckptsim {
namespace {

using nlohmann::json;

constexpr std::string_view kNothing = "nothing";

std::string parent_of(std::string_view pointer) {
  return std::string(pointer.substr(0, pointer.rfind('/')));
}

/// Reads one document into a Scenario, recording problems instead of stopping at the first.
class Reader {
 public:
  Reader(const json& doc, const std::string& label, std::string base_dir)
      : doc_(doc), label_(label), problems_(label), base_dir_(std::move(base_dir)) {}

  Scenario read() {
    if (!doc_.is_object()) {
      problems_.add("", "a JSON object (the scenario)", shown_value(doc_));
      problems_.throw_if_any();
    }
    check_objects();
    read_presets();
    for (const Field& f : scenario_fields()) {
      if (f.pointer == "/cluster/instance" || f.pointer == "/cluster/gpu" || f.pointer == "/model/preset") continue;
      read_field(f);
    }
    finish();
    CheckContext ctx{problems_, bad_, [this](std::string_view p) { return found_text(p); }};
    cross_check(s_, ctx);
    problems_.throw_if_any();
    return s_;
  }

 private:
  /// The value at a table pointer (no escapes needed), nullptr when absent or under a non-object.
  [[nodiscard]] const json* find(std::string_view pointer) const {
    const json* node = &doc_;
    std::size_t pos = 1;
    while (pos <= pointer.size()) {
      const std::size_t next = std::min(pointer.find('/', pos), pointer.size());
      const std::string key(pointer.substr(pos, next - pos));
      if (!node->is_object()) return nullptr;
      auto it = node->find(key);
      if (it == node->end()) return nullptr;
      node = &*it;
      pos = next + 1;
    }
    return node;
  }

  /// What a cross-field problem shows as found: the value as written, or the value in effect
  /// and where it came from.
  std::string found_text(std::string_view pointer) {
    if (const json* v = find(pointer)) return shown_value(*v);
    const Field* f = find_field(pointer);
    if (f == nullptr) return std::string(kNothing);
    const json value = format_field(*f, s_);
    if (value.is_null()) return std::string(kNothing);
    std::string text = value.dump();
    if (f->presence == Presence::from_instance && !s_.cluster.instance.empty())
      return text + " (from instance \"" + s_.cluster.instance + "\")";
    if ((f->presence == Presence::from_gpu || f->presence == Presence::gpu_kernel) && !s_.cluster.gpu.empty())
      return text + " (from GPU type \"" + s_.cluster.gpu + "\")";
    if (f->presence == Presence::from_model && !s_.model.preset.empty())
      return text + " (from model preset \"" + s_.model.preset + "\")";
    return text + " (default)";
  }

  /// True when an enclosing object already has a problem (e.g. is not an object).
  [[nodiscard]] bool under_bad(std::string_view pointer) const {
    for (std::string p = parent_of(pointer); !p.empty(); p = parent_of(p))
      if (bad_.count(p)) return true;
    return false;
  }

  void problem(std::string_view pointer, std::string expected, std::string found) {
    bad_.insert(std::string(pointer));
    problems_.add(std::string(pointer), std::move(expected), std::move(found));
  }

  /// Every object the table implies must be an object holding only the table's keys.
  void check_objects() {
    std::vector<std::string> objects{""};
    for (const Field& f : scenario_fields()) {
      for (std::string p = parent_of(f.pointer); !p.empty(); p = parent_of(p))
        if (std::find(objects.begin(), objects.end(), p) == objects.end()) objects.push_back(p);
    }
    std::sort(objects.begin(), objects.end());
    constexpr std::size_t kMaxUnknownKeysListed = 20;
    std::size_t unknown_keys = 0;
    for (const std::string& obj : objects) {
      std::vector<std::string> allowed;
      for (const Field& f : scenario_fields()) {
        if (f.pointer.substr(0, obj.size() + 1) != obj + "/") continue;
        const std::string rest(f.pointer.substr(obj.size() + 1));
        const std::string key = rest.substr(0, rest.find('/'));
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) allowed.push_back(key);
      }
      const json* node = obj.empty() ? &doc_ : find(obj);
      if (node == nullptr) continue;
      if (!node->is_object()) {
        if (obj == "/failures/replacement" && (node->is_string() || node->is_number())) continue;
        const std::string extra = obj == "/failures/replacement" ? " (or a duration for a fixed time)" : "";
        problem(obj, "an object with keys " + quoted_names(allowed) + extra, shown_value(*node));
        continue;
      }
      for (const auto& [key, value] : node->items()) {
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
        if (obj.empty() && key == kSchemaKey) {  // names the JSON Schema for editors; ignored
          // (built by append: GCC 12 warns about `"/" + std::string&&` inlined here, -Wrestrict)
          if (!value.is_string()) problem(std::string("/").append(escape_pointer_token(key)), "a string (the schema's location)", shown_value(value));
          continue;
        }
        // 200,000 unknown keys must not become 200,000 messages: the first few, then a count.
        if (++unknown_keys > kMaxUnknownKeysListed) continue;
        const std::string where = obj.empty() ? "the top level" : obj;
        problem(obj + "/" + escape_pointer_token(key),
                "one of the keys allowed in " + where + ": " + quoted_names(allowed),
                "unknown key \"" + key + "\"" + did_you_mean(key, allowed));
      }
    }
    if (unknown_keys > kMaxUnknownKeysListed)
      problems_.add("", "only the keys listed above", fmt::format("{} more unknown keys (the first {} are listed)",
                                                                  unknown_keys - kMaxUnknownKeysListed,
                                                                  kMaxUnknownKeysListed));
  }

  void read_presets() {
    if (const Field* f = find_field("/cluster/instance"); read_field(*f) && !s_.cluster.instance.empty()) {
      const InstancePreset* p = find_instance_preset(s_.cluster.instance);
      s_.cluster.gpus_per_machine = p->gpus_per_machine;
      s_.cluster.cpu_memory_bytes = p->cpu_memory_bytes;
      s_.cluster.network_bandwidth = p->network_bandwidth;
      s_.cluster.gpu_cpu_bandwidth = p->gpu_cpu_bandwidth;
      s_.cluster.gpudirect_rdma = p->gpudirect_rdma;
      s_.cluster.network.p2p_efficiency = p->p2p_efficiency;
      apply_gpu_type(s_.cluster, *find_gpu_type(p->gpu));
    }
    // An explicit GPU type replaces the instance's.
    if (const Field* f = find_field("/cluster/gpu"); read_field(*f) && !s_.cluster.gpu.empty())
      apply_gpu_type(s_.cluster, *find_gpu_type(s_.cluster.gpu));
    // A preset name that does not exist leaves the fields it fills at zero: those are marked as
    // having a problem already (without a message of their own), so the cross-field checks
    // report the misspelt name alone, not what its zeros make of the iteration.
    if (bad_.count("/cluster/instance")) inherit_problem({Presence::from_instance, Presence::from_gpu, Presence::gpu_kernel});
    if (bad_.count("/cluster/gpu")) inherit_problem({Presence::from_gpu, Presence::gpu_kernel});
    if (const Field* f = find_field("/model/preset"); read_field(*f) && !s_.model.preset.empty()) {
      s_.model = preset_model(*find_model_preset(s_.model.preset));
    }
    if (bad_.count("/model/preset")) {
      inherit_problem({Presence::from_model});
      if (find("/model/parameters") == nullptr) bad_.insert("/model/parameters");
    }
  }

  /// Marks every unwritten field filled from one of `sources` as bad (see read_presets).
  void inherit_problem(std::initializer_list<Presence> sources) {
    for (const Field& f : scenario_fields())
      if (std::find(sources.begin(), sources.end(), f.presence) != sources.end() && find(f.pointer) == nullptr)
        bad_.insert(std::string(f.pointer));
  }

  /// Reads one field; false when it is absent-and-required or invalid (problem recorded), or
  /// absent (nothing to do) -- true only when a value was read.
  bool read_field(const Field& f) {
    const json* v = find(f.pointer);
    if (v == nullptr) {
      if (!under_bad(f.pointer)) absent(f);
      return false;
    }
    return store(f, *v);
  }

  void absent(const Field& f) {
    const std::string expected = field_expectation(f);
    switch (f.presence) {
      case Presence::required:
        // A misspelling of it beside it was reported with its "did you mean": that is the cause.
        if (misspelt_beside(f)) {
          bad_.insert(std::string(f.pointer));
        } else {
          problem(f.pointer, expected, std::string(kNothing) + missing_hint(f));
        }
        break;
      case Presence::from_instance:
        if (s_.cluster.instance.empty() && !bad_.count("/cluster/instance"))
          problem(f.pointer,
                  expected + " (or a /cluster/instance preset: " + quoted_names(instance_preset_names()) + ")",
                  std::string(kNothing));
        break;
      case Presence::from_gpu:
        if (s_.cluster.gpu.empty() && !bad_.count("/cluster/instance") && !bad_.count("/cluster/gpu"))
          problem(f.pointer,
                  expected + " (or a /cluster/gpu type: " + quoted_names(gpu_type_names()) +
                      ", or a /cluster/instance preset)",
                  std::string(kNothing));
        break;
      case Presence::from_model:
        if (s_.model.preset.empty() && !bad_.count("/model/preset"))
          problem(f.pointer, expected + " (or a /model/preset: " + quoted_names(model_preset_names()) + ")",
                  std::string(kNothing));
        break;
      case Presence::when_process: missing_when_.push_back(&f); break;
      case Presence::gpu_kernel:
      case Presence::defaulted:
      case Presence::computed:
      case Presence::from_phases:
      case Presence::optional:
      case Presence::alias: break;
    }
  }

  /// Whether the object that should hold `f` holds an unknown key close to its name (reported
  /// by check_objects with a "did you mean" naming it).
  [[nodiscard]] bool misspelt_beside(const Field& f) const {
    const std::string parent = parent_of(f.pointer);
    const std::string leaf(f.pointer.substr(parent.size() + 1));
    const json* node = parent.empty() ? &doc_ : find(parent);
    if (node == nullptr || !node->is_object()) return false;
    for (const auto& item : node->items())
      if (!known_key(parent, item.key()) && !closest_names(item.key(), {leaf}).empty()) return true;
    return false;
  }

  /// What to add to "found nothing" for a field that must be written: how to write it, e.g.
  /// ` (no default; write it as "storage": {"bandwidth": "400Gbps"})`.
  [[nodiscard]] static std::string missing_hint(const Field& f) {
    // "storage": {"bandwidth": "400Gbps"}: the keys from the top down, then the value.
    std::string text = example_value(f).dump();
    for (std::string p(f.pointer); !p.empty(); p = parent_of(p)) {
      const std::string key = json(p.substr(parent_of(p).size() + 1)).dump();
      text = parent_of(p).empty() ? key + ": " + text : "{" + key + ": " + text + "}";
    }
    return " (no default; write it as " + text + ")";
  }

  /// A well-formed value of the field's unit, for the hint above.
  static json example_value(const Field& f) {
    switch (f.unit) {
      case Unit::name: return f.choices().empty() ? json("name") : json(f.choices().front());
      case Unit::integer: return 16;
      case Unit::bandwidth: return "400Gbps";
      case Unit::failure_rate: return "1.5%/machine/day";
      case Unit::duration:
      case Unit::duration_or_never: return "5min";
      case Unit::bytes: return "128MiB";
      case Unit::flop_rate: return "989TFLOPS";
      case Unit::fraction: return 0.5;
      default: return "...";
    }
  }

  /// Whether `key` is a key the table allows in the object at `parent`.
  static bool known_key(const std::string& parent, const std::string& key) {
    const std::string prefix = parent + "/" + key;
    for (const Field& f : scenario_fields())
      if (f.pointer == prefix || f.pointer.substr(0, prefix.size() + 1) == prefix + "/") return true;
    return false;
  }

  /// Converts and stores one written value; records a problem and returns false when it does
  /// not fit.
  bool store(const Field& f, const json& v) {
    present_.insert(std::string(f.pointer));
    if (f.unit == Unit::cause_table) {
      const auto problems = read_cause_table(v, *std::get<FailureCauseTable*>(f.bind(s_)));
      for (const auto& p : problems)
        problem(std::string(f.pointer) + p.pointer, p.expected, p.pointer.empty() ? shown_value(v) : shown_at(v, p.pointer));
      return problems.empty();
    }
    // A value equal to the one the field holds already (its default, or its preset's) changes
    // nothing: an effective scenario written back writes every field, and none of them should
    // read as the user's word about a field nothing reads (run/unread_fields.hpp).
    const std::optional<FieldValue> before = value_of(f.bind(s_));
    if (auto expected = read_field_value(f, v, s_)) {
      const std::string hint = f.unit == Unit::name && v.is_string() ? did_you_mean(v.get<std::string>(), f.choices()) : "";
      problem(f.pointer, std::move(*expected), shown_value(v) + hint);
      return false;
    }
    if (before && *before == *value_of(f.bind(s_))) unchanged_.insert(std::string(f.pointer));
    return true;
  }

  /// A copy of the value a field binds (nullopt for a cause table or a curve, never compared).
  struct EnumValue {
    int value;
    bool operator==(const EnumValue&) const = default;
  };
  using FieldValue = std::variant<std::string, int, std::int64_t, std::uint64_t, double, bool, SimTime,
                                  std::optional<SimTime>, std::optional<std::int64_t>, std::optional<double>, EnumValue>;
  static std::optional<FieldValue> value_of(const FieldRef& ref) {
    return std::visit(
        [](auto* member) -> std::optional<FieldValue> {
          using T = std::remove_pointer_t<decltype(member)>;
          if constexpr (std::is_same_v<T, FailureCauseTable> || std::is_same_v<T, std::optional<BusCurve>>) return std::nullopt;
          else if constexpr (std::is_enum_v<T>) return FieldValue(EnumValue{static_cast<int>(*member)});
          else if constexpr (std::is_same_v<T, SchedulerId>) return FieldValue(EnumValue{member->index()});
          else return FieldValue(*member);
        },
        ref);
  }

  /// The value at a relative pointer inside `v` (escaped tokens), or "nothing".
  static std::string shown_at(const json& v, const std::string& relative) {
    try {
      const json::json_pointer p(relative);
      if (v.contains(p)) return shown_value(v.at(p));
    } catch (const json::exception&) {
    }
    return std::string(kNothing);
  }

  void finish() {
    // Name: the file name without its extension when not given.
    if (!present_.count("/name")) s_.name = std::filesystem::path(label_).stem().string();
    s_.source_file = label_;
    for (const std::string& p : present_) {
      const Field* f = find_field(p);
      if (f != nullptr && f->presence == Presence::alias) {
        if (!present_.count("/run/seed")) s_.written.push_back("/run/seed");
      } else {
        s_.written.push_back(p);
        if (unchanged_.count(p)) s_.written_unchanged.push_back(p);
      }
    }
    std::sort(s_.written.begin(), s_.written.end());
    std::sort(s_.written_unchanged.begin(), s_.written_unchanged.end());

    // Seed in one place only.
    if (present_.count("/seed") && present_.count("/run/seed"))
      problem("/seed", "the seed in one place: /run/seed or /seed, not both", shown_value(*find("/seed")));

    // A bare duration for the replacement time means a fixed time.
    if (const json* r = find("/failures/replacement"); r != nullptr && (r->is_string() || r->is_number())) {
      Field fixed = *find_field("/failures/replacement/value");
      fixed.pointer = "/failures/replacement";
      if (store(fixed, *r)) s_.failures.replacement.distribution = ReplacementDistribution::fixed;
    }

    spread_cluster_rates();

    // Key/value heads: the preset's, else one per head (no grouped-query attention).
    // (A preset without grouped-query attention has one per head, whatever heads are written.)
    if (const ModelPreset* preset = find_model_preset(s_.model.preset);
        !present_.count("/model/kv_heads") && (preset == nullptr || !preset->kv_heads))
      s_.model.kv_heads = s_.model.heads;
    // Parameters: explicit; else the preset's (its published count) while the architecture is
    // the preset's; else the one count of the architecture as it stands (parameter_count.hpp),
    // whichever field was edited.
    if (!present_.count("/model/parameters")) {
      const ModelPreset* preset = find_model_preset(s_.model.preset);
      if (preset != nullptr && has_preset_architecture(s_.model, *preset)) {
        s_.model.parameters = preset_parameters(*preset);
      } else if (const auto count = transformer_parameter_count(s_.model)) {
        s_.model.parameters = count->total();
      }
    }

    // The data-parallel size: what the GPUs leave over tensor, context and pipeline groups
    // (checked, with a written one, by the cross-field checks).
    if (!present_.count("/training/megatron/dp")) {
      const MegatronSpec& g = s_.training.megatron;
      const std::int64_t gpus = static_cast<std::int64_t>(s_.cluster.machines) * s_.cluster.gpus_per_machine;
      const std::int64_t model_ranks = static_cast<std::int64_t>(g.tp) * g.cp * g.pp;
      if (model_ranks > 0 && gpus > 0 && gpus % model_ranks == 0) s_.training.megatron.dp = gpus / model_ranks;
    }

    // The collective bandwidth factor: the preset's measurements at this machine count.
    if (const InstancePreset* p = find_instance_preset(s_.cluster.instance);
        p != nullptr && !present_.count("/cluster/network/collective_efficiency"))
      s_.cluster.network.collective_efficiency = collective_efficiency_at(p->collective_efficiency, s_.cluster.machines);

    resolve_restart_phases();

    // Fields required only under one failure process.
    for (const Field* f : missing_when_) {
      if (name_of(s_.failures.process) == f->when && !bad_.count("/failures/process") && !misspelt_beside(*f))
        problem(f->pointer,
                field_expectation(*f) + " (required when /failures/process is \"" + std::string(f->when) + "\")",
                std::string(kNothing) + missing_hint(*f));
    }

    // Trace path: relative to the scenario's folder, stored absolute.
    if (!s_.failures.trace_file.empty()) {
      std::filesystem::path p(s_.failures.trace_file);
      if (p.is_relative()) p = std::filesystem::path(base_dir_) / p;
      s_.failures.trace_file = std::filesystem::absolute(p).lexically_normal().string();
    }
  }

  /// Rates written per cluster ("2/cluster/day") become the rates the models read: per machine,
  /// divided among this scenario's machines, or per domain, among its ⌈N / s⌉ domains of the kind
  /// (failure_rate_fields.hpp). The effective scenario then states them per machine (per domain).
  void spread_cluster_rates() {
    for (const Field& f : scenario_fields()) {
      if (f.unit != Unit::failure_rate || bad_.count(std::string(f.pointer))) continue;
      const json* v = find(f.pointer);
      if (v == nullptr || !v->is_string()) continue;
      // Read once already (store): it parses.
      if (read_failure_rate(v->get<std::string>(), failure_rate_scope(f)).subject != RateSubject::cluster) continue;
      if (const std::optional<std::int64_t> divisor = cluster_rate_divisor(f, s_)) {
        *std::get<double*>(f.bind(s_)) /= static_cast<double>(*divisor);
        continue;
      }
      // No count to divide by: the machines are reported already, or the domain kind is off.
      const std::string size = parent_of(f.pointer) + "/machines";
      if (bad_.count("/cluster/machines") || s_.cluster.machines < 1 || bad_.count(size)) continue;
      problem(f.pointer,
              "a rate per domain such as \"0.06%/domain/day\", or a domain size at " + size +
                  " (a rate per cluster is shared among the cluster's domains, and a size of 0 makes none)",
              shown_value(*v));
    }
  }

  /// failures.restart and a new job's overhead, when not written: the restart phases' sums at
  /// this scale (restart_phases.hpp). Each phase and the sum must keep within the clock: a phase
  /// that does not is reported at its own field (computed in seconds first, so that no product
  /// leaves the clock before it is checked).
  void resolve_restart_phases() {
    const RestartPhasesSpec& p = s_.failures.restart_phases;
    if (p.nccl_bootstrap_rings > 2)
      problem("/failures/restart_phases/nccl_bootstrap_rings",
              "1 (NCCL up to 2.28: one ring per all-gather) or 2 (NCCL 2.29: two rings)", std::to_string(p.nccl_bootstrap_rings));
    const std::int64_t ranks = static_cast<std::int64_t>(std::max(0, s_.cluster.machines)) * std::max(0, s_.cluster.gpus_per_machine);
    const double steps = 3.0 * static_cast<double>(nccl_bootstrap_steps(ranks, p.nccl_bootstrap_rings));
    const std::pair<const char*, double> in_job[] = {
        {"/failures/restart_phases/process_start", p.process_start.seconds()},
        {"/failures/restart_phases/rendezvous_per_rank", p.rendezvous_per_rank.seconds() * static_cast<double>(ranks)},
        {"/failures/restart_phases/nccl_init_fixed", p.nccl_init_fixed.seconds()},
        {"/failures/restart_phases/nccl_bootstrap_step", p.nccl_bootstrap_step.seconds() * steps},
        {"/failures/restart_phases/warmup", p.warmup.seconds()},
        {"/failures/restart_phases/first_iteration", p.first_iteration.seconds()}};
    const std::pair<const char*, double> new_job[] = {{"/failures/restart_phases/requeue", p.requeue.seconds()},
                                                      {"/failures/restart_phases/health_check", p.health_check.seconds()},
                                                      {"/failures/restart_phases/image_pull", p.image_pull.seconds()}};
    // An in-process restart rebuilds the communicators (failure/restart_tiers.hpp), whatever
    // failures.restart says.
    if (within_clock(in_job, "an in-job restart, the sum of the restart phases"))
      s_.failures.restart_tiers.communicator_rebuild = restart_phases(p, ranks).communicator_init;
    if (!present_.count("/failures/restart") && within_clock(in_job, "an in-job restart, the sum of the restart phases")) {
      s_.failures.restart = restart_phases(p, ranks).total();
      s_.failures.restart_from_phases = true;
    }
    if (!present_.count("/failures/restart_tiers/new_job/overhead") &&
        within_clock(new_job, "a new job's overhead, the sum of the new-job restart phases")) {
      s_.failures.restart_tiers.new_job_overhead = new_job_phases(p).total();
      s_.failures.restart_tiers.new_job_overhead_from_phases = true;
    }
  }

  /// Whether the terms and their sum keep within the clock's range; else a problem at the largest
  /// term's field (unless one of them has a problem already).
  template <std::size_t N>
  bool within_clock(const std::pair<const char*, double> (&terms)[N], std::string_view what) {
    double sum = 0;
    const std::pair<const char*, double>* largest = &terms[0];
    for (const auto& term : terms) {
      if (bad_.count(term.first)) return false;
      sum += term.second;
      if (term.second > largest->second) largest = &term;
    }
    if (duration_in_range(sum)) return true;
    problem(largest->first,
            fmt::format("a value keeping {} within the simulated clock's range (at most 100 years; see docs/limits.md)", what),
            fmt::format("{}, which makes it {:.3g} s", found_text(largest->first), sum));
    return false;
  }

  const json& doc_;
  std::string label_;
  ProblemList problems_;
  std::string base_dir_;
  Scenario s_;
  std::set<std::string> bad_;      ///< pointers with a recorded problem
  std::set<std::string> present_;  ///< pointers written in the document
  std::set<std::string> unchanged_;  ///< of those, the ones written with the value they held already
  std::vector<const Field*> missing_when_;
};

}  // namespace

Scenario load_scenario_json(const nlohmann::json& doc, const std::string& file_label, const std::string& base_dir) {
  return Reader(doc, file_label, base_dir).read();
}

}  // namespace ckptsim
