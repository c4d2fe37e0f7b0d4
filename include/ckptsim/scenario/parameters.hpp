#pragma once
// The scenario format, declared once (CONTRIBUTING.md, style habit 3).
//
// scenario_fields() is the one table of every parameter a scenario file may hold: its JSON
// pointer, how its value is written (unit), where its value comes from when absent, its range
// and description, and which Scenario member it fills. The loader reads through it, the
// unknown-key check derives the allowed keys of every object from it, effective_scenario_json()
// writes through it, and scenario_parameters() turns it into the text `ckptsim list` prints.
//
// Parameters that do not apply to the chosen strategy kind or failure process are accepted,
// range-checked and ignored (e.g. strategy.gpu_buffer under "remote-periodic").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ckptsim/scenario/kinds.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// How a value is written in the input.
enum class Unit {
  text,               ///< any string
  name,               ///< a string from a fixed list of names (Field::choices)
  integer,            ///< a JSON integer
  seed,               ///< a non-negative JSON integer (64-bit)
  number,             ///< a JSON number
  fraction,           ///< 0.5 or "50%", in [0, 1]
  boolean,            ///< true / false
  duration,           ///< "15s" "5min" "3h" "30d", or a number of seconds
  duration_or_never,  ///< a duration or "never"
  bytes,              ///< "128MiB" "1.2TB", or a number of bytes
  bandwidth,          ///< "400Gbps" "25GB/s"
  failure_rate,       ///< "1.5%/machine/day"
  flop_rate,          ///< "312TFLOPS"
  cause_table,        ///< a cause preset name, or an array of {name, share, outcome, detection?, restart?}
};

/// Range check applied after a value was read.
enum class Check {
  none,
  positive,          ///< > 0
  non_negative,      ///< >= 0
  at_least_one,      ///< >= 1
  unit_interval,     ///< in (0, 1]
  probability,       ///< in [0, 1)
};

/// Where the value comes from when the key is absent.
enum class Presence {
  defaulted,         ///< the default in scenario.hpp
  required,          ///< must be written
  from_instance,     ///< from cluster.instance; required without one
  from_gpu,          ///< from the GPU type (cluster.gpu, or the instance's); required without one
  gpu_kernel,        ///< from the GPU type; without one unset (only the kernel model needs it)
  from_model,        ///< from model.preset; required without one
  computed,          ///< model.parameters: from the architecture (or the preset's published count)
  optional,          ///< absent means "not set" (std::optional)
  when_process,      ///< required when failures.process equals Field::when
  alias,             ///< another spelling of a field (top-level "seed" = run.seed); never written out
};

/// The Scenario member a field fills. Name-valued fields (Unit::name) bind a std::string (a
/// preset name) or one of the enums of kinds.hpp (parsed by its name table).
using FieldRef = std::variant<std::string*, int*, std::int64_t*, std::uint64_t*, double*, bool*, SimTime*,
                               std::optional<SimTime>*, std::optional<std::int64_t>*, std::optional<double>*,
                               StrategyKind*, PlacementScheme*, SchedulerKind*, FailureProcessKind*,
                               ReplacementDistribution*, LemonModel*, RestartTier*, AttentionKind*, CrossEntropyKind*, GeluKind*, FailureCauseTable*, EngineKind*,
                               Zero3Trace*, FsdpSharding*, FsdpBackwardPrefetch*, Parallelism*, Recomputation*,
                               NetworkTopology*, CollectiveAlgorithm*>;

struct Field {
  std::string_view pointer;      ///< RFC 6901 pointer in the scenario file
  Unit unit;
  Check check;
  Presence presence;
  std::string_view description;
  FieldRef (*bind)(Scenario&);   ///< the Scenario member this field fills
  std::vector<std::string> (*choices)() = nullptr;  ///< Unit::name only
  std::string_view when = {};    ///< Presence::when_process only: the process name
  /// When the field applies to a scenario only under some condition (the megatron fields under
  /// training.parallelism "megatron"): the effective scenario writes it only then, so scenarios
  /// that cannot use it keep their effective form (and hash). nullptr: always.
  bool (*applies)(const Scenario&) = nullptr;
};

/// Every field, objects in file order. /failures/replacement may also be a bare duration
/// (a fixed replacement time); its sub-fields describe the object form.
const std::vector<Field>& scenario_fields();

/// nullptr when no field has this pointer.
const Field* find_field(std::string_view pointer);

/// The names each name-valued field accepts.
std::vector<std::string> strategy_kind_names();
std::vector<std::string> failure_process_names();
std::vector<std::string> scheduler_names();
std::vector<std::string> topology_names();
std::vector<std::string> collective_names();
std::vector<std::string> replacement_distribution_names();
std::vector<std::string> parallelism_names();
std::vector<std::string> placement_names();
std::vector<std::string> lemon_model_names();
std::vector<std::string> restart_tier_names();
std::vector<std::string> engine_names();
std::vector<std::string> zero3_trace_names();
std::vector<std::string> fsdp_sharding_names();
std::vector<std::string> fsdp_backward_prefetch_names();
std::vector<std::string> attention_names();
std::vector<std::string> cross_entropy_names();
std::vector<std::string> gelu_names();
std::vector<std::string> recomputation_names();
// The enum-valued lists come from the name tables of kinds.hpp, which the registries of the
// layers above (strategy_registry(), placement_registry(), failure_process_registry(),
// scheduler_registry()) take their names from too; tests/unit/run/registry_names_test.cpp keeps
// the registries and the tables in step.

/// One parameter as `ckptsim list` prints it.
struct ParameterDoc {
  std::string pointer;
  std::string unit;          ///< "duration", "bandwidth", ... or the list of names
  std::string default_text;  ///< "3h", "required", "from cluster.instance", ...
  std::string description;
};

std::vector<ParameterDoc> scenario_parameters();

/// A short description of a unit for messages ("a duration such as \"15s\"").
std::string unit_expectation(Unit unit);

}  // namespace ckptsim
