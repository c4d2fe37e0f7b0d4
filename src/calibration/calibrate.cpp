#include "ckptsim/calibration/calibrate.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "ckptsim/calibration/kernel_classes.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/bus_curve_json.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/workload/kernel_time.hpp"
#include "ckptsim/workload/parallelism_model.hpp"

namespace ckptsim {

namespace {

/// Fitted rates go into the fragment with 6 significant digits (a fit is no more precise).
constexpr int kFragmentDigits = 6;

/// The measured curves of single-machine collectives, written as the scenario takes them
/// (/cluster/nvlink_ring_curve from reduce-scatter, else all-gather; /cluster/
/// nvlink_all_reduce_curve from all-reduce; /cluster/nvlink_curve_gpus): at each size the median
/// over the samples of busbw = x / t (x = k·S, measurements.hpp), on the largest rank count
/// measured. The Megatron model times in-machine collectives by them (scenario/bus_curve.hpp), so
/// a user's own log and the GPU types' published curves are one model.
void write_nvlink_curves(const std::vector<Measurement>& single, nlohmann::json& f, std::vector<std::string>& writes,
                         std::vector<std::string>& notes) {
  int ranks = 0;
  for (const Measurement& s : single) ranks = std::max(ranks, s.ranks);
  if (ranks < 2) return;
  const auto curve_of = [&](SampleKind kind) {
    std::map<double, std::vector<double>> by_size;
    for (const Measurement& s : single)
      if (s.kind == kind && s.ranks == ranks && s.size_bytes > 0 && s.seconds > 0 && s.x > 0)
        by_size[s.size_bytes].push_back(s.x / s.seconds);
    nlohmann::json points = nlohmann::json::array();
    for (auto& [size, rates] : by_size) {
      std::sort(rates.begin(), rates.end());
      const std::size_t n = rates.size();
      const double median = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
      points.push_back({{"size", static_cast<std::int64_t>(size)}, {"bus_bandwidth", bandwidth_input_text(median, kFragmentDigits)}});
    }
    return points;
  };
  nlohmann::json ring = curve_of(SampleKind::reduce_scatter);
  if (ring.empty()) ring = curve_of(SampleKind::all_gather);
  const nlohmann::json all_reduce = curve_of(SampleKind::all_reduce);
  if (ring.empty()) {
    if (!all_reduce.empty())
      notes.push_back("no single-machine reduce-scatter or all-gather log: no NVLink curve written (the model needs the ring "
                      "curve; the all-reduce alone may be NVLS, which reduce-scatter and all-gather do not run)");
    return;
  }
  f["cluster"]["nvlink_ring_curve"] = ring;
  writes.push_back("/cluster/nvlink_ring_curve");
  if (!all_reduce.empty()) {
    f["cluster"]["nvlink_all_reduce_curve"] = all_reduce;
    writes.push_back("/cluster/nvlink_all_reduce_curve");
  }
  f["cluster"]["nvlink_curve_gpus"] = ranks;
  writes.push_back("/cluster/nvlink_curve_gpus");
}

/// The files among `sources` that `samples` came from (each origin is "FILE: where"), comma-separated.
std::string sample_files(const std::vector<RateSample>& samples, const std::vector<std::string>& sources) {
  std::string files;
  for (const std::string& f : sources) {
    const std::string prefix = f + ": ";
    const bool used = std::any_of(samples.begin(), samples.end(), [&](const RateSample& r) { return r.origin.rfind(prefix, 0) == 0; });
    if (used) files += (files.empty() ? "" : ", ") + f;
  }
  return files;
}

/// fit_rate, with a refusal naming the files of the samples before the fit ("mb.json: p2p ...").
RateFit fit_naming_files(const std::vector<RateSample>& samples, const RateFitOptions& o, const std::vector<std::string>& sources) {
  try {
    return fit_rate(samples, o);
  } catch (const ModelError& e) {
    const std::string files = sample_files(samples, sources);
    if (files.empty()) throw;
    throw ModelError(fmt::format("{}: {}", files, e.parameter()), e.message());
  }
}

GroupFit fit_group(std::string name, std::string kind, int ranks, int machines, const std::vector<Measurement>& ms,
                   RateModel model, const std::string& unit, std::optional<double> max_rate, const std::vector<std::string>& sources) {
  GroupFit g;
  for (const Measurement& m : ms) {
    if (!(m.size_bytes > 0)) continue;
    g.min_size_bytes = g.min_size_bytes > 0 ? std::min(g.min_size_bytes, m.size_bytes) : m.size_bytes;
    g.max_size_bytes = std::max(g.max_size_bytes, m.size_bytes);
  }
  g.name = std::move(name);
  g.kind = std::move(kind);
  g.ranks = ranks;
  g.machines = machines;
  g.rate_unit = unit;
  g.samples = rate_samples(ms);
  g.fit = fit_naming_files(g.samples, {model, max_rate, g.name, unit}, sources);
  return g;
}

/// A kernel-class speed (model seconds / measured seconds) beyond this many times the bound 1 / e
/// (or below 1 / this squared) names another job as the likely cause (calibrate.hpp).
constexpr double kOtherJobFactor = 2;

/// The median of x / t: the speed of the samples relative to the model (kernel classes).
double median_speed(const std::vector<RateSample>& rs) {
  std::vector<double> v;
  for (const RateSample& r : rs) v.push_back(r.x / r.seconds);
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// The first line of a refusal, up to its first ';' (for the "not written" notes).
std::string short_reason(const ModelError& e) { return e.message().substr(0, e.message().find_first_of(";\n")); }

/// Runs one pooled fit, which writes fields. A refusal is kept (Calibration::refused, with its
/// files and samples) and noted, and the other fits go on; false when it was refused.
template <class Fit>
bool pooled_fit(Calibration& c, const std::string& name, Fit&& fit) {
  try {
    fit();
    return true;
  } catch (const ModelError& e) {
    c.refused.push_back(e.what());
    c.notes.push_back(fmt::format("{}: refused, its fields not written ({})", name, short_reason(e)));
    return false;
  }
}

bool is_collective(SampleKind k) {
  return k == SampleKind::all_gather || k == SampleKind::reduce_scatter || k == SampleKind::all_reduce;
}

bool is_network(SampleKind k) { return is_collective(k) || k == SampleKind::all_to_all || k == SampleKind::p2p; }

std::string group_name(const Measurement& s) {
  return fmt::format("{} over {} ranks on {} machine{}", sample_kind_info(s.kind).name, s.ranks, s.nodes, s.nodes == 1 ? "" : "s");
}

// The samples the fits use: the network samples of each group whose size lies in `range`
// (calibrate.hpp, "Sizes"), every other sample as it is.
std::vector<Measurement> select_sizes(const std::vector<Measurement>& all, const SizeRange& range, Calibration& c) {
  const auto inside = [&](double s) { return s >= range.min_bytes && (range.max_bytes <= 0 || s <= range.max_bytes); };
  const std::string range_text = size_range_text(range.min_bytes, range.max_bytes);
  std::map<std::tuple<SampleKind, int, int>, std::vector<const Measurement*>> groups;
  std::vector<Measurement> out;
  for (const Measurement& s : all) {
    if (is_network(s.kind) && s.size_bytes > 0) groups[{s.kind, s.ranks, s.nodes}].push_back(&s);
    else out.push_back(s);
  }
  for (const auto& [key, ms] : groups) {
    std::set<double> in, every;
    for (const Measurement* s : ms) {
      every.insert(s->size_bytes);
      if (inside(s->size_bytes)) in.insert(s->size_bytes);
    }
    const std::string group = group_name(*ms.front());
    if (range.is_default && in.size() < 2) {
      c.warnings.push_back(fmt::format("{}: fewer than 2 sizes in the default fit range ({}, {}); "
                                       "fitted on all its sizes, {}, where start-up latency and the LL/LL128 protocols weigh, so its "
                                       "rate may be off for larger messages (--sizes MIN:MAX to choose)",
                                       group, range_text, range.origin.empty() ? "where NCCL runs its Simple protocol" : range.origin,
                                       size_range_text(*every.begin(), *every.rbegin())));
      for (const Measurement* s : ms) out.push_back(*s);
      continue;
    }
    std::size_t left = 0;
    for (const Measurement* s : ms) {
      if (inside(s->size_bytes)) out.push_back(*s);
      else ++left;
    }
    if (left > 0) {
      c.notes.push_back(fmt::format("{} samples of {}: sizes outside the fit range {}{}: read, not fitted", left, group, range_text,
                                    !range.is_default       ? " (--sizes)"
                                    : range.origin.empty() ? " (the default; --sizes to choose)"
                                                           : fmt::format(" ({}; --sizes to choose)", range.origin)));
    }
  }
  return out;
}

// Kernel classes against the base's kernel model (calibrate.hpp): per class reported, then the
// fits that write (gemm, the pooled memory-bound classes, flash attention), which refuse.
void fit_kernel_classes(const std::vector<ClassSample>& samples, const CalibrationBase& base, const std::vector<std::string>& sources,
                        Calibration& c) {
  const KernelModelBase& km = *base.kernel_model;  // calibrate() refused class samples without one
  std::array<std::vector<RateSample>, kKernelClasses> per;
  std::map<std::string, std::size_t> unmodelled;
  for (const ClassSample& s : samples) {
    const auto i = static_cast<std::size_t>(s.cls);
    if (!(km.seconds[i] > 0)) {
      ++unmodelled[key_of(s.cls)];
      continue;
    }
    per[i].push_back({km.seconds[i], s.seconds, 1, s.origin});
  }
  for (const auto& [cls, n] : unmodelled) {
    c.notes.push_back(fmt::format("{} steps of kernel class {}: measured, but the base scenario's kernel model runs none", n, cls));
  }
  const auto efficiency = [&](KernelClass k) -> std::optional<double> {
    switch (k) {
      case KernelClass::gemm: return km.gemm_efficiency;
      case KernelClass::attention: return km.flash_efficiency;
      default: return km.memory_efficiency;
    }
  };
  const auto fit_of = [&](std::string name, const std::vector<RateSample>& rs, std::optional<double> e) {
    RateFit fit = fit_naming_files(rs, {RateModel::proportional, e && *e > 0 ? std::optional(1 / *e) : std::nullopt, name, "x"}, sources);
    return GroupFit{std::move(name), std::string("kernel-class"), 0, 0, std::string("x"), rs, std::move(fit), {}};
  };
  for (int k = 0; k < kKernelClasses; ++k) {
    const auto cls = static_cast<KernelClass>(k);
    if (per[static_cast<std::size_t>(k)].empty()) continue;
    const std::string name = fmt::format("kernel class {} vs model", key_of(cls));
    try {
      c.fits.push_back(fit_of(name, per[static_cast<std::size_t>(k)], efficiency(cls)));
    } catch (const ModelError& e) {
      c.notes.push_back(fmt::format("{}: no fit ({})", name, short_reason(e)));
    }
  }
  const auto write = [&](const std::string& name, const std::vector<RateSample>& rs, std::optional<double> bound, double e, const char* key,
                         const std::string& pointer) {
    pooled_fit(c, name, [&] {
      GroupFit g;
      try {
        g = fit_of(name, rs, bound);
      } catch (const ModelError& err) {
        // A speed far beyond what any efficiency allows is not a slightly optimistic model: the
        // kernel document and --scenario describe different jobs. Said first (the short reason).
        const double s = median_speed(rs);
        if (bound && *bound > 0 && s > kOtherJobFactor / *bound) {
          throw ModelError(err.parameter(), fmt::format("the kernel fit comes from another job than --scenario: the profiled steps ran this "
                                                        "class {:.4g}x faster than the scenario's kernel model predicts (median), while an "
                                                        "efficiency of at most 1 allows {:.4g}x, so the scenario's model, shape (layers, "
                                                        "hidden size, sequence, micro-batch) or parallelism differs from the traced job's; "
                                                        "give the profiled job's scenario, or leave the kernel fits out (--skip kernel-class); {}",
                                                        s, 1 / *bound, err.message()));
        }
        throw;
      }
      const double s = median_speed(rs);
      if (s < 1 / kOtherJobFactor / kOtherJobFactor) {
        c.notes.push_back(fmt::format("{}: the profiled steps ran this class {:.4g}x slower than the scenario's kernel model predicts (median): "
                                      "written, but check that --scenario is the traced job (its shape, micro-batches per step)",
                                      name, 1 / s));
      }
      c.fields["cluster"][key] = std::stod(fmt::format("{:.6g}", e * g.fit.rate));
      g.writes = {pointer};
      c.fits.push_back(std::move(g));
    });
  };
  if (const auto& gemm = per[static_cast<std::size_t>(KernelClass::gemm)]; !gemm.empty()) {
    write("GEMM (kernel model)", gemm, km.gemm_efficiency, km.gemm_efficiency, "gpu_gemm_efficiency", "/cluster/gpu_gemm_efficiency");
  }
  std::vector<RateSample> memory;
  for (KernelClass k : {KernelClass::layer_norm, KernelClass::elementwise, KernelClass::loss, KernelClass::embedding}) {
    const auto& v = per[static_cast<std::size_t>(k)];
    memory.insert(memory.end(), v.begin(), v.end());
  }
  if (!memory.empty()) {
    write("memory-bound kernels (kernel model)", memory, km.memory_efficiency, km.memory_efficiency, "gpu_memory_efficiency",
          "/cluster/gpu_memory_efficiency");
  }
  if (const auto& att = per[static_cast<std::size_t>(KernelClass::attention)]; !att.empty()) {
    if (km.flash_efficiency) {
      write("flash attention (kernel model)", att, km.flash_efficiency, *km.flash_efficiency, "gpu_flash_attention_efficiency",
            "/cluster/gpu_flash_attention_efficiency");
    } else {
      c.notes.push_back("kernel class attention: reported, not written (unfused attention is GEMMs and memory-bound kernels in one class)");
    }
  }
}

}  // namespace

SizeRange default_size_range(std::vector<CollectiveSize> job) {
  double total = 0;
  for (const CollectiveSize& c : job) total += c.traffic;
  if (job.empty() || !(total > 0)) return SizeRange{64.0 * 1024 * 1024, 0, true, ""};
  std::sort(job.begin(), job.end(), [](const CollectiveSize& a, const CollectiveSize& b) { return a.bytes > b.bytes; });
  double carried = 0;
  double smallest = job.front().bytes;
  for (const CollectiveSize& c : job) {
    if (carried >= 0.99 * total) break;
    carried += c.traffic;
    smallest = c.bytes;
  }
  return SizeRange{smallest, job.front().bytes, true,
                   "the sizes of the base scenario's collectives between machines that carry 99% of their bytes"};
}

CalibrationBase calibration_base(const Scenario& s) {
  CalibrationBase b;
  try {
    b.job_collectives = parallelism_model(s.training.parallelism).network_collective_sizes(s);
  } catch (const ModelError&) {
    // A base the iteration model cannot run keeps the protocol default (default_size_range).
  }
  b.gpus_per_machine = s.cluster.gpus_per_machine;
  b.scenario_machines = s.cluster.machines;
  b.network_bandwidth = s.cluster.network_bandwidth;
  b.nvlink_bandwidth = s.cluster.nvlink_bandwidth;
  b.gpu_peak_flops = s.cluster.gpu_peak_flops;
  if (s.training.compute_efficiency) {
    b.kernel_model_missing = "the base scenario's training.compute_efficiency replaces the kernel model";
  } else {
    try {
      KernelModelBase k;
      k.seconds = ComputeTimes(s).iteration_seconds_by_class();
      k.gemm_efficiency = s.cluster.kernels.gemm_efficiency;
      k.memory_efficiency = s.cluster.kernels.memory_efficiency;
      if (s.training.attention == AttentionKind::flash) k.flash_efficiency = s.cluster.kernels.flash_efficiency;
      b.kernel_model = k;
    } catch (const ModelError& e) {
      b.kernel_model_missing = fmt::format("the base scenario has no kernel model ({}: {})", e.parameter(), e.message());
    }
  }
  return b;
}

void merge_scenario_fields(nlohmann::json& base, const nlohmann::json& fields) {
  for (const auto& [k, v] : fields.items()) {
    if (v.is_object() && base.contains(k) && base[k].is_object()) merge_scenario_fields(base[k], v);
    else base[k] = v;
  }
}

void check_scenario_fragment(const nlohmann::json& fragment) {
  std::vector<std::pair<std::string, const nlohmann::json*>> leaves;
  auto walk = [&](auto&& self, const nlohmann::json& j, const std::string& ptr) -> void {
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) self(self, v, ptr + "/" + k);
    } else {
      leaves.emplace_back(ptr, &j);
    }
  };
  walk(walk, fragment, "");
  for (const auto& [ptr, value] : leaves) {
    const Field* f = find_field(ptr);
    if (!f) throw ModelError("calibrate", fmt::format("would write {}, which is no scenario parameter", ptr));
    if (f->unit == Unit::bus_curve) {
      BusCurve curve;
      if (const std::string problem = read_bus_curve(*value, curve); !problem.empty())
        throw ModelError("calibrate", fmt::format("would write {}, which the scenario loader refuses ({})", ptr, problem));
      continue;
    }
    double x = 0;
    try {
      switch (f->unit) {
        case Unit::integer: x = value->get<double>(); break;
        case Unit::bandwidth: x = parse_bandwidth(value->get<std::string>()); break;
        case Unit::flop_rate: x = parse_flop_rate(value->get<std::string>()); break;
        case Unit::duration: x = parse_duration(value->get<std::string>()).seconds(); break;
        case Unit::number: x = value->get<double>(); break;
        default: throw ModelError("calibrate", fmt::format("would write {} of a unit it does not produce", ptr));
      }
    } catch (const ModelError&) {
      throw;
    } catch (const std::exception& e) {
      throw ModelError("calibrate", fmt::format("would write {} = {}, which the scenario loader refuses ({})", ptr, value->dump(), e.what()));
    }
    const bool ok = f->check == Check::none || (f->check == Check::positive && x > 0) ||
                    (f->check == Check::non_negative && x >= 0) || (f->check == Check::at_least_one && x >= 1) ||
                    (f->check == Check::unit_interval && x > 0 && x <= 1);
    if (!ok || !std::isfinite(x)) {
      throw ModelError("calibrate", fmt::format("would write {} = {}, outside the range the scenario loader accepts", ptr, value->dump()));
    }
  }
}

SizeRange parse_size_range(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
    throw std::invalid_argument(fmt::format("expected MIN:MAX sizes in bytes (64MiB:, :1GiB, 1MiB:8GiB), found \"{}\"", text));
  }
  const auto bytes = [&](std::string_view t) -> double {
    if (t.empty()) return 0;
    // A bare number is bytes; otherwise the scenario files' byte units (KiB, MiB, GiB, GB, ...).
    double v = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc() && p == t.data() + t.size()) {
      if (!(v >= 0) || !std::isfinite(v)) throw std::invalid_argument(fmt::format("expected a size >= 0 in bytes, found \"{}\"", t));
      return v;
    }
    try {
      return parse_bytes(t);
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("expected a size in bytes or with a unit (64MiB, 1GiB), found \"{}\" ({})", t, e.what()));
    }
  };
  SizeRange r;
  r.min_bytes = bytes(text.substr(0, colon));
  r.max_bytes = bytes(text.substr(colon + 1));
  if (r.max_bytes > 0 && r.max_bytes < r.min_bytes) {
    throw std::invalid_argument(fmt::format("expected MIN <= MAX, found \"{}\"", text));
  }
  return r;
}

std::string size_range_text(double min_bytes, double max_bytes) {
  if (max_bytes <= 0) return fmt::format("{} and up", format_bytes(min_bytes));
  if (min_bytes <= 0) return fmt::format("up to {}", format_bytes(max_bytes));
  if (min_bytes == max_bytes) return format_bytes(min_bytes);
  return fmt::format("{} .. {}", format_bytes(min_bytes), format_bytes(max_bytes));
}

Calibration calibrate(const MeasurementSet& measured, const CalibrationBase& base) {
  if (measured.samples.empty() && measured.class_samples.empty()) {
    throw InputError(measured.sources.empty() ? "<command line>" : measured.sources.front(), "", "timed samples to fit", "none");
  }
  Calibration c;
  MeasurementSet sized;
  const MeasurementSet* chosen = &measured;
  if (base.sizes) {
    sized = measured;
    sized.samples = select_sizes(measured.samples, *base.sizes, c);
    if (sized.samples.empty() && sized.class_samples.empty()) {
      throw ModelError("--sizes", fmt::format("no sample has a size in {}", size_range_text(base.sizes->min_bytes, base.sizes->max_bytes)));
    }
    chosen = &sized;
  }
  const MeasurementSet& m = *chosen;
  const int g = std::max(1, base.gpus_per_machine);
  // The line rate per machine and the peak (calibrate.hpp).
  std::optional<double> line = m.emulated ? std::nullopt : base.network_bandwidth;
  const std::optional<double> peak = m.emulated ? std::nullopt : base.gpu_peak_flops;
  bool write_line = false;
  if (m.emulated && m.paced_rate) {
    line = *m.paced_rate * g;
    write_line = true;
  }
  const std::optional<double> bound = line;
  // Per-group fits (reported).
  std::map<std::tuple<SampleKind, int, int>, std::vector<Measurement>> groups;
  for (const Measurement& s : m.samples) groups[{s.kind, s.ranks, s.nodes}].push_back(s);
  for (const auto& [key, ms] : groups) {
    const auto [kind, ranks, nodes] = key;
    const SampleKindInfo& info = sample_kind_info(kind);
    std::optional<double> max_rate;
    if (kind == SampleKind::compute) max_rate = peak;
    else if (kind != SampleKind::host_copy && nodes >= 2 && ranks == nodes) max_rate = kind == SampleKind::p2p && bound ? std::optional(*bound / g) : bound;
    const std::string name = kind == SampleKind::compute || kind == SampleKind::host_copy
                                 ? fmt::format("{} ({} ranks)", info.name, ranks)
                                 : fmt::format("{} over {} ranks on {} machine{}", info.name, ranks, nodes, nodes == 1 ? "" : "s");
    // A group's own fit is reported only: when it cannot be fitted, say so and go on (the pooled
    // fits below, which write fields, refuse instead).
    try {
      c.fits.push_back(fit_group(name, std::string(info.name), ranks, nodes, ms, info.model, std::string(info.rate_unit), max_rate, m.sources));
    } catch (const ModelError& e) {
      c.notes.push_back(fmt::format("{}: no fit ({})", name, short_reason(e)));
    }
  }
  // Pooled collectives of the chosen machine count.
  int machines = 0;
  for (const Measurement& s : m.samples) {
    if (is_collective(s.kind) && s.nodes >= 2) machines = std::max(machines, s.nodes);
  }
  if (base.machines) {
    machines = *base.machines;
    const bool any = std::any_of(m.samples.begin(), m.samples.end(), [&](const Measurement& s) { return is_collective(s.kind) && s.nodes == machines; });
    // (The samples left after the size range: a machine count measured only outside it has none.)
    if (!any) throw ModelError("--machines", fmt::format("no collective sample spans {} machines", machines));
  }
  std::vector<Measurement> coll, single, p2p, copy, compute;
  std::map<std::string, std::size_t> unused;  // reason -> samples
  for (const Measurement& s : m.samples) {
    const std::string group = fmt::format("{} over {} ranks on {} machine{}", sample_kind_info(s.kind).name, s.ranks, s.nodes, s.nodes == 1 ? "" : "s");
    if (is_collective(s.kind) && machines >= 2 && s.nodes == machines) coll.push_back(s);
    else if (is_collective(s.kind) && s.nodes == 1) single.push_back(s);
    else if (is_collective(s.kind)) ++unused[fmt::format("{}: not the {} machines the network fields come from (--machines)", group, machines)];
    else if (s.kind == SampleKind::p2p && s.nodes >= 2 && s.ranks == s.nodes) p2p.push_back(s);
    else if (s.kind == SampleKind::host_copy) copy.push_back(s);
    else if (s.kind == SampleKind::compute) compute.push_back(s);
    else ++unused[fmt::format("{}: reported, not written (checkpoint sends go one rank per machine; all-to-all is not modelled)", group)];
  }
  for (const auto& [why, count] : unused) c.notes.push_back(fmt::format("{} samples of {}", count, why));
  c.notes.insert(c.notes.end(), m.notes.begin(), m.notes.end());
  nlohmann::json& f = c.fields;
  std::optional<double> rc, rp;
  double latency = -1;
  if (!coll.empty()) {
    pooled_fit(c, fmt::format("collectives ({} machines)", machines), [&] {
      GroupFit gf = fit_group(fmt::format("collectives ({} machines)", machines), "collectives", 0, machines, coll, RateModel::alpha_beta, "B/s",
                              bound, m.sources);
      rc = gf.fit.rate;
      latency = gf.fit.latency_s;
      if (base.scenario_machines && *base.scenario_machines != machines) {
        c.warnings.push_back(fmt::format("the collectives were fitted on {} machines and are written into a scenario of {}: NCCL's "
                                         "algorithm (a tree on 2 machines, a ring on more) and the rate it reaches change with the "
                                         "machine count, so cluster.network.collective_efficiency and latency may not hold there; "
                                         "measure on {} machines to calibrate it",
                                         machines, *base.scenario_machines, *base.scenario_machines));
      }
      gf.writes = {"/cluster/network/latency", "/cluster/network/collective_efficiency"};
      c.fits.push_back(std::move(gf));
    });
  }
  if (!single.empty()) {
    pooled_fit(c, "collectives (1 machine, NVLink)", [&] {
      GroupFit gf = fit_group("collectives (1 machine, NVLink)", "collectives", 0, 1, single, RateModel::alpha_beta, "B/s",
                              m.emulated ? std::nullopt : base.nvlink_bandwidth, m.sources);
      f["cluster"]["nvlink_bandwidth"] = bandwidth_input_text(gf.fit.rate, kFragmentDigits);
      // The latency per ring step inside the machine: NVLink's own (docs/references.md, "Per-step
      // latency of a collective, by tier"); the network's comes only from multi-machine runs.
      f["cluster"]["nvlink_latency"] = fmt::format("{:.6g}s", gf.fit.latency_s);
      gf.writes = {"/cluster/nvlink_bandwidth", "/cluster/nvlink_latency"};
      write_nvlink_curves(single, f, gf.writes, c.notes);
      c.fits.push_back(std::move(gf));
    });
  }
  if (!p2p.empty()) {
    pooled_fit(c, "p2p (between machines)", [&] {
      GroupFit gf = fit_group("p2p (between machines)", "p2p", 2, 2, p2p, RateModel::alpha_beta, "B/s",
                              bound ? std::optional(*bound / g) : std::nullopt, m.sources);
      rp = gf.fit.rate;
      if (latency < 0) {
        latency = gf.fit.latency_s;
        gf.writes.push_back("/cluster/network/latency");
      }
      gf.writes.push_back("/cluster/network/p2p_efficiency");
      c.fits.push_back(std::move(gf));
    });
  }
  if (rc || rp) {
    double l = 0;
    if (line) {
      l = *line;
      if (write_line) f["cluster"]["network_bandwidth"] = bandwidth_input_text(l, kFragmentDigits);
    } else {
      l = std::max(rc.value_or(0), g * rp.value_or(0));
      f["cluster"]["network_bandwidth"] = bandwidth_input_text(l, kFragmentDigits);
    }
    if (rc) f["cluster"]["network"]["collective_efficiency"] = std::stod(fmt::format("{:.6g}", *rc / l));
    if (rp) f["cluster"]["network"]["p2p_efficiency"] = std::stod(fmt::format("{:.6g}", g * *rp / l));
    f["cluster"]["network"]["latency"] = fmt::format("{:.6g}s", latency);
  }
  if (!copy.empty()) {
    pooled_fit(c, "host-copy (GPU to CPU memory)", [&] {
      GroupFit gf = fit_group("host-copy (GPU to CPU memory)", "host-copy", 0, 0, copy, RateModel::proportional, "B/s", std::nullopt, m.sources);
      f["cluster"]["gpu_cpu_bandwidth"] = bandwidth_input_text(gf.fit.rate, kFragmentDigits);
      gf.writes = {"/cluster/gpu_cpu_bandwidth"};
      c.fits.push_back(std::move(gf));
    });
  }
  if (!compute.empty()) {
    pooled_fit(c, "compute (GEMM FLOP rate)", [&] {
      GroupFit gf = fit_group("compute (GEMM FLOP rate)", "compute", 0, 0, compute, RateModel::proportional, "FLOP/s", peak, m.sources);
      if (peak) {
        f["training"]["compute_efficiency"] = std::stod(fmt::format("{:.6g}", gf.fit.rate / *peak));
        gf.writes = {"/training/compute_efficiency"};
      } else {
        f["cluster"]["gpu_peak_flops"] = flop_rate_input_text(gf.fit.rate, kFragmentDigits);
        f["training"]["compute_efficiency"] = 1.0;
        gf.writes = {"/cluster/gpu_peak_flops", "/training/compute_efficiency"};
      }
      c.fits.push_back(std::move(gf));
    });
  }
  if (!m.class_samples.empty() && !base.kernel_model) {
    // Kernel-class samples need the profiled job's kernel model: without it they are refused
    // alone (the other fits go on), naming their files.
    std::vector<RateSample> rs;
    for (const ClassSample& s : m.class_samples) rs.push_back({1, s.seconds, 1, s.origin});
    const std::string files = sample_files(rs, m.sources);
    const std::string why = fmt::format("kernel-class times are fitted against the kernel model of the profiled job, given as --scenario; {} "
                                        "({} samples not fitted; --skip kernel-class leaves them out)",
                                        base.kernel_model_missing.empty() ? "no base scenario was given" : base.kernel_model_missing,
                                        m.class_samples.size());
    c.refused.push_back(fmt::format("{}{}kernel classes (kernel model): {}", files, files.empty() ? "" : ": ", why));
    c.notes.push_back(fmt::format("kernel classes (kernel model): refused, its fields not written ({})", why.substr(0, why.find(';'))));
  } else if (!m.class_samples.empty()) {
    fit_kernel_classes(m.class_samples, base, m.sources, c);
  }
  // Fits that hold are kept and those refused reported (Calibration::refused); when every fit
  // that would write a field was refused, there is nothing to write: refused as a whole.
  if (f.empty() && !c.refused.empty()) {
    std::string all;
    for (const std::string& r : c.refused) all += "\n" + r;
    throw ModelError("calibrate", fmt::format("every fit that writes a scenario field was refused, so nothing was written:{}", all));
  }
  // Each field the loader would refuse is dropped and reported alone; the others are kept.
  std::vector<std::pair<nlohmann::json::json_pointer, nlohmann::json>> leaves;
  auto walk = [&](auto&& self, const nlohmann::json& j, const nlohmann::json::json_pointer& ptr) -> void {
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) self(self, v, ptr / k);
    } else {
      leaves.emplace_back(ptr, j);
    }
  };
  walk(walk, f, nlohmann::json::json_pointer());
  for (const auto& [ptr, value] : leaves) {
    nlohmann::json one = nlohmann::json::object();
    one[ptr] = value;
    try {
      check_scenario_fragment(one);
    } catch (const ModelError& e) {
      c.refused.push_back(e.what());
      c.notes.push_back(fmt::format("{}: not written ({})", ptr.to_string(), short_reason(e)));
      f[ptr.parent_pointer()].erase(ptr.back());
      for (auto p = ptr.parent_pointer(); !p.empty() && f[p].empty(); p = p.parent_pointer()) f[p.parent_pointer()].erase(p.back());
    }
  }
  if (f.empty() && !c.refused.empty()) {
    std::string all;
    for (const std::string& r : c.refused) all += "\n" + r;
    throw ModelError("calibrate", fmt::format("every fit that writes a scenario field was refused, so nothing was written:{}", all));
  }
  return c;
}

std::vector<std::string> skippable_kinds() {
  std::vector<std::string> out;
  for (const SampleKindInfo& k : sample_kinds()) out.emplace_back(k.name);
  out.emplace_back("kernel-class");
  for (int k = 0; k < kKernelClasses; ++k) out.emplace_back(key_of(static_cast<KernelClass>(k)));
  return out;
}

std::size_t skip_kind(MeasurementSet& m, std::string_view kind) {
  std::size_t n = 0;
  if (const auto k = parse_sample_kind(kind)) {
    n = static_cast<std::size_t>(std::erase_if(m.samples, [&](const Measurement& s) { return s.kind == *k; }));
  } else {
    const std::optional<KernelClass> cls = model_kernel_class(kind);
    if (!cls && kind != "kernel-class") throw ModelError("--skip", fmt::format("\"{}\" is no kind of sample", kind));
    n = static_cast<std::size_t>(std::erase_if(m.class_samples, [&](const ClassSample& s) { return !cls || s.cls == *cls; }));
  }
  m.notes.push_back(fmt::format("{} samples of {}: left out (--skip {})", n, kind, kind));
  return n;
}

}  // namespace ckptsim
