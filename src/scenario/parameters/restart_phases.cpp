// Parameters owned by the restart phases: an in-job restart and a new job as sums of named phases
// at the job's scale (scenario/restart_phases.hpp, where each default's source is given), the
// defaults of failures.restart and failures.restart_tiers.new_job.overhead. Read by the loader,
// which resolves those two fields; a written failures.restart or new_job.overhead overrides them.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock restart_phase_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"restart phases", {
    {"/failures/restart_phases/process_start", U::duration, C::non_negative, P::defaulted, R::run, "in-job restart: a worker process (container) started (default 5 s, Kubernetes' pod startup SLO, image pull excluded)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.process_start; }},
    {"/failures/restart_phases/rendezvous_per_rank", U::duration, C::non_negative, P::defaulted, R::run, "in-job restart: torch.distributed rendezvous per rank, the TCPStore server accepting each in turn (default 1.017 ms: about 100 s for 98,304 ranks, libuv backend, PyTorch 2.4)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.rendezvous_per_rank; }},
    {"/failures/restart_phases/nccl_init_fixed", U::duration, C::non_negative, P::defaulted, R::run, "in-job restart: NCCL communicator initialization's part that does not grow with the ranks (default 0.66 s, 8 ranks on one node, nccl-tests issue 273)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.nccl_init_fixed; }},
    {"/failures/restart_phases/nccl_bootstrap_step", U::duration, C::non_negative, P::defaulted, R::run, "in-job restart: one step of NCCL's bootstrap ring all-gathers (three per initialization, ranks - 1 steps each; default 0.896 ms, from ~265 s at 98,304 GPUs, Si et al. 2025)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.nccl_bootstrap_step; }},
    {"/failures/restart_phases/nccl_bootstrap_rings", U::integer, C::at_least_one, P::defaulted, R::run, "in-job restart: rings each bootstrap all-gather runs at once: 1 (NCCL up to 2.28: ranks - 1 steps) or 2 (NCCL 2.29: ranks / 2)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.nccl_bootstrap_rings; }},
    {"/failures/restart_phases/warmup", U::duration, C::non_negative, P::defaulted, R::run, "in-job restart: model and optimizer construction, compilation, loading into the engine, warm-up; your stack's own (default GEMINI's measured warm-up, 253 s: GPT-2 100B, DeepSpeed ZeRO-3, 16 x p4d)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.warmup; }},
    {"/failures/restart_phases/first_iteration", U::duration, C::non_negative, P::defaulted, R::run, "in-job restart: the first step's extra time beyond a steady one (lazy NCCL connections, cold caches); default 0, no measurement found",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.first_iteration; }},
    {"/failures/restart_phases/requeue", U::duration, C::non_negative, P::defaulted, R::run, "new job: the scheduler holding a requeued job back (default 121 s, Slurm's requeue delay: cred_expire 120 s + 1 s)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.requeue; }},
    {"/failures/restart_phases/health_check", U::duration, C::non_negative, P::defaulted, R::run, "new job: node health checks before it starts (default 0, no published duration found)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.health_check; }},
    {"/failures/restart_phases/image_pull", U::duration, C::non_negative, P::defaulted, R::run, "new job: the container image pulled on a fresh node (default 55.6 s, containerd pulling pytorch/pytorch on one VM)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_phases.image_pull; }},
  }};
  // clang-format on
  // The in-job phases are read (and written into the effective scenario) only where
  // failures.restart is their sum; the new-job phases only where a new job's overhead is theirs.
  static constexpr ReadCondition kInJob{[](const Scenario& s) { return s.failures.restart_from_phases; },
                                        "failures.restart is not written (a written restart overrides every phase)"};
  static constexpr ReadCondition kNewJob{
      [](const Scenario& s) { return s.failures.restart_tiers.enabled && s.failures.restart_tiers.new_job_overhead_from_phases; },
      "failures.restart_tiers.enabled is true and failures.restart_tiers.new_job.overhead is not written"};
  // The communicator init's rows are also read by an in-process restart, which rebuilds the
  // communicators (failure/restart_tiers.hpp).
  static constexpr ReadCondition kCommunicators{
      [](const Scenario& s) { return s.failures.restart_from_phases || s.failures.restart_tiers.enabled; },
      "failures.restart is not written, or failures.restart_tiers.enabled is true (an in-process restart rebuilds the "
      "communicators)"};
  for (Field& f : block.rows) {
    const bool new_job = f.pointer == "/failures/restart_phases/requeue" || f.pointer == "/failures/restart_phases/health_check" ||
                         f.pointer == "/failures/restart_phases/image_pull";
    const bool communicators = f.pointer.substr(0, 30) == "/failures/restart_phases/nccl_";
    const ReadCondition& condition = new_job ? kNewJob : communicators ? kCommunicators : kInJob;
    f.read_when = &condition;
    f.applies = condition.holds;
  }
  return block;
}

}  // namespace ckptsim
