// The table of scenario parameters (see parameters.hpp) and the listing derived from it.
#include "ckptsim/scenario/parameters.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "field_format.hpp"
#include "parameters/parameter_blocks.hpp"

namespace ckptsim {

std::vector<std::string> strategy_kind_names() { return names_of<StrategyKind>(); }
std::vector<std::string> failure_process_names() { return names_of<FailureProcessKind>(); }
std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (const SchedulerId id : all_schedulers()) names.push_back(name_of(id));
  return names;
}
std::vector<std::string> topology_names() { return names_of<NetworkTopology>(); }
std::vector<std::string> collective_names() { return names_of<CollectiveAlgorithm>(); }
std::vector<std::string> replacement_distribution_names() { return names_of<ReplacementDistribution>(); }
std::vector<std::string> parallelism_names() { return names_of<Parallelism>(); }
std::vector<std::string> recomputation_names() { return names_of<Recomputation>(); }
std::vector<std::string> ft_transport_names() { return names_of<FtTransport>(); }
std::vector<std::string> placement_names() { return names_of<PlacementScheme>(); }
std::vector<std::string> lemon_model_names() { return names_of<LemonModel>(); }
std::vector<std::string> restart_tier_names() { return names_of<RestartTier>(); }
std::vector<std::string> engine_names() { return names_of<EngineKind>(); }
std::vector<std::string> zero3_trace_names() { return names_of<Zero3Trace>(); }
std::vector<std::string> fsdp_sharding_names() { return names_of<FsdpSharding>(); }
std::vector<std::string> fsdp_backward_prefetch_names() { return names_of<FsdpBackwardPrefetch>(); }
std::vector<std::string> attention_names() { return names_of<AttentionKind>(); }
std::vector<std::string> cross_entropy_names() { return names_of<CrossEntropyKind>(); }
std::vector<std::string> gelu_names() { return names_of<GeluKind>(); }

namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += " | ";
    out += n;
  }
  return out;
}

std::string unit_label(const Field& f) {
  switch (f.unit) {
    case Unit::text: return "text";
    case Unit::name:
      // Presets are many and listed on their own by `ckptsim list`.
      if (f.choices == &instance_preset_names) return "instance preset name";
      if (f.choices == &model_preset_names) return "model preset name";
      if (f.choices == &gpu_type_names) return "GPU type name";
      return join_names(f.choices());
    case Unit::integer: return "integer";
    case Unit::seed: return "integer 0 .. 2^63-1";
    case Unit::number: return "number";
    case Unit::fraction: return "fraction";
    case Unit::boolean: return "boolean";
    case Unit::duration: return "duration";
    case Unit::duration_or_never: return "duration | never";
    case Unit::bytes: return "bytes";
    case Unit::bandwidth: return "bandwidth";
    case Unit::failure_rate: return "failure rate";
    case Unit::flop_rate: return "FLOP rate";
    case Unit::cause_table: return "cause preset name | array";
    case Unit::bus_curve: return "array of {size, bus_bandwidth}";
  }
  return "";
}

std::string default_label(const Field& f) {
  switch (f.presence) {
    case Presence::required: return "required";
    case Presence::from_instance: return "instance preset";
    case Presence::from_gpu: return "GPU type";
    case Presence::gpu_kernel: return "GPU type";
    case Presence::from_model: return "model preset";
    case Presence::computed: return "architecture";
    case Presence::from_phases: return "restart phases";
    case Presence::optional: return "not set";
    case Presence::alias: return "-";
    case Presence::when_process: return "required if " + std::string(f.when);
    case Presence::defaulted: break;
  }
  if (f.pointer == "/name") return "file name";
  Scenario defaults;
  const nlohmann::json value = format_field(f, defaults);
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

namespace {

/// The table: every owner's block in turn (the order `ckptsim list parameters`, the schema and
/// docs/parameters.md show), each row stamped with its owner.
std::vector<Field> assemble_fields() {
  std::vector<Field> fields;
  for (ParameterBlock (*block)() :
       {&scenario_name_parameters, &cluster_parameters, &gpu_parameters, &network_parameters, &storage_parameters,
        &model_parameters, &training_parameters, &megatron_parameters, &deepspeed_zero3_parameters, &fsdp_parameters,
        &strategy_parameters, &failure_parameters, &replacement_parameters, &restart_phase_parameters, &failure_domain_parameters, &lemon_parameters,
        &fault_model_parameters, &migration_parameters, &elastic_parameters, &restart_tier_parameters,
        &run_parameters}) {
    ParameterBlock b = block();
    for (Field& f : b.rows) {
      f.owner = b.owner;
      fields.push_back(std::move(f));
    }
  }
  return fields;
}

std::string read_by_label(ReadBy set) {
  std::string out;
  for (const auto& [model, name] : {std::pair{ReadBy::iteration, "iteration"}, std::pair{ReadBy::costs, "costs"},
                                    std::pair{ReadBy::run, "run"}, std::pair{ReadBy::placement, "placement"}}) {
    if (!includes(set, model)) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out.empty() ? "-" : out;
}

}  // namespace

const std::vector<Field>& scenario_fields() {
  static const std::vector<Field> fields = assemble_fields();
  return fields;
}

Field& row_of(ParameterBlock& block, std::string_view pointer) {
  for (Field& f : block.rows)
    if (f.pointer == pointer) return f;
  throw std::logic_error("parameter block \"" + std::string(block.owner) + "\" has no row " + std::string(pointer));
}

void read_only_when(ParameterBlock& block, const ReadCondition& condition) {
  for (Field& f : block.rows) f.read_when = &condition;
}

bool iteration_reads(const Field& field, const Scenario& scenario) {
  if (!includes(field.reads, ReadBy::iteration)) return false;
  return field.iteration_reads_when == nullptr || field.iteration_reads_when(scenario);
}

const Field* find_field(std::string_view pointer) {
  const auto& fields = scenario_fields();
  auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.pointer == pointer; });
  return it == fields.end() ? nullptr : &*it;
}

std::vector<ParameterDoc> scenario_parameters() {
  std::vector<ParameterDoc> out;
  for (const Field& f : scenario_fields())
    out.push_back({std::string(f.pointer), std::string(f.owner), read_by_label(f.reads), unit_label(f), default_label(f),
                   std::string(f.description)});
  return out;
}

std::string unit_expectation(Unit unit) {
  switch (unit) {
    case Unit::text: return "a string";
    case Unit::name: return "a name";
    case Unit::integer: return "an integer";
    case Unit::seed: return "an integer from 0 to 2^63-1 (9223372036854775807)";
    case Unit::number: return "a number";
    case Unit::fraction: return "a fraction in [0, 1] such as 0.5 or \"50%\"";
    case Unit::boolean: return "true or false";
    case Unit::duration: return "a duration such as \"15s\", \"5min\", \"3h\" or \"30d\" (or a number of seconds)";
    case Unit::duration_or_never: return "a duration such as \"3h\", or \"never\"";
    case Unit::bytes: return "a size such as \"128MiB\" or \"1.2TB\" (or a number of bytes)";
    case Unit::bandwidth: return "a bandwidth such as \"400Gbps\" or \"25GB/s\"";
    case Unit::failure_rate: return "a failure rate such as \"1.5%/machine/day\"";
    case Unit::flop_rate: return "a FLOP rate such as \"312TFLOPS\"";
    case Unit::bus_curve:
      return "an array of {\"size\": \"128MiB\", \"bus_bandwidth\": \"311GB/s\"} points in ascending size (nccl-tests' size and "
             "busbw)";
    case Unit::cause_table:
      return "a cause preset name (" + join_names(cause_preset_names()) +
             ") or an array of {\"name\", \"share\", \"outcome\": \"software\"|\"hardware\", \"detection\", \"restart\"}";
  }
  return "";
}

}  // namespace ckptsim
