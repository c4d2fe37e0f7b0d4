// The prediction band of workload/prediction_band.hpp.
#include "ckptsim/workload/prediction_band.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "ckptsim/scenario/parameters.hpp"

namespace ckptsim {
namespace {

// The development points, written by scripts/validation from the published runs of
// scenarios/validation/ and this build's predictions of them (a registered test regenerates the
// file and fails when it differs, so the points are this build's).
#include "development_points.inc"

/// The first of the GPU type's figures (the parameter table's rows filled from the GPU type:
/// peak, HBM bandwidth, NVLink, the kernel model's SMs, efficiencies and launch time; what
/// `ckptsim calibrate` writes from profiled kernels is among them) that the scenario file writes
/// with a value of its own, as "cluster.gpu_gemm_efficiency": the GPU is then not the stock type
/// whose published runs the band describes.
std::optional<std::string> gpu_figure_written(const Scenario& s) {
  const auto in = [](const std::vector<std::string>& list, std::string_view p) {
    return std::find(list.begin(), list.end(), p) != list.end();
  };
  for (const Field& f : scenario_fields()) {
    if (f.presence != Presence::from_gpu && f.presence != Presence::gpu_kernel) continue;
    if (in(s.written, f.pointer) && !in(s.written_unchanged, f.pointer)) {
      std::string field(f.pointer.substr(1));
      std::replace(field.begin(), field.end(), '/', '.');
      return field;
    }
  }
  return std::nullopt;
}

}  // namespace

PredictionBand band_from_points(std::string engine, std::string gpu_family, std::span<const DevelopmentPoint> points) {
  if (points.empty()) throw std::invalid_argument("a prediction band needs at least one development point");
  std::vector<double> ratios;
  ratios.reserve(points.size());
  for (const DevelopmentPoint& p : points) {
    if (!(p.predicted_s > 0) || !(p.measured_s > 0))
      throw std::invalid_argument("development point " + std::string(p.run) + " has a time that is not positive");
    ratios.push_back(p.measured_s / p.predicted_s);
  }
  std::sort(ratios.begin(), ratios.end());
  const std::size_t n = ratios.size();
  PredictionBand band;
  band.engine = std::move(engine);
  band.gpu_family = std::move(gpu_family);
  band.points = static_cast<int>(n);
  band.low = ratios.front();
  band.high = ratios.back();
  band.median = n % 2 == 1 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  return band;
}

std::span<const DevelopmentPoint> development_points() { return kDevelopmentPoints; }

std::optional<PredictionBand> prediction_band(std::string_view engine, std::string_view family) {
  std::vector<DevelopmentPoint> mine;
  for (const DevelopmentPoint& p : development_points())
    if (p.engine == engine && p.gpu_family == family) mine.push_back(p);
  if (mine.empty()) return std::nullopt;
  return band_from_points(std::string(engine), std::string(family), mine);
}

std::string gpu_family(std::string_view gpu_type) { return std::string(gpu_type.substr(0, gpu_type.find('-'))); }

std::string_view iteration_engine(const Scenario& s) {
  if (s.training.parallelism == Parallelism::megatron) return "megatron";
  return s.training.engine == EngineKind::fsdp ? "fsdp" : "deepspeed-zero3";
}

BandView band_view(const Scenario& s, double predicted_s, bool profile_given) {
  BandView v;
  v.engine = std::string(iteration_engine(s));
  v.gpu_family = gpu_family(s.cluster.gpu);
  v.predicted_s = predicted_s;
  v.iteration_time_written = s.training.iteration_time.has_value();
  if (profile_given)
    v.not_applicable = "the iteration time is measured (--profile)";
  else if (s.training.iteration_time)
    v.not_applicable = "the iteration time is measured (training.iteration_time)";
  else if (s.training.compute_efficiency)
    v.not_applicable = "training.compute_efficiency is written: it replaces the kernel model whose errors the band describes";
  else if (const auto written = gpu_figure_written(s))
    v.not_applicable = fmt::format("{} is written with a value other than the GPU type's (measured or calibrated): the band "
                                   "describes the stock GPU's predictions", *written);
  if (!v.gpu_family.empty()) v.band = prediction_band(v.engine, v.gpu_family);
  return v;
}

}  // namespace ckptsim
