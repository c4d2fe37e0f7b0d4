// Sweep spec loader: every problem of a spec reported at once, each with the spec file and the
// JSON pointer inside the spec (spec.hpp, docs/sweep-format.md).
#include "ckptsim/sweep/spec.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/sweep/json_file.hpp"
#include "ckptsim/sweep/point_shape.hpp"
#include "ckptsim/sweep/results.hpp"

namespace ckptsim::sweep {
namespace {

constexpr std::int64_t kMaxPoints = 100'000'000;
constexpr std::int64_t kMaxRangeSteps = 1'000'000;

std::string shown(const nlohmann::json& v) { return v.dump(); }

/// Adds a problem for every key of `object` not in `allowed`.
void check_keys(const nlohmann::json& object, const std::string& at, const std::set<std::string>& allowed,
                ProblemList& problems) {
  std::string names;
  for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + fmt::format("\"{}\"", a);
  for (const auto& [key, value] : object.items())
    if (!allowed.count(key)) problems.add(at + "/" + key, "one of the keys " + names, fmt::format("\"{}\"", key));
}

std::optional<double> number_at(const nlohmann::json& obj, const std::string& key, const std::string& at,
                                ProblemList& problems) {
  if (!obj.contains(key)) {
    problems.add(at + "/" + key, "a number", "nothing");
    return std::nullopt;
  }
  const auto& v = obj.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    problems.add(at + "/" + key, "a finite number", shown(v));
    return std::nullopt;
  }
  return v.get<double>();
}

std::string optional_string(const nlohmann::json& obj, const std::string& key, const std::string& at,
                            ProblemList& problems) {
  if (!obj.contains(key)) return "";
  if (!obj.at(key).is_string()) {
    problems.add(at + "/" + key, "a string", shown(obj.at(key)));
    return "";
  }
  return obj.at(key).get<std::string>();
}

bool optional_bool(const nlohmann::json& obj, const std::string& key, const std::string& at, ProblemList& problems) {
  if (!obj.contains(key)) return false;
  if (!obj.at(key).is_boolean()) {
    problems.add(at + "/" + key, "true or false", shown(obj.at(key)));
    return false;
  }
  return obj.at(key).get<bool>();
}

/// A number as an axis value: an integer, a double with 12 significant digits, or a string
/// "<number><unit>" (so ranges over unit fields such as failure rates read back as written).
nlohmann::json axis_number(double x, bool integer, const std::string& unit) {
  if (integer) {
    const auto n = static_cast<std::int64_t>(std::llround(x));
    return unit.empty() ? nlohmann::json(n) : nlohmann::json(fmt::format("{}{}", n, unit));
  }
  const std::string text = fmt::format("{:.12g}", x);
  return unit.empty() ? nlohmann::json(std::stod(text)) : nlohmann::json(text + unit);
}

std::vector<nlohmann::json> expand_range(const nlohmann::json& r, const std::string& at, ProblemList& problems) {
  check_keys(r, at, {"from", "to", "steps", "scale", "integer", "unit"}, problems);
  const auto from = number_at(r, "from", at, problems);
  const auto to = number_at(r, "to", at, problems);
  const auto steps = number_at(r, "steps", at, problems);
  const std::string scale = r.contains("scale") ? optional_string(r, "scale", at, problems) : "linear";
  const bool integer = optional_bool(r, "integer", at, problems);
  const std::string unit = optional_string(r, "unit", at, problems);
  if (scale != "linear" && scale != "log") problems.add(at + "/scale", "\"linear\" or \"log\"", shown(r.at("scale")));
  if (steps && (*steps < 1 || *steps > kMaxRangeSteps || *steps != std::floor(*steps))) {
    problems.add(at + "/steps", "an integer from 1 to 1000000 (the number of values)", shown(r.at("steps")));
    return {};
  }
  if (!from || !to || !steps) return {};
  if (*steps == 1 && *from != *to) {  // one value cannot be both ends: "to" would be dropped
    problems.add(at + "/steps", fmt::format("at least 2 steps to go from {} to {} (or \"to\" equal to \"from\" for one value)",
                                            shown(r.at("from")), shown(r.at("to"))),
                 shown(r.at("steps")));
    return {};
  }
  if (scale == "log" && (*from <= 0 || *to <= 0)) {
    problems.add(at + (*from <= 0 ? "/from" : "/to"), "a positive number (log scale)", shown(r.at(*from <= 0 ? "from" : "to")));
    return {};
  }
  const auto n = static_cast<int>(*steps);
  std::vector<nlohmann::json> values;
  for (int i = 0; i < n; ++i) {
    const double t = n == 1 ? 0.0 : static_cast<double>(i) / (n - 1);
    const double x = scale == "log" ? std::exp(std::log(*from) + t * (std::log(*to) - std::log(*from)))
                                    : *from + t * (*to - *from);
    values.push_back(axis_number(x, integer, unit));
  }
  return values;
}

std::optional<Distribution> read_distribution(const nlohmann::json& d, const std::string& at, ProblemList& problems) {
  if (!d.is_object()) {
    problems.add(at, "an object {\"kind\", \"low\", \"high\"}", shown(d));
    return std::nullopt;
  }
  check_keys(d, at, {"kind", "low", "high", "integer", "unit"}, problems);
  Distribution out;
  const std::string kind = d.contains("kind") ? optional_string(d, "kind", at, problems) : "uniform";
  if (kind == "log-uniform") out.kind = Distribution::Kind::log_uniform;
  else if (kind != "uniform") problems.add(at + "/kind", "\"uniform\" or \"log-uniform\"", shown(d.at("kind")));
  const auto low = number_at(d, "low", at, problems);
  const auto high = number_at(d, "high", at, problems);
  out.integer = optional_bool(d, "integer", at, problems);
  out.unit = optional_string(d, "unit", at, problems);
  if (!low || !high) return std::nullopt;
  if (*low > *high) problems.add(at + "/high", fmt::format("a number at least low ({})", *low), shown(d.at("high")));
  if (out.kind == Distribution::Kind::log_uniform && *low <= 0)
    problems.add(at + "/low", "a positive number (log-uniform)", shown(d.at("low")));
  out.low = *low;
  out.high = *high;
  return out;
}

std::string default_axis_name(const std::string& pointer) {
  std::string name = pointer.substr(1);
  for (char& c : name)
    if (c == '/') c = '.';
  return name;
}

Axis read_axis(const nlohmann::json& a, const std::string& at, SweepMode mode, ProblemList& problems) {
  Axis axis;
  if (!a.is_object()) {
    problems.add(at, "an object {\"pointer\", \"values\" | \"range\" | \"distribution\"}", shown(a));
    return axis;
  }
  check_keys(a, at, {"pointer", "name", "values", "range", "distribution"}, problems);
  axis.pointer = optional_string(a, "pointer", at, problems);
  if (!a.contains("pointer")) problems.add(at + "/pointer", "a JSON pointer into the scenario such as \"/cluster/machines\"", "nothing");
  else if (axis.pointer.empty() || axis.pointer.front() != '/') problems.add(at + "/pointer", "a JSON pointer starting with \"/\"", shown(a.at("pointer")));
  else {
    try {
      (void)nlohmann::json::json_pointer(axis.pointer);
    } catch (const nlohmann::json::exception&) {
      problems.add(at + "/pointer", "a valid RFC 6901 JSON pointer", shown(a.at("pointer")));
    }
  }
  axis.name = a.contains("name") ? optional_string(a, "name", at, problems)
                                  : (axis.pointer.size() > 1 ? default_axis_name(axis.pointer) : "");
  const int given = static_cast<int>(a.contains("values")) + static_cast<int>(a.contains("range")) +
                    static_cast<int>(a.contains("distribution"));
  if (given != 1) {
    problems.add(at, "exactly one of \"values\", \"range\", \"distribution\"", fmt::format("{} of them", given));
    return axis;
  }
  if (a.contains("values")) {
    const auto& v = a.at("values");
    if (!v.is_array() || v.empty()) problems.add(at + "/values", "a non-empty array of JSON values", shown(v));
    else axis.values.assign(v.begin(), v.end());
  } else if (a.contains("range")) {
    if (!a.at("range").is_object()) problems.add(at + "/range", "an object {\"from\", \"to\", \"steps\"}", shown(a.at("range")));
    else axis.values = expand_range(a.at("range"), at + "/range", problems);
  } else if (mode != SweepMode::random) {
    problems.add(at + "/distribution", "no distribution (only \"mode\": \"random\" draws values)", "a distribution");
  } else {
    axis.distribution = read_distribution(a.at("distribution"), at + "/distribution", problems);
  }
  return axis;
}

void read_base(const nlohmann::json& doc, const std::string& dir, SweepSpec& spec, ProblemList& problems) {
  if (!doc.contains("base")) {
    problems.add("/base", "the base scenario: a path relative to the spec, or an inline scenario object", "nothing");
    return;
  }
  const auto& base = doc.at("base");
  if (base.is_object()) {
    spec.base = base;
    spec.base_label = spec.file + "#/base";
    spec.base_dir = dir;
    return;
  }
  if (!base.is_string()) {
    problems.add("/base", "a scenario path (string) or an inline scenario object", shown(base));
    return;
  }
  namespace fs = std::filesystem;
  fs::path path(base.get<std::string>());
  if (path.is_relative()) path = fs::path(dir) / path;
  try {
    spec.base = read_json_file(path.string(), "base scenario");
  } catch (const InputError& e) {
    for (const auto& p : e.problems())
      problems.add("/base", "a readable scenario file", fmt::format("{}: {}", path.string(), p.found));
    return;
  }
  if (!spec.base.is_object()) problems.add("/base", "a file holding a JSON object (a scenario)", path.string());
  spec.base_label = path.lexically_normal().string();
  const auto parent = path.parent_path();
  spec.base_dir = parent.empty() ? std::string(".") : parent.string();
}

void read_header(const nlohmann::json& doc, SweepSpec& spec, ProblemList& problems) {
  const std::string command = doc.contains("command") ? optional_string(doc, "command", "", problems) : "run";
  if (const auto parsed = parse_point_command(command)) spec.command = *parsed;
  else problems.add("/command", "\"run\", \"iteration\", \"analyze\" or \"placement\"", shown(doc.at("command")));
  const std::string mode = doc.contains("mode") ? optional_string(doc, "mode", "", problems) : "grid";
  if (mode == "zip") spec.mode = SweepMode::zip;
  else if (mode == "random") spec.mode = SweepMode::random;
  else if (mode != "grid") problems.add("/mode", "\"grid\", \"zip\" or \"random\"", shown(doc.at("mode")));
  if (doc.contains("seed")) {
    const auto& s = doc.at("seed");
    if (!s.is_number_integer() || (!s.is_number_unsigned() && s.get<std::int64_t>() < 0))
      problems.add("/seed", "a non-negative integer", shown(s));
    else spec.seed = s.get<std::uint64_t>();
  }
  if (spec.mode == SweepMode::random) {
    const auto* c = doc.contains("count") ? &doc.at("count") : nullptr;
    if (c == nullptr) problems.add("/count", "the number of random points (mode \"random\")", "nothing");
    else if (!c->is_number_integer() || c->get<std::int64_t>() < 1 || c->get<std::int64_t>() > kMaxPoints)
      problems.add("/count", "an integer from 1 to 100000000", shown(*c));
    else spec.count = c->get<std::int64_t>();
  } else if (doc.contains("count")) {
    problems.add("/count", "no count (only \"mode\": \"random\" has one)", shown(doc.at("count")));
  }
}

void read_metrics(const nlohmann::json& doc, SweepSpec& spec, ProblemList& problems) {
  if (!doc.contains("metrics")) {
    spec.metrics = default_metrics(spec.command);
    return;
  }
  const auto& m = doc.at("metrics");
  if (!m.is_array() || m.empty()) {
    problems.add("/metrics", "a non-empty array of JSON pointers into the point result", shown(m));
    return;
  }
  for (std::size_t i = 0; i < m.size(); ++i) {
    const std::string at = fmt::format("/metrics/{}", i);
    Metric metric;
    if (m[i].is_string()) {
      metric.pointer = m[i].get<std::string>();
    } else if (m[i].is_object()) {
      check_keys(m[i], at, {"name", "pointer"}, problems);
      metric.pointer = optional_string(m[i], "pointer", at, problems);
      metric.name = optional_string(m[i], "name", at, problems);
    } else {
      problems.add(at, "a JSON pointer or {\"name\", \"pointer\"}", shown(m[i]));
      continue;
    }
    bool valid = metric.pointer.size() > 1 && metric.pointer.front() == '/';
    try {
      (void)nlohmann::json::json_pointer(metric.pointer);
    } catch (const nlohmann::json::exception&) {
      valid = false;
    }
    if (!valid) problems.add(at, "a JSON pointer into the point result such as \"/summary/ettr\"", shown(m[i]));
    else if (!metric_pointer_possible(spec.command, metric.pointer))  // an empty column otherwise
      problems.add(at + (m[i].is_object() ? "/pointer" : ""),
                   fmt::format("a pointer that resolves in a {} point's result (docs/sweep-format.md, \"Point results\"; "
                               "e.g. \"{}\")",
                               command_name(spec.command), default_metrics(spec.command).front().pointer),
                   shown(metric.pointer));
    if (metric.name.empty() && valid) {
      metric.name = default_axis_name(metric.pointer);
      if (metric.name.rfind("summary.", 0) == 0) metric.name.erase(0, 8);
    }
    spec.metrics.push_back(metric);
  }
}

void read_axes(const nlohmann::json& doc, SweepSpec& spec, ProblemList& problems) {
  if (!doc.contains("axes")) {
    problems.add("/axes", "an array of axes", "nothing");
    return;
  }
  const auto& axes = doc.at("axes");
  if (!axes.is_array()) {
    problems.add("/axes", "an array of axes", shown(axes));
    return;
  }
  std::set<std::string> pointers;  // column names are checked with the metrics' (check_columns)
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::string at = fmt::format("/axes/{}", i);
    Axis axis = read_axis(axes[i], at, spec.mode, problems);
    if (!axis.pointer.empty() && !pointers.insert(axis.pointer).second)
      problems.add(at + "/pointer", "a pointer no other axis sweeps", shown(axis.pointer));
    // Axes are written in order: a later axis over an enclosing object would replace this one's value.
    for (std::size_t j = 0; j < spec.axes.size() && !axis.pointer.empty(); ++j)
      if (json_pointer_within(spec.axes[j].pointer, axis.pointer) && spec.axes[j].pointer != axis.pointer)
        problems.add(at + "/pointer",
                     fmt::format("a pointer that does not enclose /axes/{} (\"{}\"), whose value it would replace; list "
                                 "the enclosing axis first",
                                 j, spec.axes[j].pointer),
                     shown(axis.pointer));
    if (spec.mode == SweepMode::zip && !spec.axes.empty() && !axis.values.empty() && !spec.axes.front().values.empty() &&
        axis.values.size() != spec.axes.front().values.size())
      problems.add(at, fmt::format("{} values, as many as /axes/0 (mode \"zip\")", spec.axes.front().values.size()),
                   fmt::format("{} values", axis.values.size()));
    spec.axes.push_back(std::move(axis));
  }
}

/// Every points.csv column once: index, the axes, status, the metrics (and each metric's
/// NAME_ci95, which any metric may get), error. A second column of one name would make the CSV
/// ambiguous (pandas renames it, others keep one of them).
void check_columns(const SweepSpec& spec, bool metrics_given, ProblemList& problems) {
  std::map<std::string, std::string> taken{{"index", "the index column"},
                                           {"status", "the status column"},
                                           {"error", "the error column"}};
  const auto claim = [&](const std::string& name, const std::string& at, const std::string& owner) {
    if (name.empty()) return true;
    const auto [it, fresh] = taken.emplace(name, owner);
    if (!fresh)
      problems.add(at, fmt::format("a column name of its own (\"{}\" is {}; give a \"name\")", name, it->second),
                   shown(name));
    return fresh;
  };
  for (std::size_t i = 0; i < spec.metrics.size(); ++i) {
    const std::string owner = metrics_given ? fmt::format("/metrics/{}", i)
                                            : fmt::format("a default metric of \"{}\" points", command_name(spec.command));
    if (claim(spec.metrics[i].name, fmt::format("/metrics/{}", i), owner))  // one problem per metric
      claim(spec.metrics[i].name + "_ci95", fmt::format("/metrics/{}", i), "the ci95 column of " + owner);
  }
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    const std::string at = fmt::format("/axes/{}/name", i);
    const std::string owner = fmt::format("/axes/{}", i);
    if (claim(spec.axes[i].name, at, owner))
      claim(numeric_axis_column({spec.axes[i].name, spec.axes[i].pointer}), at, "the numeric column of " + owner);
  }
}

}  // namespace

const char* command_name(PointCommand command) {
  switch (command) {
    case PointCommand::run: return "run";
    case PointCommand::iteration: return "iteration";
    case PointCommand::analyze: return "analyze";
    case PointCommand::placement: return "placement";
  }
  return "run";
}

std::optional<PointCommand> parse_point_command(const std::string& name) {
  for (const auto command : {PointCommand::run, PointCommand::iteration, PointCommand::analyze, PointCommand::placement})
    if (name == command_name(command)) return command;
  return std::nullopt;
}

const char* mode_name(SweepMode mode) {
  switch (mode) {
    case SweepMode::grid: return "grid";
    case SweepMode::zip: return "zip";
    case SweepMode::random: return "random";
  }
  return "grid";
}

std::vector<Metric> default_metrics(PointCommand command) {
  if (command == PointCommand::analyze)
    return {{"ettr_closed", "/metrics/ettr/closed"},
            {"ettr", "/metrics/ettr/simulated"},
            {"wasted_time_per_failure_s_closed", "/metrics/wasted_time_per_failure_s/closed"},
            {"wasted_time_per_failure_s", "/metrics/wasted_time_per_failure_s/simulated"},
            {"eq1_wasted_time_s", "/closed_form/eq1_wasted_time_s"},
            {"young_s", "/closed_form/intervals/young_s"},
            {"daly_s", "/closed_form/intervals/daly_s"},
            {"best_every_iterations", "/closed_form/intervals/closed_form_best_every_iterations"},
            {"disagreements", "/disagreements"}};
  if (command == PointCommand::placement)
    return {{"p_recover_k1", "/placement/probability/1"},
            {"p_recover_k2", "/placement/probability/2"},
            {"p_recover_k3", "/placement/probability/3"},
            {"p_recover_k4", "/placement/probability/4"},
            {"storage_machines_k2", "/placement/expected_storage_machines/2"},
            {"shards_per_machine", "/placement/shards_per_machine"},
            {"cpu_memory_per_machine_bytes", "/placement/cpu_memory_per_machine_bytes"}};
  if (command == PointCommand::iteration)
    return {{"iteration_time_s", "/costs/iteration_time_s"},
            {"iteration_time_with_checkpoint_s", "/costs/iteration_time_with_checkpoint_s"},
            {"checkpoint_time_s", "/costs/checkpoint_time_s"},
            {"blocking_checkpoint_time_s", "/costs/blocking_checkpoint_time_s"},
            {"gpu_buffer_bytes", "/costs/gpu_buffer_bytes"},
            {"min_every_iterations", "/costs/min_every_iterations"}};
  return {{"ettr", "/summary/ettr"},
          {"iterations", "/summary/iterations"},
          {"failures", "/summary/failures/total"},
          {"wasted_time_per_failure_s", "/summary/wasted_time_per_failure_s"},
          {"iteration_time_s", "/costs/iteration_time_s"},
          {"training_s", "/summary/time_breakdown_s/training"},
          {"checkpoint_stall_s", "/summary/time_breakdown_s/checkpoint_stall"},
          {"lost_progress_s", "/summary/time_breakdown_s/lost_progress"},
          {"detection_s", "/summary/time_breakdown_s/detection"},
          {"replacement_wait_s", "/summary/time_breakdown_s/replacement_wait"},
          {"retrieval_s", "/summary/time_breakdown_s/retrieval"},
          {"restart_s", "/summary/time_breakdown_s/restart"},
          {"degraded_s", "/summary/time_breakdown_s/degraded"},
          {"migration_s", "/summary/time_breakdown_s/migration"}};
}

std::int64_t point_count(const SweepSpec& spec) {
  if (spec.mode == SweepMode::random) return spec.count;
  if (spec.axes.empty()) return 1;
  if (spec.mode == SweepMode::zip) return static_cast<std::int64_t>(spec.axes.front().values.size());
  std::int64_t n = 1;
  for (const auto& a : spec.axes) {
    n *= static_cast<std::int64_t>(a.values.size());
    if (n > kMaxPoints) return kMaxPoints + 1;
  }
  return n;
}

nlohmann::json normalized_spec_json(const SweepSpec& spec) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : spec.axes) {
    nlohmann::json j = {{"pointer", a.pointer}, {"name", a.name}};
    if (a.distribution) {
      const auto& d = *a.distribution;
      j["distribution"] = {{"kind", d.kind == Distribution::Kind::uniform ? "uniform" : "log-uniform"},
                           {"low", d.low}, {"high", d.high}, {"integer", d.integer}, {"unit", d.unit}};
    } else {
      j["values"] = a.values;
    }
    axes.push_back(std::move(j));
  }
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& m : spec.metrics) metrics.push_back({{"name", m.name}, {"pointer", m.pointer}});
  return {{"base", spec.base}, {"command", command_name(spec.command)}, {"mode", mode_name(spec.mode)},
          {"seed", spec.seed}, {"count", spec.count}, {"axes", axes}, {"metrics", metrics}};
}

SweepSpec load_sweep_spec_json(const nlohmann::json& doc, const std::string& file, const std::string& dir) {
  SweepSpec spec;
  spec.file = file;
  ProblemList problems(file);
  if (!doc.is_object()) {
    problems.add("", "a JSON object (the sweep spec)", shown(doc));
    problems.throw_if_any();
  }
  check_keys(doc, "", {"description", "base", "command", "mode", "seed", "count", "axes", "metrics"}, problems);
  if (doc.contains("description") && !doc.at("description").is_string())
    problems.add("/description", "a string", shown(doc.at("description")));
  read_header(doc, spec, problems);
  read_base(doc, dir, spec, problems);
  read_axes(doc, spec, problems);
  read_metrics(doc, spec, problems);
  check_columns(spec, doc.contains("metrics"), problems);
  problems.throw_if_any();
  if (point_count(spec) > kMaxPoints)
    throw LimitError(fmt::format("{}: /axes: the grid has more than {} points (the product of the axis lengths)", file,
                                 kMaxPoints));
  spec.hash = fmt::format("{:016x}", fnv1a_64(normalized_spec_json(spec).dump()));
  return spec;
}

}  // namespace ckptsim::sweep
