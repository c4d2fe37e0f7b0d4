// Parameters owned by restart tiers: the NVIDIA Resiliency Extension's in-process, in-job and new-job
// restarts. Read by failure/restart_tiers.hpp. Rows of the parameter table (parameters.hpp): each says
// which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock restart_tier_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"restart tiers", {
    // Restart tiers (failure/restart_tiers.hpp; nvidia-resiliency-ext defaults, docs/models.md).
    {"/failures/restart_tiers/enabled", U::boolean, C::none, P::defaulted, R::run, "restart through the NVIDIA Resiliency Extension's tiers (in-process, in-job, new job) instead of the cause's flat restart",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.enabled; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/software", U::name, C::none, P::defaulted, R::run, "tier that restarts after a crash that leaves the machine intact",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.software; }, &restart_tier_names, {}, &restart_tiers_on},
    {"/failures/restart_tiers/hang", U::name, C::none, P::defaulted, R::run, "tier that restarts after a hang (in-process: found by the soft timeout, unless the in-job heartbeat finds it first)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.hang; }, &restart_tier_names, {}, &restart_tiers_on},
    {"/failures/restart_tiers/hardware", U::name, C::none, P::defaulted, R::run, "tier that restarts after a lost machine when a standby is free (in-process: a pre-initialized reserve worker); with none free, a new job",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.hardware; }, &restart_tier_names, {}, &restart_tiers_on},
    {"/failures/restart_tiers/in_process/latency", U::duration, C::non_negative, P::defaulted, R::run, "in-process restart beyond one iteration of pending CUDA kernels (Wrapper: destroy_process_group, last_call_wait, rank_assignment, barrier)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.in_process_latency; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/in_process/soft_timeout", U::duration, C::positive, P::defaulted, R::run, "in-process Wrapper soft_timeout: a rank without progress this long aborts and restarts",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.soft_timeout; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/in_process/monitor_interval", U::duration, C::non_negative, P::defaulted, R::run, "in-process Wrapper monitor_process_interval (a hang is found soft_timeout + this after its last progress)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.monitor_interval; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/in_job/latency", U::duration, C::non_negative, P::optional, R::run, "in-job restart: every worker restarts inside the job (default: the failure cause's restart)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.in_job_latency; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/new_job/overhead", U::duration, C::non_negative, P::from_phases, R::run, "a new scheduler job's time beyond an in-job restart, whole (overrides the new-job restart phases; default: requeue + health_check + image_pull of failures.restart_phases)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.new_job_overhead; }, nullptr, {},
     // As failures.restart: written only when the file wrote it (else as the new-job phases).
     [](const Scenario& s) { return restart_tiers_on(s) && !s.failures.restart_tiers.new_job_overhead_from_phases; }},
  }};
  // clang-format on
  for (Field& f : block.rows)
    if (f.pointer != "/failures/restart_tiers/enabled") f.read_when = &kReadUnderRestartTiers;
  return block;
}

}  // namespace ckptsim
