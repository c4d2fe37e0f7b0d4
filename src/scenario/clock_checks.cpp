// Clock-range checks of a scenario (checks.hpp; docs/limits.md, "Clock range").
//
// Before any model runs, the loader estimates the durations a scenario derives, to first order,
// and refuses the scenario when one leaves the simulated clock's range (finite, at most
// kMaxDuration = 100 years; SimTime holds +-292 years). Each estimate is a product of input
// fields; the problem is reported at the factor farthest from a typical value in the direction
// that lengthens the duration (|log(value/typical)|), so "sequence_length": 1e9 is blamed rather
// than the model size it multiplies. Estimates (bytes in, bytes/s out, seconds):
//   compute      (6 x parameters + 12 x layers x sequence_length x hidden) x micro_batch x
//                sequence_length / (gpu_peak_flops x efficiency)   (x 4/3 with recomputation):
//                the kernel model's GEMM-bound time (workload/kernel_time.hpp: FLOPs at the
//                GPU's GEMM efficiency, gpu_gemm_efficiency, or at the compute_efficiency
//                override; the kernel model itself lies in a layer above and refuses, with
//                checked arithmetic, what this estimate lets through)
//   network      6 x parameters / (network_bandwidth x collective_efficiency)   (3 collectives
//                of 2-byte parameters)
//   send         parameters x checkpoint_bytes_per_parameter / machines /
//                (network_bandwidth x p2p_efficiency)      (one shard to a peer)
//   PCIe         2 x parameters / gpu_cpu_bandwidth
//   NVLink       6 x parameters / nvlink_bandwidth
//   storage      parameters x checkpoint_bytes_per_parameter / storage bandwidth
//   snapshot     parameters x checkpoint_bytes_per_parameter / machines / serialization_bandwidth
//   latency      6 x layers x machines x gpus_per_machine x latency   (ring steps per iteration)
//   launches     100 x layers x gpu_kernel_launch   (about 60 kernels per layer in forward,
//                recomputation and backward, and the optimizer step's per-tensor norms)
//   hooks        100 x layers x hook_host_time   (DeepSpeed ZeRO-3 calls 2 hooks per submodule
//                use, about 12 uses per layer in forward and backward (GPT-2 100B: 1,492 uses
//                for 124 layers), more with recomputation; FSDP 4 per unit, one unit per layer)
//   run          iterations x iteration_time, every_iterations x iteration_time (explicit time)
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "checks.hpp"
#include "ckptsim/core/checked_time.hpp"

namespace ckptsim {
namespace {

struct Factor {
  std::string_view pointer;
  double value;
  double typical;  ///< a usual value, to find the most unusual factor
  int power;       ///< +1: the duration grows with the value; -1: it shrinks
};

/// Refuses `seconds` (derived from `factors`) when it leaves the clock, blaming one factor.
void check_derived(CheckContext& ctx, std::string_view what, double seconds, std::initializer_list<Factor> factors) {
  for (const Factor& f : factors)
    if (ctx.bad.count(std::string(f.pointer))) return;  // already reported
  if (duration_in_range(seconds)) return;
  const Factor* blamed = nullptr;
  double worst = -HUGE_VAL;
  for (const Factor& f : factors) {
    const double deviation = f.value > 0 ? f.power * std::log(f.value / f.typical) : HUGE_VAL;
    if (deviation > worst) {
      worst = deviation;
      blamed = &f;
    }
  }
  const std::string pointer(blamed->pointer);
  const std::string found = ctx.found(pointer);
  ctx.bad.insert(pointer);
  ctx.problems.add(pointer,
                   fmt::format("a value keeping {} within the simulated clock's range (at most 100 years; see "
                               "docs/limits.md)",
                               what),
                   fmt::format("{}, which makes it {:.3g} s", found, seconds));
}


/// A lognormal wait's mean, median x exp(sigma^2 / 2), must fit the clock.
/// check_derived for a plain product: constant x the factors (each to its power).
void check_estimate(CheckContext& ctx, std::string_view what, double constant, std::initializer_list<Factor> factors) {
  double seconds = constant;
  for (const Factor& f : factors) seconds = f.power > 0 ? seconds * f.value : seconds / f.value;
  check_derived(ctx, what, seconds, factors);
}

void check_lognormal(const Scenario& s, CheckContext& ctx) {
  const ReplacementSpec& r = s.failures.replacement;
  if (r.distribution != ReplacementDistribution::lognormal || ctx.bad.count("/failures/replacement/sigma")) return;
  const double log_mean = std::log(std::max(r.median.seconds(), 1e-9)) + r.sigma * r.sigma / 2;
  if (log_mean <= std::log(kMaxDurationSeconds)) return;
  const std::string pointer = "/failures/replacement/sigma";
  ctx.problems.add(pointer,
                   "a sigma keeping the mean replacement wait, median x exp(sigma^2/2), within the simulated clock's "
                   "range (at most 100 years; see docs/limits.md)",
                   fmt::format("{}, which makes the mean exp({:.3g}) s", ctx.found(pointer), log_mean));
  ctx.bad.insert(pointer);
}

}  // namespace

void check_clock_range(const Scenario& s, CheckContext& ctx) {
  check_lognormal(s, ctx);
  const double p = s.model.parameters;
  if (!(p > 0) || s.cluster.machines < 1) return;  // reported elsewhere
  if (!s.training.iteration_time) {
    // FLOPs per token: 6 per parameter plus attention's 12 x layers x sequence x hidden (forward
    // and backward; Kaplan et al. 2020, https://arxiv.org/abs/2001.08361, Table 1), 4/3 of it
    // with activation recomputation.
    const double seq = s.training.sequence_length;
    const double flops_per_token = (s.training.activation_recomputation ? 4.0 / 3.0 : 1.0) *
                                   (6.0 * p + 12.0 * s.model.layers * seq * s.model.hidden);
    const double tokens = double(s.training.micro_batch) * seq;
    const bool override = s.training.compute_efficiency.has_value();
    const double efficiency = override ? *s.training.compute_efficiency
                                       : (s.cluster.kernels.gemm_efficiency > 0 ? s.cluster.kernels.gemm_efficiency : 1.0);
    const std::string_view efficiency_pointer =
        override ? "/training/compute_efficiency" : "/cluster/gpu_gemm_efficiency";
    check_derived(ctx, "one iteration's compute time",
                  flops_per_token * tokens / (s.cluster.gpu_peak_flops * efficiency),
                  {{"/model/parameters", p, 1e11, 1},
                    {"/training/micro_batch", double(s.training.micro_batch), 8, 1},
                    {"/training/sequence_length", double(s.training.sequence_length), 2048, 1},
                    {"/cluster/gpu_peak_flops", s.cluster.gpu_peak_flops, 312e12, -1},
                    {efficiency_pointer, efficiency, 0.5, -1}});
    check_estimate(ctx, "one iteration's network traffic time", 6.0,
                   {{"/model/parameters", p, 1e11, 1}, {"/cluster/network_bandwidth", s.cluster.network_bandwidth, 50e9, -1},
                    {"/cluster/network/collective_efficiency", s.cluster.network.collective_efficiency, 0.6, -1}});
    check_estimate(ctx, "a shard's send to a peer", 1.0,
                   {{"/model/parameters", p, 1e11, 1},
                    {"/training/checkpoint_bytes_per_parameter", s.training.checkpoint_bytes_per_parameter, 12, 1},
                    {"/cluster/machines", double(s.cluster.machines), 16, -1},
                    {"/cluster/network_bandwidth", s.cluster.network_bandwidth, 50e9, -1},
                    {"/cluster/network/p2p_efficiency", s.cluster.network.p2p_efficiency, 0.55, -1}});
    check_estimate(ctx, "one iteration's PCIe traffic time", 2.0,
                   {{"/model/parameters", p, 1e11, 1}, {"/cluster/gpu_cpu_bandwidth", s.cluster.gpu_cpu_bandwidth, 32e9, -1}});
    check_estimate(ctx, "one iteration's NVLink traffic time", 6.0,
                   {{"/model/parameters", p, 1e11, 1}, {"/cluster/nvlink_bandwidth", s.cluster.nvlink_bandwidth, 300e9, -1}});
    check_estimate(ctx, "one iteration's kernel launches", 100.0,
                   {{"/cluster/gpu_kernel_launch", s.cluster.kernels.launch_overhead.seconds(), 3e-6, 1},
                    {"/model/layers", double(s.model.layers), 100, 1}});
    check_estimate(ctx, "one iteration's host hook time", 100.0,
                   {{"/training/hook_host_time", s.training.hook_host_time.seconds(), 1e-4, 1},
                    {"/model/layers", double(s.model.layers), 100, 1}});
    check_estimate(ctx, "one iteration's message latency", 6.0,
                   {{"/cluster/network/latency", s.cluster.network.latency.seconds(), 1e-5, 1},
                    {"/model/layers", double(s.model.layers), 100, 1},
                    {"/cluster/machines", double(s.cluster.machines), 16, 1},
                    {"/cluster/gpus_per_machine", double(s.cluster.gpus_per_machine), 8, 1}});
    // The megatron model's groups inside a machine step at the NVLink latency (the same estimate).
    check_estimate(ctx, "one iteration's NVLink step latency", 6.0,
                   {{"/cluster/nvlink_latency", s.cluster.nvlink_latency.seconds(), 1e-5, 1},
                    {"/model/layers", double(s.model.layers), 100, 1},
                    {"/cluster/machines", double(s.cluster.machines), 16, 1},
                    {"/cluster/gpus_per_machine", double(s.cluster.gpus_per_machine), 8, 1}});
  } else {
    const double t = s.training.iteration_time->seconds();
    if (s.run.iterations)
      check_estimate(ctx, "the run's failure-free length", 1.0,
                     {{"/run/iterations", double(*s.run.iterations), 1e5, 1}, {"/training/iteration_time", t, 60, 1}});
    check_estimate(ctx, "the time between checkpoints", 1.0,
                   {{"/strategy/every_iterations", double(s.strategy.every_iterations), 1, 1},
                    {"/training/iteration_time", t, 60, 1}});
  }
  check_estimate(ctx, "a checkpoint's upload to storage", 1.0,
                 {{"/model/parameters", p, 1e11, 1},
                  {"/training/checkpoint_bytes_per_parameter", s.training.checkpoint_bytes_per_parameter, 12, 1},
                  {"/storage/bandwidth", s.storage.bandwidth, 2.5e9, -1}});
  check_estimate(ctx, "a shard's snapshot time", 1.0,
                 {{"/model/parameters", p, 1e11, 1},
                  {"/training/checkpoint_bytes_per_parameter", s.training.checkpoint_bytes_per_parameter, 12, 1},
                  {"/cluster/machines", double(s.cluster.machines), 16, -1},
                  {"/training/serialization_bandwidth", s.training.serialization_bandwidth, 1e9, -1}});
}

}  // namespace ckptsim
