// The compute report (compute_report.hpp): built from the kernel model and DeepSpeed ZeRO-3's
// step phases, printed as a table or JSON.
#include "ckptsim/output/compute_report.hpp"

#include <array>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/scenario/units.hpp"
#include "ckptsim/workload/deepspeed_zero3.hpp"

namespace ckptsim {
namespace {

constexpr std::array<Pass, 3> kAllPasses{Pass::forward, Pass::recompute, Pass::backward};
constexpr std::array<ComputeUse, kComputeUses> kAllUses{ComputeUse::embedding, ComputeUse::qkv, ComputeUse::out,
                                                        ComputeUse::fc1,       ComputeUse::fc2, ComputeUse::output};

bool has_pass(const ComputeReport& r, ComputeUse use, Pass pass) {
  if (pass != Pass::recompute) return true;
  return r.times.shape().recompute && use != ComputeUse::embedding && use != ComputeUse::output;
}

std::string milliseconds_text(double seconds) { return fmt::format("{:.3f} ms", seconds * 1e3); }

std::string kernel_shape(const Kernel& k) {
  switch (k.bound) {
    case KernelBound::gemm:
      return k.batch > 1 ? fmt::format("GEMM {:.0f} x {:.0f} x {:.0f}, batch {:.0f}", k.m, k.n, k.k, k.batch)
                         : fmt::format("GEMM {:.0f} x {:.0f} x {:.0f}", k.m, k.n, k.k);
    case KernelBound::memory: return format_bytes(k.bytes);
    case KernelBound::fused_attention: return fmt::format("{:.3g} FLOPs fused", k.flops);
  }
  return "";
}

void print_gpu(std::ostream& out, const ComputeReport& r) {
  const Scenario& s = r.scenario;
  const ClusterSpec& c = s.cluster;
  out << fmt::format("compute model: {} — {}, {} attention, micro-batch {} x {} tokens\n", s.name,
                     c.gpu.empty() ? std::string("explicit GPU") : c.gpu, name_of(s.training.attention),
                     s.training.micro_batch, s.training.sequence_length);
  if (r.times.overridden()) {
    out << fmt::format("  training.compute_efficiency {:.3f} replaces the kernel model: FLOPs at {:.1f} TFLOPS\n",
                       *s.training.compute_efficiency, *s.training.compute_efficiency * c.gpu_peak_flops / 1e12);
    return;
  }
  const GpuKernelSpec& k = c.kernels;
  out << fmt::format("  peak {:.1f} TFLOPS; GEMMs at {:.3f} of it in waves of {} SMs ({} x {} tiles); HBM {:.0f} GB/s "
                     "at {:.3f} of it; {} per kernel launch{}\n",
                     c.gpu_peak_flops / 1e12, k.gemm_efficiency, k.sms, k.tile_m, k.tile_n,
                     c.gpu_memory_bandwidth / 1e9, k.memory_efficiency, format_duration(k.launch_overhead),
                     k.flash_efficiency ? fmt::format("; FlashAttention-2 at {:.3f} of the peak", *k.flash_efficiency)
                                        : std::string());
  if (k.gemm_depth_overhead && k.gemm_reference_depth)
    out << fmt::format("  GEMM inner depth k: each tile pays K0 = {:g} elements more, so depth k runs at "
                       "min(1, k/(k+K0) x {:g}/{:g}) of the GEMM figure (k below 768 taken as 768)\n",
                       *k.gemm_depth_overhead, *k.gemm_reference_depth + *k.gemm_depth_overhead,
                       *k.gemm_reference_depth);
  else
    out << "  GEMM inner depth k: no per-shape sweep for this GPU; every depth at the GEMM figure\n";
}

void print_layer(std::ostream& out, const ComputeReport& r) {
  out << fmt::format("\n{:<38} {:>12} {:>12} {:>12} {:>12}\n", "one layer by kernel class", "forward", "recompute",
                     "backward", "layer");
  std::array<double, 4> totals{};
  for (int c = 0; c < kKernelClasses; ++c) {
    std::array<double, 4> row{};
    for (std::size_t p = 0; p < kAllPasses.size(); ++p) {
      for (ComputeUse use : kLayerUses) {
        if (!has_pass(r, use, kAllPasses[p])) continue;
        row[p] += r.times.seconds_by_class(use, kAllPasses[p])[static_cast<std::size_t>(c)];
      }
      row[3] += row[p];
    }
    for (std::size_t i = 0; i < 4; ++i) totals[i] += row[i];
    if (row[3] == 0) continue;  // the loss and embedding kernels lie outside the layers
    out << fmt::format("  {:<36} {:>12} {:>12} {:>12} {:>12}\n", to_string(static_cast<KernelClass>(c)),
                       milliseconds_text(row[0]), milliseconds_text(row[1]), milliseconds_text(row[2]),
                       milliseconds_text(row[3]));
  }
  out << fmt::format("  {:<36} {:>12} {:>12} {:>12} {:>12}\n", "total", milliseconds_text(totals[0]),
                     milliseconds_text(totals[1]), milliseconds_text(totals[2]), milliseconds_text(totals[3]));
}

void print_uses(std::ostream& out, const ComputeReport& r) {
  out << fmt::format("\n{:<38} {:>12} {:>12} {:>12}\n", "submodule uses", "forward", "recompute", "backward");
  for (ComputeUse use : kAllUses) {
    std::array<std::string, 3> cells;
    for (std::size_t p = 0; p < kAllPasses.size(); ++p)
      cells[p] = has_pass(r, use, kAllPasses[p]) ? milliseconds_text(r.times.duration(use, kAllPasses[p]).seconds()) : "-";
    out << fmt::format("  {:<36} {:>12} {:>12} {:>12}\n", to_string(use), cells[0], cells[1], cells[2]);
  }
  out << fmt::format("  iteration compute {:.3f} s ({} layers, the embedding and output stages)\n",
                     r.times.iteration().seconds(), r.times.shape().layers);
}

/// The fraction of the GPU's peak a kernel that executes FLOPs achieves: FLOPs / (t · P), its
/// launch, tile and wave quantization included (0 for memory-bound kernels).
double peak_fraction(const ComputeReport& r, const Kernel& k, double seconds) {
  const double peak = r.scenario.cluster.gpu_peak_flops;
  return k.flops > 0 && seconds > 0 && peak > 0 ? k.flops / (seconds * peak) : 0.0;
}

/// A GEMM's depth factor d(k) (kernel_time.hpp); 0 for other kernels and with the override.
double depth_factor(const ComputeReport& r, const Kernel& k) {
  return k.bound == KernelBound::gemm && !r.times.overridden() ? r.times.timer().gemm_depth_factor(k.k) : 0.0;
}

/// A GEMM's waves of tiles over the SMs (kernel_time.hpp); 0 for other kernels.
double gemm_waves(const ComputeReport& r, const Kernel& k) {
  return k.bound == KernelBound::gemm ? r.times.timer().gemm_waves(k.m, k.n, k.batch) : 0.0;
}

void print_kernels(std::ostream& out, const ComputeReport& r) {
  out << "\nkernels (one layer, the embedding and output stages; GEMMs and fused attention: the fraction of the peak\n"
         "they achieve, FLOPs / (time x peak) with tile and wave quantization and the launch; GEMMs: waves of tiles\n"
         "and the depth factor d(k))\n";
  for (ComputeUse use : kAllUses)
    for (Pass pass : kAllPasses) {
      if (!has_pass(r, use, pass)) continue;
      for (const auto& [k, seconds] : r.times.timed_kernels(use, pass)) {
        std::string achieved;
        if (const double f = peak_fraction(r, k, seconds); f > 0) achieved = fmt::format("  {:.3f} of peak", f);
        if (k.bound == KernelBound::gemm && !r.times.overridden())
          achieved += fmt::format(", {:.0f} waves, d {:.3f}", gemm_waves(r, k), depth_factor(r, k));
        out << fmt::format("  {:<10} {:<10} {:<38} {:<44} {:>11}{}\n", to_string(use), to_string(pass), k.name,
                           kernel_shape(k), fmt::format("{:.1f} us", seconds * 1e6), achieved);
      }
    }
}

}  // namespace

void print_step_phases(std::ostream& out, const char* title, const std::vector<StepPhase>& phases) {
  out << fmt::format("\n{:<46} {:>9} {:>6} {:>12} {:>11}\n", title, "kernels", "syncs", "HBM bytes", "time");
  for (const StepPhase& p : phases)
    out << fmt::format("  {:<44} {:>9.0f} {:>6.0f} {:>12} {:>11}\n", p.name, p.kernels, p.syncs, format_bytes(p.bytes),
                       milliseconds_text(p.duration.seconds()));
  out << fmt::format("  {:<44} {:>9} {:>6} {:>12} {:>11}\n", "total", "", "", "",
                     milliseconds_text(total_duration(phases).seconds()));
}

nlohmann::json step_phases_json(const std::vector<StepPhase>& phases) {
  nlohmann::json out = nlohmann::json::array();
  for (const StepPhase& p : phases)
    out.push_back({{"name", p.name},
                   {"part", to_string(p.part)},
                   {"kernels", p.kernels},
                   {"syncs", p.syncs},
                   {"hbm_bytes", p.bytes},
                   {"host_bytes", p.host_bytes},
                   {"time_s", p.duration.seconds()}});
  return out;
}

ComputeReport make_compute_report(const Scenario& scenario) {
  ComputeTimes times(scenario);
  const KernelTimer timer = KernelTimer::memory_only(scenario.cluster);
  const StepShape step = deepspeed_zero3_step_shape(scenario, times.shape());
  return {scenario, std::move(times), boundary_phases(timer, step), optimizer_step_phases(timer, step)};
}

void print_compute_report(std::ostream& out, const ComputeReport& r, bool kernels) {
  print_gpu(out, r);
  print_layer(out, r);
  print_uses(out, r);
  print_step_phases(out, "step boundary (DeepSpeed 0.7.3, before the update)", r.boundary);
  out << "  (plus the latency of the overflow flag's and the gradient norm's all-reduces, in the iteration model)\n";
  print_step_phases(out, "optimizer step and step end", r.optimizer);
  if (kernels) print_kernels(out, r);
}

nlohmann::json compute_report_json(const ComputeReport& r, bool kernels) {
  const ClusterSpec& c = r.scenario.cluster;
  nlohmann::json doc;
  doc["gpu"] = {{"type", c.gpu},
                {"peak_flops", c.gpu_peak_flops},
                {"memory_bandwidth", c.gpu_memory_bandwidth},
                {"sms", c.kernels.sms},
                {"gemm_efficiency", c.kernels.gemm_efficiency},
                {"memory_efficiency", c.kernels.memory_efficiency},
                {"flash_attention_efficiency",
                 c.kernels.flash_efficiency ? nlohmann::json(*c.kernels.flash_efficiency) : nlohmann::json(nullptr)},
                {"gemm_depth_overhead",
                 c.kernels.gemm_depth_overhead ? nlohmann::json(*c.kernels.gemm_depth_overhead) : nlohmann::json(nullptr)},
                {"gemm_reference_depth",
                 c.kernels.gemm_reference_depth ? nlohmann::json(*c.kernels.gemm_reference_depth) : nlohmann::json(nullptr)},
                {"launch_overhead_s", c.kernels.launch_overhead.seconds()},
                {"compute_efficiency_override", r.scenario.training.compute_efficiency
                                                    ? nlohmann::json(*r.scenario.training.compute_efficiency)
                                                    : nlohmann::json(nullptr)}};
  doc["attention"] = name_of(r.scenario.training.attention);
  nlohmann::json by_class = nlohmann::json::object();
  for (int k = 0; k < kKernelClasses; ++k) {
    nlohmann::json row = nlohmann::json::object();
    for (Pass pass : kAllPasses) {
      double s = 0;
      for (ComputeUse use : kLayerUses)
        if (has_pass(r, use, pass)) s += r.times.seconds_by_class(use, pass)[static_cast<std::size_t>(k)];
      row[to_string(pass)] = s;
    }
    by_class[to_string(static_cast<KernelClass>(k))] = row;
  }
  doc["layer_by_class_s"] = by_class;
  nlohmann::json uses = nlohmann::json::object();
  for (ComputeUse use : kAllUses) {
    nlohmann::json row = nlohmann::json::object();
    for (Pass pass : kAllPasses)
      if (has_pass(r, use, pass)) row[to_string(pass)] = r.times.duration(use, pass).seconds();
    uses[to_string(use)] = row;
  }
  doc["uses_s"] = uses;
  doc["iteration_compute_s"] = r.times.iteration().seconds();
  doc["step_phases"] = {{"boundary", step_phases_json(r.boundary)}, {"optimizer", step_phases_json(r.optimizer)}};
  if (kernels) {
    nlohmann::json list = nlohmann::json::array();
    for (ComputeUse use : kAllUses)
      for (Pass pass : kAllPasses) {
        if (!has_pass(r, use, pass)) continue;
        for (const auto& [k, seconds] : r.times.timed_kernels(use, pass))
          list.push_back({{"use", to_string(use)},
                          {"pass", to_string(pass)},
                          {"name", k.name},
                          {"class", to_string(k.group)},
                          {"m", k.m},
                          {"n", k.n},
                          {"k", k.k},
                          {"batch", k.batch},
                          {"bytes", k.bytes},
                          {"flops", k.flops},
                          {"time_s", seconds},
                          {"peak_fraction", peak_fraction(r, k, seconds)},
                          {"waves", r.times.overridden() ? 0.0 : gemm_waves(r, k)},
                          {"depth_factor", depth_factor(r, k)}});
      }
    doc["kernels"] = list;
  }
  return doc;
}

}  // namespace ckptsim
