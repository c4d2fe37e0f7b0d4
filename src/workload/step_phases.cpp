// The step's network-silent phases (step_phases.hpp).
#include "ckptsim/workload/step_phases.hpp"

#include <algorithm>
#include <cmath>

#include "ckptsim/core/checked_time.hpp"

namespace ckptsim {
namespace {

/// multi_tensor_apply's elements per launch: chunks of 2048 x 32 = 65,536 elements, at most 320
/// blocks (one chunk each) per launch (DeepSpeed's csrc/adam/multi_tensor_apply.cuh, Apex's and
/// TransformerEngine's multi_tensor_apply.cuh alike): DeepSpeed's FusedAdam and Megatron's step.
constexpr double kMultiTensorElementsPerLaunch = 2048.0 * 32.0 * 320.0;

StepPhase phase(std::string_view name, StepPart part, double kernels, double syncs, double bytes,
                double host_bytes = 0) {
  StepPhase p;
  p.name = name;
  p.part = part;
  p.kernels = kernels;
  p.syncs = syncs;
  p.bytes = bytes;
  p.host_bytes = host_bytes;
  return p;
}

void time_phases(std::vector<StepPhase>& phases, const KernelTimer& timer, const StepShape& shape) {
  for (StepPhase& p : phases) {
    double s = timer.bytes_seconds(p.bytes) + (p.kernels + p.syncs) * timer.launch_seconds();
    if (p.host_bytes > 0 && shape.host_bandwidth > 0) s += p.host_bytes / shape.host_bandwidth;
    p.duration = checked_seconds(s, "/model/parameters", std::string("the step phase \"") + std::string(p.name) + "\"");
  }
}

}  // namespace

const char* to_string(StepPart part) {
  switch (part) {
    case StepPart::boundary: return "boundary";
    case StepPart::update: return "update";
    case StepPart::step_end: return "step end";
  }
  return "";
}

std::vector<StepPhase> boundary_phases(const KernelTimer& timer, const StepShape& x) {
  const double E = x.partition_elements;
  const double t = x.tensors;
  std::vector<StepPhase> out{
      phase("overflow: wait for gradient reduction", StepPart::boundary, 1, 1, 0),
      phase("overflow: flag to GPU", StepPart::boundary, 1, 0, 0, 1),
      phase("overflow: flag to host", StepPart::boundary, 1, 1, 0),
      phase("gradient norm per tensor", StepPart::boundary, 2 * t, 0, (x.word_bytes + 16) * E),
      phase("gradient norm: stack, square, sum", StepPart::boundary, 3, 0, 3 * 8 * t),
      phase("gradient norm to host", StepPart::boundary, 1, 1, 0),
  };
  time_phases(out, timer, x);
  return out;
}

std::vector<StepPhase> optimizer_step_phases(const KernelTimer& timer, const StepShape& x) {
  const double E = x.partition_elements;
  const double w = x.word_bytes;
  const double groups = std::max(1.0, std::ceil(E / x.sub_group_size));
  // Sub-groups of sub_group_size elements and one remainder; each launches FusedAdam
  // ceil(E_g / elements per launch) times.
  const double full = groups - 1;
  const double last = E - full * x.sub_group_size;
  const double adam_launches = full * std::ceil(x.sub_group_size / kMultiTensorElementsPerLaunch) +
                               std::ceil(std::max(last, 1.0) / kMultiTensorElementsPerLaunch);
  std::vector<StepPhase> out{
      phase("flatten 16-bit gradients", StepPart::update, groups, 0, 2 * w * E),
      phase("gradients to fp32", StepPart::update, groups, 0, (w + 4) * E),
      phase("unscale and clip", StepPart::update, groups, 0, 8 * E),
      phase("fused Adam", StepPart::update, adam_launches, 0, 28 * E),
      phase("fp32 to 16-bit parameters", StepPart::update, groups, 0, (4 + w) * E),
      phase("throughput timer synchronize", StepPart::step_end, 0, 1, 0),
      phase("next batch to GPU", StepPart::step_end, 2, 0, 0, 2 * 8 * x.tokens),
      phase("throughput timer synchronize (next forward)", StepPart::step_end, 0, 1, 0),
  };
  time_phases(out, timer, x);
  return out;
}

double multi_tensor_launches(double elements, double tensors, int depth) {
  // depth_to_max_tensors of multi_tensor_apply.cuh; chunks as above.
  constexpr double kMaxTensors[4] = {110, 64, 48, 36};
  if (elements <= 0 || tensors <= 0) return 0;
  const double by_chunks = std::ceil(elements / kMultiTensorElementsPerLaunch);
  const double by_tensors = std::ceil(tensors / kMaxTensors[std::clamp(depth, 1, 4) - 1]);
  return std::max(by_chunks, by_tensors);
}

std::vector<StepPhase> megatron_step_phases(const KernelTimer& timer, const MegatronStepShape& x) {
  double E = 0, t = 0, foreach1 = 0, scale2 = 0, adam4 = 0;
  for (const MegatronOptimizerPart& o : x.optimizers) {
    E += o.elements;
    t += o.tensors;
    foreach1 += multi_tensor_launches(o.elements, o.tensors, 1);
    scale2 += multi_tensor_launches(o.elements, o.tensors, 2);
    adam4 += multi_tensor_launches(o.elements, o.tensors, 4);
  }
  const auto opts = static_cast<double>(x.optimizers.size());
  const double w = x.word_bytes, g = x.grad_bytes;
  std::vector<StepPhase> out;
  const bool copy_grads = x.mixed_precision && g < 4;
  out.push_back(phase("copy gradients to main (fp32)", StepPart::boundary, copy_grads ? t : 0, 0, copy_grads ? (g + 4) * E : 0));
  if (x.mixed_precision && x.fp16) {
    StepPhase unscale = phase("unscale and check inf/NaN", StepPart::boundary, 4 * opts + foreach1, 0, 8 * E);
    unscale.sync = StepSync::found_inf;
    out.push_back(unscale);
    out.push_back(phase("found inf to host", StepPart::boundary, opts, opts, 0));
  }
  if (x.clip_grad > 0) {
    // One norm over all optimizers' gradients, or one per optimizer (each over its own tensors).
    const double norm_launches = x.norms > 1 ? foreach1 : multi_tensor_launches(E, t, 1);
    StepPhase norm = phase("gradient norm (multi_tensor_l2norm)", StepPart::boundary, 4.0 * x.norms + norm_launches, 0, 4 * E);
    norm.sync = StepSync::grad_norm;
    out.push_back(norm);
    out.push_back(phase("gradient norm to host", StepPart::boundary, x.norms, x.norms, 0));
    out.push_back(phase("clip (multi_tensor_scale)", StepPart::update, opts + scale2, 0, 8 * E));
  }
  out.push_back(phase("fused Adam", StepPart::update, adam4, 0, 28 * E));
  if (x.mixed_precision) {
    const bool multi_tensor_copy = x.fp16 && !x.distributed;
    out.push_back(phase("copy main parameters to model (16-bit)", StepPart::update, multi_tensor_copy ? opts + scale2 : t, 0,
                        (4 + w) * E));
  }
  out.push_back(phase("zero the gradient buffer (next step)", StepPart::step_end, x.buffers, 0, g * x.rank_parameters));
  StepShape none;
  time_phases(out, timer, none);
  return out;
}

SimTime total_duration(const std::vector<StepPhase>& phases) {
  SimTime t;
  for (const StepPhase& p : phases) t += p.duration;
  return t;
}

}  // namespace ckptsim
