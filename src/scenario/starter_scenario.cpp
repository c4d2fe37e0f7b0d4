#include "ckptsim/scenario/starter_scenario.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "ckptsim/scenario/restart_phases.hpp"
#include "ckptsim/scenario/units.hpp"
#include "field_read.hpp"

namespace ckptsim {
namespace {

constexpr const char* kStarterLabel = "<command line>";

/// A deciding field's default: its value, the option that replaces it and the value's source
/// (docs/references.md gives each figure's paper and section).
struct StarterDefault {
  const char* pointer;
  const char* option;
  const char* value;
  const char* source;
};

// The defaults, in the order init prints them. Each is another cluster's published figure or
// our choice, and says so: the point of listing them is that the user replaces them.
constexpr StarterDefault kFailureRate{"/failures/rate", "--failure-rate", "1.5%/machine/day",
                                      "GEMINI, SOSP '23, from the OPT-175B log: about 2 of 124 machines down a day"};
constexpr StarterDefault kHardwareFraction{"/failures/hardware_fraction", "--hardware-fraction", "0.5",
                                           "our assumption: GEMINI gives no hardware/software split"};
constexpr StarterDefault kDetection{"/failures/detection", "--detection", "15s",
                                    "GEMINI: heartbeats to a key-value store"};
constexpr StarterDefault kReplacement{"/failures/replacement", "--replacement", "5min",
                                      "GEMINI's AWS testbed replaced an instance in 4-7 min; 5 min is our choice inside"};
constexpr StarterDefault kWarmup{"/failures/restart_phases/warmup", "--warmup", "253s",
                                 "GEMINI's measured warm-up: GPT-2 100B, DeepSpeed ZeRO-3, 16 x p4d"};
constexpr StarterDefault kStorage{"/storage/bandwidth", "--storage-bandwidth", "20Gbps",
                                  "GEMINI's testbed: remote storage, aggregate"};
constexpr StarterDefault kSerialization{"/training/serialization_bandwidth", "--serialization-bandwidth", "930MB/s",
                                        "from GEMINI's 81 s HighFreq stall: 100B x 12 B / 16 p4d / 81 s"};
// Spares keep the parameter table's default (ClusterSpec's initializer, which the loader leaves
// in place when the field is absent), so init and a hand-written scenario agree.
constexpr const char* kSparesPointer = "/cluster/standby_machines";
constexpr const char* kSparesOption = "--spares";

/// Collects the problems with the choices, each under the option that caused it.
class ChoiceChecks {
 public:
  ProblemList problems{kStarterLabel};

  void name(const char* option, const std::string& text, const std::vector<std::string>& names) {
    if (text.empty() || std::find(names.begin(), names.end(), text) != names.end()) return;
    problems.add(option, "one of " + quoted_names(names), fmt::format("\"{}\"{}", text, did_you_mean(text, names)));
  }

  void at_least(const char* option, const std::optional<long long>& value, long long least) {
    if (value && *value < least) problems.add(option, fmt::format("an integer of at least {}", least), std::to_string(*value));
  }

  /// A unit option's text through its parser (units.hpp); false when it is refused.
  template <typename Parse>
  bool unit(const char* option, const std::string& text, Parse parse) {
    if (text.empty()) return true;
    try {
      static_cast<void>(parse(text));
      return true;
    } catch (const UnitError& e) {
      problems.add(option, e.what(), "\"" + text + "\"");
      return false;
    }
  }
};

/// The GPUs per machine in effect: the option's, else the instance's; nullopt when unknown.
std::optional<long long> gpus_per_machine(const StarterChoices& c) {
  if (c.gpus_per_machine) return *c.gpus_per_machine;
  if (const InstancePreset* p = find_instance_preset(c.instance)) return p->gpus_per_machine;
  return std::nullopt;
}

bool megatron_options(const StarterChoices& c) { return c.tp || c.pp || c.dp || c.cp || c.ep || c.micro_batches; }

std::string parallelism_of(const StarterChoices& c) {
  if (!c.parallelism.empty()) return c.parallelism;
  return megatron_options(c) ? "megatron" : "zero3";
}

void check_hardware(const StarterChoices& c, ChoiceChecks& checks) {
  checks.name("--instance", c.instance, instance_preset_names());
  checks.name("--gpu", c.gpu, gpu_type_names());
  if (c.instance.empty() && c.gpu.empty())
    checks.problems.add("--instance", "an instance preset (" + quoted_names(instance_preset_names()) +
                                          "), or --gpu with the machine's figures", "nothing");
  if (c.instance.empty() && !c.gpu.empty()) {
    // No GPU type holds a machine's figures: without an instance they must be given.
    const char* why = " (--gpu without --instance: the machine's own figure)";
    if (!c.gpus_per_machine) checks.problems.add("--gpus-per-machine", std::string("an integer") + why, "nothing");
    if (c.cpu_memory.empty()) checks.problems.add("--cpu-memory", std::string("a size such as \"2TiB\"") + why, "nothing");
    if (c.network_bandwidth.empty())
      checks.problems.add("--network-bandwidth", std::string("a bandwidth such as \"400Gbps\"") + why, "nothing");
    if (c.gpu_cpu_bandwidth.empty())
      checks.problems.add("--gpu-cpu-bandwidth", std::string("a bandwidth such as \"32GB/s\"") + why, "nothing");
  }
  checks.at_least("--gpus-per-machine", c.gpus_per_machine, 1);
  checks.unit("--cpu-memory", c.cpu_memory, parse_bytes);
  checks.unit("--network-bandwidth", c.network_bandwidth, parse_bandwidth);
  checks.unit("--gpu-cpu-bandwidth", c.gpu_cpu_bandwidth, parse_bandwidth);
}

/// tp x pp x cp (x dp when given) against the GPU count: megatron's layout must cover every GPU.
void check_layout(const StarterChoices& c, ChoiceChecks& checks) {
  checks.name("--parallelism", c.parallelism, parallelism_names());
  checks.name("--engine", c.engine, engine_names());
  const std::pair<const char*, std::optional<long long>> layout[] = {
      {"--tp", c.tp}, {"--pp", c.pp}, {"--dp", c.dp}, {"--cp", c.cp}, {"--ep", c.ep}, {"--micro-batches", c.micro_batches}};
  for (const auto& [option, value] : layout) {
    checks.at_least(option, value, 1);
    if (value && parallelism_of(c) != "megatron")
      checks.problems.add(option, "a megatron layout option only with --parallelism megatron",
                          "--parallelism " + c.parallelism);
  }
  if (!c.engine.empty() && parallelism_of(c) != "zero3")
    checks.problems.add("--engine", "an engine only with --parallelism zero3 (megatron runs its own)",
                        "--parallelism " + parallelism_of(c));
  const std::optional<long long> per_machine = gpus_per_machine(c);
  if (parallelism_of(c) != "megatron" || !c.machines || *c.machines < 1 || !per_machine || *per_machine < 1) return;
  for (const auto& v : {c.tp, c.pp, c.dp, c.cp})
    if (v && *v < 1) return;  // reported above
  const long long gpus = *c.machines * *per_machine;
  const long long tp = c.tp.value_or(1), pp = c.pp.value_or(1), cp = c.cp.value_or(1);
  const long long model_parallel = tp * pp * cp;  // each at most the 2^31 of an int: no overflow
  const std::string sizes = fmt::format("{} x {} x {}", tp, pp, cp);
  const std::string cluster = fmt::format("{} GPUs of {} machines x {}", gpus, *c.machines, *per_machine);
  if (c.dp) {
    if (model_parallel * *c.dp != gpus)
      checks.problems.add("--tp x --pp x --cp x --dp", "a product equal to the " + cluster,
                          fmt::format("{} x {} = {}", sizes, *c.dp, model_parallel * *c.dp));
  } else if (gpus % model_parallel != 0) {
    checks.problems.add("--tp x --pp x --cp", "a product dividing the " + cluster + ", the quotient being dp",
                        fmt::format("{} = {}", sizes, model_parallel));
  }
}

void check_choices(const StarterChoices& c) {
  ChoiceChecks checks;
  check_hardware(c, checks);
  if (c.model.empty()) checks.problems.add("--model", "a model preset: " + quoted_names(model_preset_names()), "nothing");
  checks.name("--model", c.model, model_preset_names());
  if (!c.machines) checks.problems.add("--machines", "the number of machines training (an integer of at least 1)", "nothing");
  checks.at_least("--machines", c.machines, 1);
  checks.at_least("--micro-batch", c.micro_batch, 1);
  checks.at_least("--sequence-length", c.sequence_length, 1);
  checks.at_least("--spares", c.spares, 0);
  checks.name("--strategy", c.strategy, strategy_kind_names());
  checks.name("--attention", c.attention, attention_names());
  check_layout(c, checks);
  checks.unit("--duration", c.duration, parse_duration);
  checks.unit("--failure-rate", c.failure_rate, [](const std::string& t) { return read_failure_rate(t, RateScope::machine); });
  checks.unit("--hardware-fraction", c.hardware_fraction, parse_fraction);
  checks.unit("--detection", c.detection, parse_duration);
  checks.unit("--replacement", c.replacement, parse_duration);
  checks.unit("--warmup", c.warmup, parse_duration);
  checks.unit("--storage-bandwidth", c.storage_bandwidth, parse_bandwidth);
  checks.unit("--serialization-bandwidth", c.serialization_bandwidth, parse_bandwidth);
  checks.problems.throw_if_any();
}

/// Writes the fields into an ordered document and records each with its source.
class StarterWriter {
 public:
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  std::vector<StarterField> fields;
  std::vector<std::pair<std::string, std::string>> option_of;  ///< pointer -> the option that wrote it

  void chosen(const std::string& pointer, const nlohmann::ordered_json& value, const std::string& option,
              const std::string& source = {}) {
    put(pointer, value);
    fields.push_back({pointer, text(value), source.empty() ? option : source, false});
    if (source.empty()) option_of.emplace_back(pointer, option);
  }

  /// A deciding field: the option's text when given, else the default with its source.
  void deciding(const StarterDefault& d, const std::string& given, bool number = false) {
    const std::string value = given.empty() ? d.value : given;
    const nlohmann::ordered_json json_value =
        number ? nlohmann::ordered_json(given.empty() ? std::stod(d.value) : parse_fraction(given))
               : nlohmann::ordered_json(value);
    put(d.pointer, json_value);
    fields.push_back({d.pointer, text(json_value),
                      given.empty() ? fmt::format("{}; {} replaces it", d.source, d.option) : d.option, true});
    if (!given.empty()) option_of.emplace_back(d.pointer, d.option);
  }

  static std::string text(const nlohmann::ordered_json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

 private:
  void put(const std::string& pointer, const nlohmann::ordered_json& value) {
    doc[nlohmann::ordered_json::json_pointer(pointer)] = value;
  }
};

void write_choices(const StarterChoices& c, StarterWriter& w) {
  if (!c.instance.empty()) w.chosen("/cluster/instance", c.instance, "--instance");
  if (!c.gpu.empty()) w.chosen("/cluster/gpu", c.gpu, "--gpu");
  w.chosen("/cluster/machines", *c.machines, "--machines");
  if (c.gpus_per_machine) w.chosen("/cluster/gpus_per_machine", *c.gpus_per_machine, "--gpus-per-machine");
  if (!c.cpu_memory.empty()) w.chosen("/cluster/cpu_memory", c.cpu_memory, "--cpu-memory");
  if (!c.network_bandwidth.empty()) w.chosen("/cluster/network_bandwidth", c.network_bandwidth, "--network-bandwidth");
  if (!c.gpu_cpu_bandwidth.empty()) w.chosen("/cluster/gpu_cpu_bandwidth", c.gpu_cpu_bandwidth, "--gpu-cpu-bandwidth");
  w.chosen("/model/preset", c.model, "--model");
  const std::string parallelism = parallelism_of(c);
  if (!c.parallelism.empty()) {
    w.chosen("/training/parallelism", parallelism, "--parallelism");
  } else {
    w.chosen("/training/parallelism", parallelism, "",
             megatron_options(c) ? "megatron layout options" : "init's default: sharded data parallelism");
  }
  if (!c.engine.empty()) w.chosen("/training/engine", c.engine, "--engine");
  if (c.micro_batch) w.chosen("/training/micro_batch", *c.micro_batch, "--micro-batch");
  if (c.sequence_length) w.chosen("/training/sequence_length", *c.sequence_length, "--sequence-length");
  if (!c.attention.empty()) w.chosen("/training/attention", c.attention, "--attention");
  const std::tuple<const char*, const char*, std::optional<long long>> layout[] = {
      {"tp", "--tp", c.tp}, {"pp", "--pp", c.pp}, {"dp", "--dp", c.dp},
      {"cp", "--cp", c.cp}, {"ep", "--ep", c.ep}, {"micro_batches", "--micro-batches", c.micro_batches}};
  for (const auto& [key, option, value] : layout)
    if (value) w.chosen(std::string("/training/megatron/") + key, *value, option);
  if (!c.strategy.empty()) {
    w.chosen("/strategy/kind", c.strategy, "--strategy");
  } else {
    w.chosen("/strategy/kind", "gemini", "", "init's default: GEMINI's in-memory checkpoints");
  }
  w.chosen("/failures/process", "exponential", "", "init's choice: failures at a constant rate, /failures/rate");
  if (!c.duration.empty()) {
    w.chosen("/run/duration", c.duration, "--duration");
  } else {
    w.chosen("/run/duration", "30d", "", "init's choice: a month of training; --duration replaces it");
  }
}

void write_deciding(const StarterChoices& c, StarterWriter& w) {
  w.deciding(kFailureRate, c.failure_rate);
  w.deciding(kHardwareFraction, c.hardware_fraction, /*number=*/true);
  w.deciding(kDetection, c.detection);
  w.deciding(kReplacement, c.replacement);
  w.deciding(kWarmup, c.warmup);
  w.deciding(kStorage, c.storage_bandwidth);
  w.deciding(kSerialization, c.serialization_bandwidth);
  // Spares are a count: written as a number.
  const int format_default = ClusterSpec{}.standby_machines;
  const nlohmann::ordered_json spares = c.spares.value_or(format_default);
  w.chosen(kSparesPointer, spares, kSparesOption,
           c.spares ? "" : fmt::format("the parameter table's default: {}; {} replaces it",
                                       format_default == 0 ? std::string("none") : std::to_string(format_default),
                                       kSparesOption));
  w.fields.back().deciding = true;
}

/// The document in the order docs/scenario-format.md writes a scenario (the writer adds the
/// objects in the order the fields come).
nlohmann::ordered_json in_format_order(const nlohmann::ordered_json& doc) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const char* key : {"cluster", "storage", "model", "training", "strategy", "failures", "run"})
    if (doc.contains(key)) out[key] = doc[key];
  return out;
}

/// The loader's problems under the options that wrote their fields.
[[noreturn]] void rethrow_with_options(const InputError& e, const StarterWriter& w) {
  std::vector<Problem> problems = e.problems();
  for (Problem& p : problems)
    for (const auto& [pointer, option] : w.option_of)
      if (p.pointer == pointer) p.pointer += " (" + option + ")";
  throw InputError(std::move(problems));
}

/// The restart the phases make at this scale, as a field of its own (the run's `restart` line).
StarterField restart_field(const Scenario& s) {
  const std::int64_t ranks = static_cast<std::int64_t>(s.cluster.machines) * s.cluster.gpus_per_machine;
  const RestartPhases p = restart_phases(s.failures.restart_phases, ranks);
  return {"/failures/restart", fmt::format("{:.3f}s", s.failures.restart.seconds()),
          fmt::format("computed, not written: the restart phases at {} ranks: warm-up {:.3f} s + process start {:.3f} s + "
                      "communicator init {:.3f} s + rendezvous {:.3f} s + first iteration {:.3f} s; docs/models.md",
                      ranks, p.warmup.seconds(), p.process_start.seconds(), p.communicator_init.seconds(),
                      p.rendezvous.seconds(), p.first_iteration.seconds()),
          true};
}

}  // namespace

StarterScenario starter_scenario(const StarterChoices& choices, const std::string& file) {
  check_choices(choices);
  StarterWriter w;
  write_choices(choices, w);
  write_deciding(choices, w);
  const nlohmann::ordered_json doc = in_format_order(w.doc);
  StarterScenario out;
  out.text = doc.dump(2) + '\n';
  try {
    out.scenario = load_scenario_json(nlohmann::json::parse(out.text), file.empty() ? "<stdout>" : file, "");
  } catch (const InputError& e) {
    rethrow_with_options(e, w);
  }
  // Chosen fields first, then the deciding ones, the computed restart after the warm-up.
  std::stable_partition(w.fields.begin(), w.fields.end(), [](const StarterField& f) { return !f.deciding; });
  const auto warmup = std::find_if(w.fields.begin(), w.fields.end(),
                                   [](const StarterField& f) { return f.pointer == kWarmup.pointer; });
  w.fields.insert(warmup + 1, restart_field(out.scenario));
  out.fields = std::move(w.fields);
  return out;
}

}  // namespace ckptsim
