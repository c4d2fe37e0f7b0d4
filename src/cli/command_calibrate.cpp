// ckptsim calibrate: fits the model's hardware parameters to measurements (microbenchmark files
// from `ckptsim-replay --microbench`, measured timelines from `ckptsim-replay`), by least squares
// (Eigen, column-pivoting QR):
//   per link kind (all-gather, reduce-scatter, p2p): t = a + bytes / B, the alpha-beta model;
//     a ring collective over n ranks has n - 1 steps, so the per-message latency is a / (n - 1);
//   compute: t = flops / F through the origin (F = achieved FLOP/s; efficiency 1 against it);
//   (the collectives' fitted bandwidth is likewise an achieved rate: bandwidth factors 1);
//   GPU-to-CPU copy: t = bytes / C through the origin.
// Each fit reports its samples and the root-mean-square relative residual (t_fit - t) / t.
// -o writes the fitted scenario fields; with --scenario BASE, BASE with those fields replaced,
// ready for `ckptsim schedule` / `ckptsim iteration` (docs/timeline-format.md, "Calibration").
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/output/output_file.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/json_input.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

struct Samples {
  std::vector<double> x, t;  // size (bytes or FLOPs), seconds
};

struct Fit {
  double intercept = 0, slope = 0, rms_relative = 0;
  std::size_t samples = 0;
};

Fit fit_line(const Samples& s, bool through_origin) {
  Fit f;
  f.samples = s.x.size();
  if (s.x.size() < (through_origin ? 1u : 2u)) return f;
  const auto n = static_cast<Eigen::Index>(s.x.size());
  Eigen::MatrixXd a(n, through_origin ? 1 : 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    // Rows weighted by 1/t: minimises relative, not absolute, residuals (small messages count).
    const double w = 1.0 / s.t[static_cast<std::size_t>(i)];
    a(i, 0) = w * s.x[static_cast<std::size_t>(i)];
    if (!through_origin) a(i, 1) = w;
    b(i) = 1.0;
  }
  const Eigen::VectorXd c = a.colPivHouseholderQr().solve(b);
  f.slope = c(0);
  f.intercept = through_origin ? 0.0 : c(1);
  double sq = 0;
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    const double r = (f.intercept + f.slope * s.x[i] - s.t[i]) / s.t[i];
    sq += r * r;
  }
  f.rms_relative = std::sqrt(sq / static_cast<double>(s.x.size()));
  return f;
}

struct Collected {
  std::map<std::string, Samples> kinds;  // all-gather, reduce-scatter, p2p, compute, copy
  int ranks = 0;
};

void add_sample(Collected& c, const std::string& kind, double x, double t) {
  if (x > 0 && t > 0 && std::isfinite(x) && std::isfinite(t)) {
    c.kinds[kind].x.push_back(x);
    c.kinds[kind].t.push_back(t);
  }
}

double num(const nlohmann::json& j, const char* key, const std::string& file, const std::string& ptr) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) {
    throw InputError(file, ptr + "/" + key, "a number", j.is_object() && j.contains(key) ? j[key].dump() : "nothing");
  }
  return j[key].get<double>();
}

void collect_microbench(const nlohmann::json& doc, const std::string& file, Collected& c) {
  c.ranks = std::max(c.ranks, static_cast<int>(num(doc, "ranks", file, "")));
  if (!doc.contains("samples") || !doc["samples"].is_array()) throw InputError(file, "/samples", "an array", "nothing");
  for (std::size_t i = 0; i < doc["samples"].size(); ++i) {
    const auto& s = doc["samples"][i];
    const std::string ptr = fmt::format("/samples/{}", i);
    const std::string kind = s.is_object() ? s.value("kind", "") : "";
    const double t = num(s, "seconds", file, ptr);
    if (kind == "gemm") add_sample(c, "compute", num(s, "flops", file, ptr), t);
    else if (kind == "host-copy") add_sample(c, "copy", num(s, "bytes", file, ptr), t);
    else if (kind == "all-gather" || kind == "reduce-scatter" || kind == "p2p") add_sample(c, kind, num(s, "bytes", file, ptr), t);
    else throw InputError(file, ptr + "/kind", "gemm, host-copy, all-gather, reduce-scatter or p2p", s.is_object() && s.contains("kind") ? s["kind"].dump() : "nothing");
  }
}

void collect_timeline(const nlohmann::json& doc, const std::string& file, Collected& c) {
  if (!doc.contains("ranks") || !doc["ranks"].is_array()) throw InputError(file, "/ranks", "an array", "nothing");
  c.ranks = std::max(c.ranks, static_cast<int>(doc["ranks"].size()));
  for (std::size_t r = 0; r < doc["ranks"].size(); ++r) {
    const auto& its = doc["ranks"][r].value("iterations", nlohmann::json::array());
    for (std::size_t i = 0; i < its.size(); ++i) {
      const std::string base = fmt::format("/ranks/{}/iterations/{}", r, i);
      for (const auto& op : its[i].value("operations", nlohmann::json::array())) {
        const double t = num(op, "end_s", file, base) - num(op, "start_s", file, base);
        const std::string kind = op.value("kind", "");
        if (kind == "compute" && op.contains("flops")) add_sample(c, "compute", num(op, "flops", file, base), t);
        else if ((kind == "all-gather" || kind == "reduce-scatter") && op.contains("bytes")) add_sample(c, kind, num(op, "bytes", file, base), t);
      }
      for (const auto& cp : its[i].value("copies", nlohmann::json::array())) {
        add_sample(c, "copy", num(cp, "bytes", file, base), num(cp, "end_s", file, base) - num(cp, "start_s", file, base));
      }
    }
  }
}

nlohmann::json fit_json(const Fit& f, bool alpha_beta, int steps) {
  nlohmann::json j = {{"samples", f.samples}, {"rms_relative_residual", f.rms_relative}};
  if (f.slope > 0) j["rate_per_s"] = 1.0 / f.slope;
  if (alpha_beta) {
    j["intercept_s"] = f.intercept;
    j["latency_per_step_s"] = f.intercept / std::max(1, steps);
  }
  return j;
}

// Scenario fields from the fits (values in SI units with unit suffixes the loader parses).
nlohmann::json scenario_fields(const std::map<std::string, Fit>& fits, int ranks, int gpus_per_machine) {
  nlohmann::json out = nlohmann::json::object();
  Fit net = fits.count("collectives") ? fits.at("collectives") : Fit{};
  if (net.slope > 0) {
    out["cluster"]["network_bandwidth"] = fmt::format("{:.6g}B/s", gpus_per_machine / net.slope);
    // A fitted latency at or below zero (noise on fast links) is written as 1 us.
    out["cluster"]["network"]["latency"] = fmt::format("{:.6g}s", std::max(1e-6, net.intercept / std::max(1, ranks - 1)));
    // The fitted bandwidth is what the collectives achieved: the preset's factors no longer
    // apply to it (as compute_efficiency 1 against the fitted FLOP rate). Checkpoint sends are
    // taken to reach the same rate; the p2p fit is reported, not written.
    out["cluster"]["network"]["collective_efficiency"] = 1.0;
    out["cluster"]["network"]["p2p_efficiency"] = 1.0;
  }
  if (fits.count("compute") && fits.at("compute").slope > 0) {
    out["cluster"]["gpu_peak_flops"] = fmt::format("{:.6g}FLOPS", 1.0 / fits.at("compute").slope);
    out["training"]["compute_efficiency"] = 1.0;
  }
  if (fits.count("copy") && fits.at("copy").slope > 0) out["cluster"]["gpu_cpu_bandwidth"] = fmt::format("{:.6g}B/s", 1.0 / fits.at("copy").slope);
  return out;
}

void merge_into(nlohmann::json& base, const nlohmann::json& fields) {
  for (const auto& [k, v] : fields.items()) {
    if (v.is_object() && base.contains(k) && base[k].is_object()) merge_into(base[k], v);
    else base[k] = v;
  }
}

}  // namespace

int command_calibrate(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim calibrate MEASURED... -o cluster.json [--scenario BASE] [--json]\n\n"
      "Fits the model's hardware parameters to microbenchmarks (ckptsim-replay --microbench) and\n"
      "measured timelines (ckptsim-replay): latency and bandwidth per link kind, compute FLOP/s and\n"
      "GPU-to-CPU copy bandwidth, by least squares; prints each fit with its residuals. -o writes the\n"
      "fitted scenario fields, or with --scenario BASE the whole scenario with them replaced.\n\noptions");
  std::string output, base_path;
  visible.add_options()("help,h", "print this help")("json", "print the fits as JSON")
      ("output,o", po::value(&output), "file to write (required)")
      ("scenario", po::value(&base_path), "base scenario whose cluster fields the fits replace");
  po::options_description all;
  all.add(visible).add_options()("files", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("files", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(ctx.args).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    ctx.out << visible << '\n';
    return 0;
  }
  po::notify(vm);
  const auto files = vm.count("files") ? vm["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.empty()) throw UsageError("expects at least one MEASURED file (ckptsim-replay output or --microbench output)");
  if (output.empty()) throw UsageError("missing -o FILE (where to write the fitted parameters)");
  Collected c;
  for (const auto& f : files) {
    const nlohmann::json doc = read_json_file(f, "a measured timeline or microbenchmark");
    require_json_object(doc, f, "a measured timeline or microbenchmark");
    const nlohmann::json& format_field = doc.contains("format") ? doc["format"] : nlohmann::json();
    const std::string format = format_field.is_string() ? format_field.get<std::string>() : "";
    if (format == "ckptsim-microbench/1") with_json_file_context(f, "a microbenchmark file", [&] { collect_microbench(doc, f, c); });
    else if (format == "ckptsim-timeline/1") with_json_file_context(f, "a measured timeline", [&] { collect_timeline(doc, f, c); });
    else throw InputError(f, "/format", "\"ckptsim-microbench/1\" or \"ckptsim-timeline/1\"", doc.is_object() && doc.contains("format") ? doc["format"].dump() : "nothing");
  }
  std::map<std::string, Fit> fits;
  Samples collectives;
  for (const auto& [kind, s] : c.kinds) {
    fits[kind] = fit_line(s, kind == "compute" || kind == "copy");
    if (kind == "all-gather" || kind == "reduce-scatter") {
      collectives.x.insert(collectives.x.end(), s.x.begin(), s.x.end());
      collectives.t.insert(collectives.t.end(), s.t.begin(), s.t.end());
    }
  }
  if (!collectives.x.empty()) fits["collectives"] = fit_line(collectives, false);
  nlohmann::json report = {{"ranks", c.ranks}, {"fits", nlohmann::json::object()}};
  for (const auto& [kind, f] : fits) {
    report["fits"][kind] = fit_json(f, kind != "compute" && kind != "copy", kind == "p2p" ? 1 : c.ranks - 1);
  }
  nlohmann::json doc;
  int g = 1;
  if (!base_path.empty()) {
    doc = read_json_file(base_path, "a scenario file");
    if (!doc.is_object()) throw InputError(base_path, "", "a scenario object", doc.dump().substr(0, 40));
    if (doc.contains("cluster") && doc["cluster"].contains("gpus_per_machine") && doc["cluster"]["gpus_per_machine"].is_number_integer()) {
      g = doc["cluster"]["gpus_per_machine"].get<int>();
    }
    doc["name"] = doc.value("name", std::string("scenario")) + "-calibrated";
  }
  merge_into(doc, scenario_fields(fits, c.ranks, g));
  write_output_file(output, doc.dump(2) + '\n');
  if (vm.count("json")) {
    ctx.out << report.dump(2) << '\n';
    return 0;
  }
  ctx.out << fmt::format("{:<16} {:>8} {:>16} {:>14} {:>14}\n", "fit", "samples", "rate", "latency", "rms residual");
  for (const auto& [kind, f] : fits) {
    const bool ab = kind != "compute" && kind != "copy";
    const std::string unit = kind == "compute" ? "FLOP/s" : "B/s";
    const int steps = kind == "p2p" ? 1 : std::max(1, c.ranks - 1);
    ctx.out << fmt::format("{:<16} {:>8} {:>12.4g} {:<6} {:>14} {:>13.1f}%\n", kind, f.samples, f.slope > 0 ? 1 / f.slope : 0.0, unit,
                           ab ? fmt::format("{:.1f} us", 1e6 * f.intercept / steps) : "-", 100 * f.rms_relative);
  }
  ctx.err << fmt::format("ckptsim calibrate: fitted parameters written to {}\n", output);
  return 0;
}

}  // namespace ckptsim::cli
