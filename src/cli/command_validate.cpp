// ckptsim validate: a plan's predictions (ckptsim schedule, docs/plan-format.md) against what a
// replay measured (ckptsim-replay, docs/timeline-format.md).
//
// Relative error of a quantity = (measured - predicted) / predicted. Per operation kind, over
// every (operation, rank, iteration): the median and 90th percentile of |error|, with predicted
// durations planned_end_s - planned_start_s for training operations and alpha + bytes / B for a
// checkpoint chunk sent alone. Per iteration (the slowest rank's value): the iteration time
// against summary.iteration_time_with_checkpoint_s, the network idle time (iteration time minus
// the union of the collectives' busy intervals, computed the same way from the plan's planned
// intervals) and the checkpoint completion (last copy into CPU memory) against
// summary.checkpoint_time_s. Exits 1 when the median |error| of any of these exceeds --tolerance.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/json_input.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

double number_at(const nlohmann::json& doc, const std::string& file, const std::string& pointer) {
  const nlohmann::json::json_pointer ptr(pointer);
  if (!doc.contains(ptr)) throw InputError(file, pointer, "a number", "nothing");
  const auto& v = doc.at(ptr);
  if (!v.is_number() || !std::isfinite(v.get<double>())) throw InputError(file, pointer, "a finite number", v.dump());
  return v.get<double>();
}

const nlohmann::json& array_at(const nlohmann::json& doc, const std::string& file, const std::string& pointer) {
  const nlohmann::json::json_pointer ptr(pointer);
  if (!doc.contains(ptr) || !doc.at(ptr).is_array()) throw InputError(file, pointer, "an array", doc.contains(ptr) ? doc.at(ptr).dump().substr(0, 40) : "nothing");
  return doc.at(ptr);
}

struct Errors {
  std::vector<double> values;
  void add(double measured, double predicted) {
    if (predicted > 0) values.push_back((measured - predicted) / predicted);
  }
  static double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  }
  [[nodiscard]] nlohmann::json summary() const {
    std::vector<double> abs;
    for (double e : values) abs.push_back(std::abs(e));
    return {{"samples", values.size()}, {"median", quantile(values, 0.5)}, {"median_abs", quantile(abs, 0.5)},
            {"p90_abs", quantile(abs, 0.9)}};
  }
};

// Length of the union of [start, end) intervals clipped to [0, limit].
double union_length(std::vector<std::pair<double, double>> iv, double limit) {
  std::sort(iv.begin(), iv.end());
  double total = 0, cur_s = 0, cur_e = -1;
  for (auto [s, e] : iv) {
    s = std::max(0.0, s), e = std::min(limit, e);
    if (e <= s) continue;
    if (s > cur_e) {
      if (cur_e > cur_s) total += cur_e - cur_s;
      cur_s = s, cur_e = e;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (cur_e > cur_s) total += cur_e - cur_s;
  return total;
}

struct Predicted {
  std::map<int, std::pair<std::string, double>> op;  // id -> (kind, duration)
  double iteration = 0, idle = 0, checkpoint = 0, alpha = 0, bandwidth = 0;
};

Predicted read_predictions(const nlohmann::json& plan, const std::string& file) {
  Predicted p;
  const auto& ops = array_at(plan, file, "/iteration/operations");
  std::vector<std::pair<double, double>> busy;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string ptr = fmt::format("/iteration/operations/{}", i);
    if (!ops[i].is_object() || !ops[i].contains("kind") || !ops[i]["kind"].is_string()) throw InputError(file, ptr + "/kind", "a string", "nothing");
    const std::string kind = ops[i]["kind"] == "collective" ? ops[i].value("category", "") : ops[i]["kind"].get<std::string>();
    if (kind == "marker") continue;
    if (!ops[i].contains("planned_start_s")) {
      throw InputError(file, ptr + "/planned_start_s", "planned times (a plan simulated by ckptsim, not one from an imported profile)", "nothing");
    }
    const double s = number_at(plan, file, ptr + "/planned_start_s"), e = number_at(plan, file, ptr + "/planned_end_s");
    p.op[static_cast<int>(i)] = {kind, e - s};
    if (kind != "compute") busy.emplace_back(s, e);
  }
  p.iteration = number_at(plan, file, "/summary/iteration_time_with_checkpoint_s");
  p.checkpoint = number_at(plan, file, "/summary/checkpoint_time_s");
  p.alpha = number_at(plan, file, "/parameters/alpha_s");
  p.bandwidth = number_at(plan, file, "/parameters/bandwidth_per_gpu_bytes_per_s");
  p.idle = p.iteration - union_length(busy, p.iteration);
  return p;
}

struct Comparison {
  std::map<std::string, Errors> kinds;
  Errors iteration, idle, checkpoint;
  nlohmann::json per_iteration = nlohmann::json::array();
};

// One measured iteration: every rank's operations, and the slowest rank's totals.
void compare_iteration(const nlohmann::json& m, const std::string& file, const Predicted& p, std::size_t it, Comparison& c) {
  const auto& ranks = array_at(m, file, "/ranks");
  double iter = 0, idle = 0, ckpt = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::string base = fmt::format("/ranks/{}/iterations/{}", r, it);
    const double t = number_at(m, file, base + "/iteration_time_s");
    iter = std::max(iter, t);
    ckpt = std::max(ckpt, number_at(m, file, base + "/checkpoint_time_s"));
    const auto& ops = array_at(m, file, base + "/operations");
    std::vector<std::pair<double, double>> busy;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const std::string op = fmt::format("{}/operations/{}", base, k);
      const auto id = static_cast<int>(number_at(m, file, op + "/id"));
      const auto found = p.op.find(id);
      if (found == p.op.end()) throw InputError(file, op + "/id", "the id of a plan operation", fmt::format("{}", id));
      const double s = number_at(m, file, op + "/start_s"), e = number_at(m, file, op + "/end_s");
      c.kinds[found->second.first].add(e - s, found->second.second);
      if (found->second.first != "compute") busy.emplace_back(s, e);
    }
    idle = std::max(idle, t - union_length(busy, t));
    const auto& sends = array_at(m, file, base + "/sends");
    for (std::size_t k = 0; k < sends.size(); ++k) {
      const std::string sp = fmt::format("{}/sends/{}", base, k);
      const double bytes = number_at(m, file, sp + "/bytes");
      c.kinds["checkpoint-send"].add(number_at(m, file, sp + "/end_s") - number_at(m, file, sp + "/start_s"),
                                     p.bandwidth > 0 ? p.alpha + bytes / p.bandwidth : 0.0);
    }
  }
  c.iteration.add(iter, p.iteration);
  c.idle.add(idle, p.idle);
  c.checkpoint.add(ckpt, p.checkpoint);
  c.per_iteration.push_back({{"iteration", it}, {"measured_s", iter}, {"predicted_s", p.iteration},
                             {"error", p.iteration > 0 ? (iter - p.iteration) / p.iteration : 0.0}});
}

nlohmann::json validation_json(const Comparison& c, double tolerance, bool& pass) {
  nlohmann::json doc;
  doc["tolerance"] = tolerance;
  doc["operations"] = nlohmann::json::object();
  pass = true;
  auto gate = [&](const nlohmann::json& s) {
    if (s.at("median_abs").get<double>() > tolerance) pass = false;
    return s;
  };
  for (const auto& [kind, e] : c.kinds) doc["operations"][kind] = gate(e.summary());
  doc["iteration_time"] = gate(c.iteration.summary());
  doc["idle_time"] = gate(c.idle.summary());
  doc["checkpoint_completion"] = gate(c.checkpoint.summary());
  doc["iterations"] = c.per_iteration;
  doc["pass"] = pass;
  return doc;
}

void print_validation(std::ostream& out, const nlohmann::json& v) {
  out << fmt::format("{:<22} {:>8} {:>12} {:>12} {:>10}\n", "quantity", "samples", "median err", "median |err|", "p90 |err|");
  auto row = [&](const std::string& name, const nlohmann::json& s) {
    out << fmt::format("{:<22} {:>8} {:>11.1f}% {:>11.1f}% {:>9.1f}%\n", name, s.at("samples").get<int>(), 100 * s.at("median").get<double>(),
                       100 * s.at("median_abs").get<double>(), 100 * s.at("p90_abs").get<double>());
  };
  for (const auto& [kind, s] : v.at("operations").items()) row(kind, s);
  row("iteration time", v.at("iteration_time"));
  row("idle time", v.at("idle_time"));
  row("checkpoint completion", v.at("checkpoint_completion"));
  out << fmt::format("{} (tolerance {:.1f}% on every median |err|)\n", v.at("pass").get<bool>() ? "PASS" : "FAIL",
                     100 * v.at("tolerance").get<double>());
}

}  // namespace

int command_validate(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim validate PLAN MEASURED [--json] [--tolerance X]\n\n"
      "Compares a plan's predictions (ckptsim schedule) with a replay's measurements (ckptsim-replay):\n"
      "per operation kind the relative error's median and 90th percentile, and per iteration the\n"
      "iteration-time, idle-time and checkpoint-completion errors. Exits 1 when any median |error|\n"
      "exceeds the tolerance.\n\noptions");
  double tolerance = 0.1;
  visible.add_options()("help,h", "print this help")("json", "print JSON")
      ("tolerance", po::value<double>(&tolerance)->default_value(0.1, "0.1"), "largest median |relative error| that passes");
  po::options_description all;
  all.add(visible).add_options()("files", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("files", 2);
  po::variables_map vm;
  po::store(po::command_line_parser(ctx.args).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    ctx.out << visible << '\n';
    return 0;
  }
  po::notify(vm);
  const auto files = vm.count("files") ? vm["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() != 2) throw UsageError("expects PLAN and MEASURED (a plan from ckptsim schedule, a timeline from ckptsim-replay)");
  if (!(tolerance > 0) || !std::isfinite(tolerance)) throw UsageError(fmt::format("--tolerance expects a positive number, found {}", tolerance));
  const nlohmann::json plan = read_json_file(files[0], "a plan");
  const nlohmann::json measured = read_json_file(files[1], "a measured timeline");
  require_json_object(plan, files[0], "a plan");
  require_json_object(measured, files[1], "a measured timeline");
  if (!measured.contains("format") || measured["format"] != "ckptsim-timeline/1") {
    throw InputError(files[1], "/format", "\"ckptsim-timeline/1\"", measured.contains("format") ? measured["format"].dump() : "nothing");
  }
  const Predicted predicted = with_json_file_context(files[0], "a plan", [&] { return read_predictions(plan, files[0]); });
  Comparison c;
  with_json_file_context(files[1], "a measured timeline", [&] {
    const auto& ranks = array_at(measured, files[1], "/ranks");
    if (ranks.empty()) throw InputError(files[1], "/ranks", "at least one rank", "none");
    const std::size_t iterations = array_at(measured, files[1], "/ranks/0/iterations").size();
    for (std::size_t it = 0; it < iterations; ++it) compare_iteration(measured, files[1], predicted, it, c);
  });
  bool pass = true;
  const nlohmann::json v = validation_json(c, tolerance, pass);
  if (vm.count("json")) {
    ctx.out << v.dump(2) << '\n';
  } else {
    print_validation(ctx.out, v);
  }
  return pass ? 0 : 1;
}

}  // namespace ckptsim::cli
