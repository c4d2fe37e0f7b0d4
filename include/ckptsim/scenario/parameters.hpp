#pragma once
// The scenario format, declared once (CONTRIBUTING.md, style habit 3).
//
// Every parameter a scenario file may hold is a Field: its JSON pointer, how its value is
// written (unit), where its value comes from when absent, its range and description, which
// Scenario member it fills, and which models read it (ReadBy). The rows are declared by the unit
// that owns them, one block per owner (src/scenario/parameters/<owner>.cpp: the cluster, the GPU
// type, the network, the model, each engine, Megatron, the strategies, the failure process and
// each fault mechanism, the run), and scenario_fields() assembles the table from those blocks.
// Everything that must name every parameter derives from it: the loader reads through it, the
// unknown-key check takes the allowed keys of every object from it, effective_scenario_json()
// writes through it, scenario_parameters() turns it into the text `ckptsim list parameters` and
// docs/parameters.md print, the JSON Schema is generated from it, and the sweep's cache key of
// the iteration model (sweep/evaluate.hpp) is every row the iteration model reads.
//
// Parameters that do not apply to the chosen strategy kind or failure process are accepted and
// range-checked; those the chosen strategy does not read are named in a warning
// (run/unread_fields.hpp).
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
  bus_curve,          ///< an array of {size, bus_bandwidth}: a measured nccl-tests curve (bus_curve.hpp)
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
  from_phases,       ///< failures.restart, a new job's overhead: the restart phases' sum (scenario/restart_phases.hpp)
  optional,          ///< absent means "not set" (std::optional)
  when_process,      ///< required when failures.process equals Field::when
  alias,             ///< another spelling of a field (top-level "seed" = run.seed); never written out
};

/// The models that read a field: what a change of it can change. A set (combine with |).
/// `iteration` is checked by a property test over the whole table (tests/unit/sweep/
/// cost_key_test.cpp): a row whose change moves the iteration model's costs must say so, since
/// the sweep's cache key is built from those rows; `costs` likewise for the strategy's costs.
enum class ReadBy : unsigned {
  label = 0,           ///< nothing computed (the scenario's name)
  iteration = 1u << 0, ///< the iteration model: training time, idle spans, checkpoint traffic, GPU memory
  costs = 1u << 1,     ///< the strategy's costs beyond the iteration model (stalls, retrievals, periods)
  run = 1u << 2,       ///< the run model and the closed forms: failures, recovery, the run's own settings
  placement = 1u << 3, ///< the replica placement study (`ckptsim placement`)
};
constexpr ReadBy operator|(ReadBy a, ReadBy b) {
  return static_cast<ReadBy>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
/// Whether `set` holds every model of `model`.
constexpr bool includes(ReadBy set, ReadBy model) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(model)) == static_cast<unsigned>(model);
}

/// The Scenario member a field fills. Name-valued fields (Unit::name) bind a std::string (a
/// preset name), one of the enums of kinds.hpp (parsed by its name table) or a SchedulerId (by the
/// process's list of scheduler names, scenario/scheduler_id.hpp).
using FieldRef = std::variant<std::string*, int*, std::int64_t*, std::uint64_t*, double*, bool*, SimTime*,
                               std::optional<SimTime>*, std::optional<std::int64_t>*, std::optional<double>*,
                               StrategyKind*, PlacementScheme*, SchedulerId*, FailureProcessKind*,
                               ReplacementDistribution*, LemonModel*, RestartTier*, AttentionKind*, CrossEntropyKind*, GeluKind*, FailureCauseTable*, EngineKind*,
                               Zero3Trace*, FsdpSharding*, FsdpBackwardPrefetch*, Parallelism*, Recomputation*, FtTransport*,
                               NetworkTopology*, CollectiveAlgorithm*, std::optional<BusCurve>*>;

struct Field {
  std::string_view pointer;      ///< RFC 6901 pointer in the scenario file
  Unit unit;
  Check check;
  Presence presence;
  ReadBy reads;                  ///< the models that read it
  std::string_view description;
  FieldRef (*bind)(Scenario&);   ///< the Scenario member this field fills
  std::vector<std::string> (*choices)() = nullptr;  ///< Unit::name only
  std::string_view when = {};    ///< Presence::when_process only: the process name
  /// When the field applies to a scenario only under some condition (the megatron fields under
  /// training.parallelism "megatron"): the effective scenario writes it only then, so scenarios
  /// that cannot use it keep their effective form (and hash). nullptr: always.
  bool (*applies)(const Scenario&) = nullptr;
  // Set by the owner's block after its list of rows (row_of, parameters/parameter_blocks.hpp):
  /// When the iteration model reads the field only under some condition (the seed, under random
  /// placement): outside it, `reads` holds no `iteration`. nullptr: `reads` as declared.
  bool (*iteration_reads_when)(const Scenario&) = nullptr;
  /// What the iteration model reads of the field when that is less than its value (of the
  /// strategy kind, its checkpoint layout): the cache key holds this instead. nullptr: the value.
  std::string (*iteration_value)(const Scenario&) = nullptr;
  /// When the field is read at all only under some condition (the FSDP knobs, under the FSDP
  /// engine): a scenario that writes it outside that condition gets a warning naming it
  /// (run/unread_fields.hpp). nullptr: always read (or, for /strategy rows, read by the strategies
  /// whose parameters() name it).
  const struct ReadCondition* read_when = nullptr;
  /// The unit that declares it (its block's owner: "cluster", "fsdp", "strategy", ...), set by
  /// scenario_fields().
  std::string_view owner = {};
};

/// A condition under which a field is read, and how a warning says it.
struct ReadCondition {
  bool (*holds)(const Scenario&);
  std::string_view text;  ///< completes "read only when ...": "training.engine is \"fsdp\""
};

/// Whether the iteration model reads `field` for `scenario` (its row's ReadBy, and condition).
bool iteration_reads(const Field& field, const Scenario& scenario);

/// One owner's rows (src/scenario/parameters/<owner>.cpp).
struct ParameterBlock {
  std::string_view owner;
  std::vector<Field> rows;
};

/// Every field: the owners' blocks in the order of parameters.cpp, each block's rows in its own
/// order. /failures/replacement may also be a bare duration
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
std::vector<std::string> ft_transport_names();
// The enum-valued lists come from the name tables of kinds.hpp, which the registries of the
// layers above (strategy_registry(), placement_registry(), failure_process_registry(),
// scheduler_registry()) take their names from too; tests/unit/run/registry_names_test.cpp keeps
// the registries and the tables in step.

/// One parameter as `ckptsim list` prints it.
struct ParameterDoc {
  std::string pointer;
  std::string owner;         ///< the declaring unit
  std::string read_by;       ///< "iteration, costs", "run", ... (ReadBy)
  std::string unit;          ///< "duration", "bandwidth", ... or the list of names
  std::string default_text;  ///< "3h", "required", "from cluster.instance", ...
  std::string description;
};

std::vector<ParameterDoc> scenario_parameters();

/// A short description of a unit for messages ("a duration such as \"15s\"").
std::string unit_expectation(Unit unit);

}  // namespace ckptsim
