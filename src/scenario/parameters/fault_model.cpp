// Parameters owned by fault model: faults beyond fail-stop: hangs, fail-slow stragglers, misdiagnosis,
// silent data corruption. Read by failure/fault_model.hpp. Rows of the parameter table
// (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock fault_model_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"fault model", {
    // Fault-model features (failure/fault_model.hpp; defaults and their sources in docs/models.md).
    {"/failures/hangs/fraction", U::fraction, C::none, P::defaulted, R::run, "share of failures that hang (processes alive, stuck in a collective) instead of crashing; detected by timeouts",
     [](Scenario& s) -> FieldRef { return &s.failures.hangs.fraction; }},
    {"/failures/hangs/collective_timeout", U::duration, C::positive, P::defaulted, R::run, "collective watchdog timeout (PyTorch ProcessGroupNCCL default 10 min)",
     [](Scenario& s) -> FieldRef { return &s.failures.hangs.collective_timeout; }},
    {"/failures/hangs/heartbeat_safety_factor", U::number, C::positive, P::defaulted, R::run, "heartbeat timeout / iteration time (NVIDIA Resiliency Extension safety_factor, heartbeats once per iteration)",
     [](Scenario& s) -> FieldRef { return &s.failures.hangs.heartbeat_safety_factor; }},
    {"/failures/hangs/check_interval", U::duration, C::non_negative, P::defaulted, R::run, "how often the rank monitor checks its timeouts (NVIDIA Resiliency Extension workload_check_interval)",
     [](Scenario& s) -> FieldRef { return &s.failures.hangs.check_interval; }},
    {"/failures/stragglers/rate", U::failure_rate, C::non_negative, P::defaulted, R::run, "fail-slow onsets per machine per unit time (\"/machine/\"), or of the whole cluster (\"/cluster/\"); 0 = none",
     [](Scenario& s) -> FieldRef { return &s.failures.stragglers.rate; }},
    {"/failures/stragglers/speed", U::fraction, C::positive, P::defaulted, R::run, "the synchronous job's throughput while a straggler is present, as a fraction of healthy",
     [](Scenario& s) -> FieldRef { return &s.failures.stragglers.speed; }},
    {"/failures/stragglers/duration", U::duration, C::positive, P::defaulted, R::run, "mean straggler duration (exponential) when not evicted",
     [](Scenario& s) -> FieldRef { return &s.failures.stragglers.duration; }},
    {"/failures/stragglers/eviction", U::duration_or_never, C::positive, P::defaulted, R::run, "from a straggler's onset to its eviction (straggler detection + decision; the machine is replaced as after a hardware failure), or \"never\"",
     [](Scenario& s) -> FieldRef { return &s.failures.stragglers.eviction; }},
    {"/failures/misdiagnosis/fraction", U::fraction, C::none, P::defaulted, R::run, "share of hardware failures whose diagnosis evicts a healthy machine (the faulty one fails again)",
     [](Scenario& s) -> FieldRef { return &s.failures.misdiagnosis.fraction; }},
    {"/failures/misdiagnosis/recurrence", U::duration, C::positive, P::defaulted, R::run, "mean time (exponential) until a misdiagnosed fault recurs",
     [](Scenario& s) -> FieldRef { return &s.failures.misdiagnosis.recurrence; }},
    {"/failures/silent_corruption/rate", U::failure_rate, C::non_negative, P::defaulted, R::run, "silent data corruptions per machine per unit time (\"/machine/\"), or of the whole cluster (\"/cluster/\"); 0 = none",
     [](Scenario& s) -> FieldRef { return &s.failures.silent_corruption.rate; }},
    {"/failures/silent_corruption/detection", U::duration, C::positive, P::defaulted, R::run, "from a corruption to its detection (loss spike, checksum); the run rolls back to a state before it",
     [](Scenario& s) -> FieldRef { return &s.failures.silent_corruption.detection; }},
  }};
  // clang-format on
  // Each mechanism's details are read only when the mechanism is on.
  static constexpr ReadCondition kHangs{[](const Scenario& s) { return s.failures.hangs.fraction > 0; },
                                        "failures.hangs.fraction is above 0"};
  static constexpr ReadCondition kStragglers{[](const Scenario& s) { return s.failures.stragglers.rate > 0; },
                                             "failures.stragglers.rate is above 0"};
  static constexpr ReadCondition kMisdiagnosis{[](const Scenario& s) { return s.failures.misdiagnosis.fraction > 0; },
                                               "failures.misdiagnosis.fraction is above 0"};
  static constexpr ReadCondition kCorruption{[](const Scenario& s) { return s.failures.silent_corruption.rate > 0; },
                                             "failures.silent_corruption.rate is above 0"};
  for (const char* pointer : {"/failures/hangs/collective_timeout", "/failures/hangs/heartbeat_safety_factor",
                              "/failures/hangs/check_interval"})
    row_of(block, pointer).read_when = &kHangs;
  for (const char* pointer : {"/failures/stragglers/speed", "/failures/stragglers/duration", "/failures/stragglers/eviction"})
    row_of(block, pointer).read_when = &kStragglers;
  row_of(block, "/failures/misdiagnosis/recurrence").read_when = &kMisdiagnosis;
  row_of(block, "/failures/silent_corruption/detection").read_when = &kCorruption;
  return block;
}

}  // namespace ckptsim
