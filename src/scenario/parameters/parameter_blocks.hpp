#pragma once
// The owners' blocks of the parameter table (private to the scenario layer): each owner declares
// its rows in src/scenario/parameters/<owner>.cpp, and scenario_fields() (parameters.cpp)
// assembles the table from these functions, in this order.
#include "ckptsim/scenario/parameters.hpp"

namespace ckptsim {

ParameterBlock scenario_name_parameters();
ParameterBlock cluster_parameters();
ParameterBlock gpu_parameters();
ParameterBlock network_parameters();
ParameterBlock storage_parameters();
ParameterBlock model_parameters();
ParameterBlock training_parameters();
ParameterBlock megatron_parameters();
ParameterBlock deepspeed_zero3_parameters();
ParameterBlock fsdp_parameters();
ParameterBlock strategy_parameters();
ParameterBlock failure_parameters();
ParameterBlock replacement_parameters();
ParameterBlock restart_phase_parameters();
ParameterBlock failure_domain_parameters();
ParameterBlock lemon_parameters();
ParameterBlock fault_model_parameters();
ParameterBlock migration_parameters();
ParameterBlock elastic_parameters();
ParameterBlock restart_tier_parameters();
ParameterBlock run_parameters();

/// The row of `block` at `pointer`, for what a block sets after its list (Field::read_when,
/// iteration_reads_when, iteration_value). A pointer the block does not hold is a bug
/// (std::logic_error at the table's first use).
Field& row_of(ParameterBlock& block, std::string_view pointer);

/// Every row of `block` is read only under `condition` (an engine's knobs).
void read_only_when(ParameterBlock& block, const ReadCondition& condition);

/// Conditions of rows (Field::applies, Field::iteration_reads_when) that several blocks share.
inline bool megatron_only(const Scenario& s) { return s.training.parallelism == Parallelism::megatron; }
inline bool zero3_only(const Scenario& s) { return s.training.parallelism == Parallelism::zero3; }
/// The restart-tier fields are written into the effective scenario only when the tiers are on
/// (scenarios without them keep their hash).
inline bool restart_tiers_on(const Scenario& s) { return s.failures.restart_tiers.enabled; }
inline bool deepspeed_engine(const Scenario& s) { return zero3_only(s) && s.training.engine == EngineKind::deepspeed_zero3; }
inline bool fsdp_engine(const Scenario& s) { return zero3_only(s) && s.training.engine == EngineKind::fsdp; }

inline constexpr ReadCondition kReadUnderMegatron{&megatron_only, "training.parallelism is \"megatron\""};
inline constexpr ReadCondition kReadUnderZero3{&zero3_only, "training.parallelism is \"zero3\""};
inline constexpr ReadCondition kReadUnderDeepSpeed{
    &deepspeed_engine, "training.parallelism is \"zero3\" and training.engine is \"deepspeed-zero3\""};
inline constexpr ReadCondition kReadUnderFsdp{&fsdp_engine, "training.parallelism is \"zero3\" and training.engine is \"fsdp\""};
inline constexpr ReadCondition kReadUnderRestartTiers{&restart_tiers_on, "failures.restart_tiers.enabled is true"};

/// The iteration model reads the seed only to draw a random placement.
inline bool random_placement(const Scenario& s) { return s.strategy.placement == PlacementScheme::random; }

}  // namespace ckptsim
