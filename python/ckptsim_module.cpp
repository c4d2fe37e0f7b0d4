// The Python module `ckptsim` (pybind11): run, iteration, analyze, placement and optimize on a
// scenario given as a dict or a file path, each returning the plain dict that the command's JSON
// output holds (`run -o FILE`, `iteration --json`, `analyze --json`, `placement --json`,
// `optimize --json`), and sweep, which runs a sweep spec as `ckptsim sweep SPEC -o DIR` does and
// returns its manifest.json and points.jsonl. The documents come from the same library code the
// command line calls (output/run_report.hpp, output/iteration_report.hpp,
// output/analyze_report.hpp, output/placement_report.hpp, analysis/optimize_study.hpp with
// output/optimize_report.hpp, sweep/sweep.hpp); this file only converts arguments, releases the
// GIL while the library works, and maps errors:
//   InputError  -> ckptsim.InputError (a ValueError; .problems lists {file, pointer, expected, found})
//   LimitError  -> ckptsim.LimitError (ValueError; force=True overrides, as --force does)
//   ModelError  -> ckptsim.ModelError (ValueError; .parameter names the input: a scenario's JSON
//                  pointer, or an argument of the call such as failures; a job that does not fit
//                  its GPUs is one, at /cluster/gpu_memory, unless force=True prices it)
//   IoError     -> OSError
// The message of each is the command line's error text without its "error: " prefix.
// Documents cross the boundary as JSON text (json.dumps / json.loads): doubles round-trip
// exactly, so a dict equals json.load() of the command's output, key for key.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "ckptsim/analysis/optimize_study.hpp"
#include "ckptsim/analysis/placement_study.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/checkpoint/scheduler.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/output/band_report.hpp"
#include "ckptsim/output/analyze_report.hpp"
#include "ckptsim/output/iteration_report.hpp"
#include "ckptsim/output/optimize_report.hpp"
#include "ckptsim/output/placement_report.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/resolve_costs.hpp"
#include "ckptsim/run/work_estimate.hpp"
#include "ckptsim/scenario/kinds.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/sweep/spec.hpp"
#include "ckptsim/sweep/sweep.hpp"
#include "ckptsim/workload/profile.hpp"

namespace py = pybind11;

namespace {

using ckptsim::Scenario;

/// Names the dict in problems ("<dict>: /cluster/machines: expected ..."), as a path names a file.
constexpr const char* kDictLabel = "<dict>";

py::object json_module() { return py::module_::import("json"); }

/// A Python value as JSON text (json.dumps; NaN and infinities become a parse error below).
std::string to_json_text(const py::handle& value) { return json_module().attr("dumps")(value).cast<std::string>(); }

py::object to_python(const nlohmann::json& doc) { return json_module().attr("loads")(doc.dump()); }

/// A path (str or os.PathLike) as text; nullopt when `value` is not one.
std::optional<std::string> path_text(const py::object& value) {
  if (py::isinstance<py::bytes>(value)) return std::nullopt;
  const py::object fspath = py::module_::import("os").attr("fspath");
  try {
    const py::object text = fspath(value);
    if (!py::isinstance<py::str>(text)) return std::nullopt;  // a PathLike giving bytes
    return text.cast<std::string>();
  } catch (const py::error_already_set&) {
    return std::nullopt;
  }
}

std::string type_name(const py::handle& value) { return py::str(py::type::of(value).attr("__name__")).cast<std::string>(); }

/// A scenario from a path (str or os.PathLike) or a dict, loaded and validated as the command
/// line loads a file. A dict has no file of its own: `file` (the call's file=) names the file it
/// stands for, and the dict is then loaded as `ckptsim run FILE` loads that file's text: problems
/// name FILE, a dict without "name" is named after it (its name without the extension), and a
/// relative failures.trace is found from its folder. Without file=, problems name "<dict>", the
/// name is "<dict>" and a relative trace is found from the working directory.
struct ScenarioInput {
  std::optional<std::string> path;
  std::string text;  ///< the dict as JSON text
  std::optional<std::string> file;  ///< the file a dict stands for
  std::string label;  ///< what the manifest's command line shows
};

ScenarioInput read_input(const py::object& scenario, const py::object& file) {
  ScenarioInput in;
  if (py::isinstance<py::dict>(scenario)) {
    in.text = to_json_text(scenario);
    in.label = "dict";
    if (!file.is_none()) {
      in.file = path_text(file);
      if (!in.file || in.file->empty())
        throw ckptsim::ModelError("file", fmt::format("expected the path (str or os.PathLike) of the file the dict stands "
                                                      "for, found {}", py::repr(file).cast<std::string>()));
      in.label += fmt::format(", file=\"{}\"", *in.file);
    }
    return in;
  }
  in.path = path_text(scenario);
  if (!in.path)
    throw py::type_error(fmt::format("scenario: expected a dict or a path (str or os.PathLike), found {}", type_name(scenario)));
  if (!file.is_none())
    throw ckptsim::ModelError("file", fmt::format("expected only with a dict scenario (a path is its own file), found "
                                                  "{} with the path \"{}\"", py::repr(file).cast<std::string>(), *in.path));
  in.label = "\"" + *in.path + "\"";
  return in;
}

Scenario load(const ScenarioInput& in) {
  if (in.path) return ckptsim::load_scenario_file(*in.path);
  const std::string label = in.file.value_or(kDictLabel);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in.text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ckptsim::InputError(label, "", "a JSON document (json.dumps of the dict)", e.what());
  }
  // The folder a relative trace is found from: the file's, as load_scenario_file takes it.
  std::string base_dir;
  if (in.file) {
    const std::filesystem::path parent = std::filesystem::path(*in.file).parent_path();
    base_dir = parent.empty() ? std::string(".") : parent.string();
  }
  return ckptsim::load_scenario_json(doc, label, base_dir);
}

std::string call_text(const char* function, const ScenarioInput& in, const std::string& options) {
  return fmt::format("python: ckptsim.{}({}{})", function, in.label, options);
}

void apply_overrides(Scenario& scenario, std::optional<int> replicas, std::optional<std::int64_t> seed, int min_replicas) {
  if (replicas) {
    if (*replicas < min_replicas)
      throw ckptsim::ModelError("replicas", fmt::format("expected at least {}, found {}", min_replicas, *replicas));
    scenario.run.replicas = *replicas;
  }
  if (seed) {
    if (*seed < 0) throw ckptsim::ModelError("seed", fmt::format("expected a non-negative integer, found {}", *seed));
    scenario.run.seed = static_cast<std::uint64_t>(*seed);
  }
}

/// Worker threads as `--jobs` takes them: 0 = every core, at most 256 (the output is the same for any).
int threads_for(int jobs) {
  constexpr int kMaxJobs = 256;
  if (jobs < 0 || jobs > kMaxJobs)
    throw ckptsim::ModelError("jobs", fmt::format("expected 0 (all cores) to {}, found {}", kMaxJobs, jobs));
  if (jobs == 0) return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, unsigned(kMaxJobs)));
  return jobs;
}

std::string options_text(std::optional<int> replicas, std::optional<std::int64_t> seed) {
  std::string out;
  if (replicas) out += fmt::format(", replicas={}", *replicas);
  if (seed) out += fmt::format(", seed={}", *seed);
  return out;
}

py::object run(const py::object& scenario_arg, std::optional<int> replicas, std::optional<std::int64_t> seed, int jobs,
               bool exact, bool force, const py::object& file) {
  const ScenarioInput in = read_input(scenario_arg, file);
  nlohmann::json doc;
  {
    py::gil_scoped_release release;
    Scenario scenario = load(in);
    apply_overrides(scenario, replicas, seed, 1);
    const int threads = threads_for(jobs);
    // The checks `ckptsim run` makes (run/run_checks.hpp): iteration work, the clock horizon,
    // the replicas' memory and failure events.
    const ckptsim::RunChecks checks{threads, force};
    const ckptsim::StrategyCosts costs = ckptsim::checked_strategy_costs(scenario, checks);
    const ckptsim::RunModel model = ckptsim::checked_run_model(scenario, costs, scenario.run.replicas, checks);
    ckptsim::MonteCarloOptions options;
    options.replicas = scenario.run.replicas;
    options.jobs = threads;
    options.mode = exact ? ckptsim::AdvanceMode::exact : ckptsim::AdvanceMode::closed_form;
    const ckptsim::RunSummary summary = ckptsim::summarize(ckptsim::run_replicas(model, options));
    doc = ckptsim::run_report_json(scenario, costs, summary, call_text("run", in, options_text(replicas, seed)));
  }
  return to_python(doc);
}

py::object analyze(const py::object& scenario_arg, std::optional<int> replicas, std::optional<std::int64_t> seed,
                   int jobs, bool force, const py::object& file) {
  const ScenarioInput in = read_input(scenario_arg, file);
  nlohmann::json doc;
  {
    py::gil_scoped_release release;
    Scenario scenario = load(in);
    apply_overrides(scenario, replicas, seed, 0);
    // The checks `ckptsim analyze` makes (run/run_checks.hpp); force=True as --force: the work
    // limits lifted, a job that does not fit its GPUs priced with a warning in costs.warnings.
    const ckptsim::RunChecks checks{threads_for(jobs), force};
    const ckptsim::StrategyCosts costs = ckptsim::checked_strategy_costs(scenario, checks);
    const ckptsim::AnalyzeReport report = ckptsim::make_analyze_report(scenario, costs, checks);
    doc = ckptsim::analyze_document(scenario, costs, report, call_text("analyze", in, options_text(replicas, seed)));
  }
  return to_python(doc);
}

py::object iteration(const py::object& scenario_arg, const std::string& scheduler, std::optional<std::string> profile,
                     bool force, const py::object& file) {
  const ScenarioInput in = read_input(scenario_arg, file);
  // Built-ins and the schedulers registered in this process (register_scheduler), as the library's
  // all_schedulers() lists them.
  std::vector<ckptsim::SchedulerId> kinds;
  if (scheduler == "all") {
    kinds = ckptsim::all_schedulers();
  } else if (const auto id = ckptsim::find_scheduler(scheduler)) {
    kinds.push_back(*id);
  } else {
    std::string names;
    for (const auto id : ckptsim::all_schedulers()) names += (names.empty() ? "" : ", ") + ckptsim::name_of(id);
    throw ckptsim::ModelError("scheduler", fmt::format("expected all or one of {}, found \"{}\"", names, scheduler));
  }
  nlohmann::json doc;
  {
    py::gil_scoped_release release;
    const Scenario scenario = load(in);
    ckptsim::enforce_work_limits(ckptsim::estimate_iteration_work(scenario), force);
    std::optional<ckptsim::IterationProfile> imported;
    if (profile) imported = ckptsim::load_profile_file(*profile, scenario.cluster.machines);
    const ckptsim::IterationStudy study = ckptsim::prepare_iteration_study(scenario, imported);
    std::vector<ckptsim::SchedulerRow> rows;
    for (const auto kind : kinds) rows.push_back({std::string(ckptsim::name_of(kind)), ckptsim::evaluate_scheduler(study, kind)});
    doc = ckptsim::iteration_report_json(
        study, rows, call_text("iteration", in, scheduler == "all" ? "" : fmt::format(", scheduler=\"{}\"", scheduler)));
    doc["prediction_band"] = ckptsim::band_json(ckptsim::band_view(scenario, study.modelled_iteration.seconds(), imported.has_value()));
  }
  return to_python(doc);
}

std::string repr_of(const py::handle& value) { return py::repr(value).cast<std::string>(); }

/// A byte count or fraction given as a number or as the command line's text ("9.4GB", "1%").
std::optional<double> quantity(const py::object& value, const char* name, double (*parse)(std::string_view)) {
  if (value.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(value)) {
    try {
      return parse(value.cast<std::string>());
    } catch (const ckptsim::UnitError& e) {
      throw ckptsim::ModelError(name, e.what());
    }
  }
  const auto refuse = [&] {
    return ckptsim::ModelError(name, fmt::format("expected a number or a string with its unit, found {}", repr_of(value)));
  };
  if (py::isinstance<py::bool_>(value) || !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)))
    throw refuse();
  try {
    return value.cast<double>();
  } catch (const py::cast_error&) {  // an int beyond the double range
    throw refuse();
  }
}

/// A Python int (not a bool) from 0 to INT_MAX, else nullopt.
std::optional<int> count_of(const py::handle& value) {
  if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value)) return std::nullopt;
  long long v = -1;
  try {
    v = value.cast<long long>();
  } catch (const py::cast_error&) {  // beyond 64 bits
    return std::nullopt;
  }
  if (v < 0 || v > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(v);
}

/// `failures`: K, or (K1, K2) as a tuple or list of two, the command line's --failures K or
/// K1..K2. Anything else (a one-element tuple, a bool, a float, a negative count) names the
/// argument, as the command line refuses "--failures 1.." (no K2).
std::pair<int, int> failures_range(const py::object& failures) {
  if (const auto k = count_of(failures)) return {*k, *k};
  if ((py::isinstance<py::tuple>(failures) || py::isinstance<py::list>(failures)) && py::len(failures) == 2) {
    const py::sequence pair = py::reinterpret_borrow<py::sequence>(failures);
    const auto first = count_of(pair[0]);
    const auto last = count_of(pair[1]);
    if (first && last) return {*first, *last};
  }
  throw ckptsim::ModelError("failures", fmt::format("expected K or (K1, K2), non-negative integers (the command line's "
                                                    "--failures K or K1..K2), found {}",
                                                    repr_of(failures)));
}

/// `scheme`: a name, "all" (nullopt: every scheme) or a list or tuple of names.
std::optional<std::vector<std::string>> scheme_names(const py::object& scheme) {
  if (scheme.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(scheme)) {
    const std::string s = scheme.cast<std::string>();
    if (s == "all") return std::nullopt;
    return std::vector<std::string>{s};
  }
  const auto refuse = [&] {
    return ckptsim::ModelError("scheme", fmt::format("expected a scheme name, \"all\" or a list of names, found {}",
                                                     repr_of(scheme)));
  };
  if (!py::isinstance<py::tuple>(scheme) && !py::isinstance<py::list>(scheme)) throw refuse();
  std::vector<std::string> names;
  for (const py::handle item : scheme) {
    if (!py::isinstance<py::str>(item)) throw refuse();
    names.push_back(item.cast<std::string>());
  }
  if (names.empty()) throw ckptsim::ModelError("scheme", "expected at least one scheme name");
  return names;
}

py::object placement(std::optional<int> machines, std::optional<int> replicas, const py::object& failures,
                     const py::object& scheme, std::optional<std::string> placement_file,
                     const py::object& window_probability, const py::object& shard_bytes, const py::object& cpu_memory,
                     bool monte_carlo, long long samples, long long seed, bool force) {
  ckptsim::PlacementRequest rq;
  rq.machines = machines.value_or(0);
  rq.replicas = replicas.value_or(0);
  if (!failures.is_none()) std::tie(rq.k_first, rq.k_last) = failures_range(failures);
  if (auto names = scheme_names(scheme)) rq.schemes = std::move(*names);
  rq.window_probability = quantity(window_probability, "window_probability", ckptsim::parse_fraction);
  rq.shard_bytes = quantity(shard_bytes, "shard_bytes", ckptsim::parse_bytes);
  rq.cpu_memory = quantity(cpu_memory, "cpu_memory", ckptsim::parse_bytes);
  rq.monte_carlo = monte_carlo;
  if (samples < 1) throw ckptsim::ModelError("samples", fmt::format("expected 1..100000000, found {}", samples));
  rq.samples = static_cast<std::size_t>(samples);
  if (seed < 0) throw ckptsim::ModelError("seed", fmt::format("expected a non-negative integer, found {}", seed));
  rq.seed = static_cast<std::uint64_t>(seed);
  rq.force = force;
  const std::string text = fmt::format("python: ckptsim.placement(machines={}, replicas={})", rq.machines, rq.replicas);
  nlohmann::json doc;
  {
    py::gil_scoped_release release;
    if (placement_file) rq.from_file = ckptsim::load_placement_file(*placement_file);
    rq = ckptsim::checked_placement_request(std::move(rq));
    doc = ckptsim::placement_report_json(rq, ckptsim::study_placements(rq), text);
  }
  return to_python(doc);
}

/// A dict's JSON text as a document; problems name `label`.
nlohmann::json dict_document(const ScenarioInput& in, const std::string& label, const char* what) {
  try {
    return nlohmann::json::parse(in.text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ckptsim::InputError(label, "", fmt::format("a JSON document (json.dumps of the {} dict)", what), e.what());
  }
}

/// The folder a file's relative paths are found from, as the command line takes it ("" for a bare name).
std::string parent_text(const std::string& path) { return std::filesystem::path(path).parent_path().string(); }

/// `vary`: "POINTER=V1,V2,..." (the command line's --vary), a list or tuple of such strings, or
/// a dict {pointer: [values]} whose values are written as JSON (json.dumps).
std::vector<ckptsim::VaryAxis> vary_axes(const py::object& vary) {
  std::vector<ckptsim::VaryAxis> axes;
  const auto refuse = [&] {
    return ckptsim::ModelError("vary", fmt::format("expected \"POINTER=V1,V2,...\", a list of such strings or a dict "
                                                   "{{pointer: [values]}}, found {}",
                                                   repr_of(vary)));
  };
  if (py::isinstance<py::str>(vary)) {
    axes.push_back(ckptsim::parse_vary_axis(vary.cast<std::string>()));
  } else if (py::isinstance<py::list>(vary) || py::isinstance<py::tuple>(vary)) {
    for (const py::handle item : vary) {
      if (!py::isinstance<py::str>(item)) throw refuse();
      axes.push_back(ckptsim::parse_vary_axis(item.cast<std::string>()));
    }
  } else if (py::isinstance<py::dict>(vary)) {
    for (const auto& [key, values] : py::reinterpret_borrow<py::dict>(vary)) {
      if (!py::isinstance<py::str>(key)) throw refuse();
      const std::string pointer = key.cast<std::string>();
      if (!py::isinstance<py::list>(values) && !py::isinstance<py::tuple>(values))
        throw ckptsim::ModelError("vary", fmt::format("{}: expected a list of values, found {}", pointer, repr_of(values)));
      std::vector<nlohmann::json> parsed;
      for (const py::handle value : values) {
        try {
          parsed.push_back(nlohmann::json::parse(to_json_text(value)));
        } catch (const nlohmann::json::parse_error&) {  // NaN or an infinity: json.dumps writes no JSON for them
          throw ckptsim::ModelError("vary", fmt::format("{}: expected JSON values, found {}", pointer, repr_of(value)));
        }
      }
      axes.push_back(ckptsim::make_vary_axis(pointer, std::move(parsed)));
    }
  } else {
    throw refuse();
  }
  ckptsim::check_vary_axes(axes);
  return axes;
}

py::object optimize(const py::object& scenario_arg, const py::object& vary, const std::string& objective, int replicas,
                    std::optional<std::int64_t> seed, int jobs, bool force, const py::object& file) {
  const ScenarioInput in = read_input(scenario_arg, file);
  const std::vector<ckptsim::VaryAxis> axes = vary_axes(vary);
  ckptsim::OptimizeOptions options;
  if (objective == "goodput") {
    options.objective = ckptsim::OptimizeObjective::goodput_per_machine_hour;
  } else if (objective != "ettr") {
    throw ckptsim::ModelError("objective", fmt::format("expected ettr or goodput, found \"{}\"", objective));
  }
  if (replicas < 0) throw ckptsim::ModelError("replicas", fmt::format("expected 0 or more, found {}", replicas));
  options.replicas = replicas;
  if (seed) {
    if (*seed < 0) throw ckptsim::ModelError("seed", fmt::format("expected a non-negative integer, found {}", *seed));
    options.seed = static_cast<std::uint64_t>(*seed);
  }
  options.jobs = threads_for(jobs);
  options.force = force;
  std::string call_options;
  for (const auto& axis : axes) call_options += fmt::format("{}{}", call_options.empty() ? ", vary=" : " ", axis.pointer);
  if (objective != "ettr") call_options += fmt::format(", objective=\"{}\"", objective);
  if (replicas > 0) call_options += fmt::format(", replicas={}", replicas);
  if (seed) call_options += fmt::format(", seed={}", *seed);
  nlohmann::json doc;
  {
    py::gil_scoped_release release;
    // As `ckptsim optimize FILE`: the file read by the guarded reader, relative paths from its folder.
    const std::string label = in.path ? *in.path : in.file.value_or(kDictLabel);
    const nlohmann::json scenario_doc =
        in.path ? ckptsim::read_json_file(*in.path, "a scenario file") : dict_document(in, label, "scenario");
    const std::string base_dir = in.path ? parent_text(*in.path) : (in.file ? parent_text(*in.file) : std::string());
    const ckptsim::OptimizeStudy study = ckptsim::optimize_scenario(scenario_doc, label, base_dir, axes, options);
    doc = ckptsim::optimize_document(study, call_text("optimize", in, call_options));
  }
  return to_python(doc);
}

/// `shard`: None (every point), "I/N" or (I, N), as --shard I/N takes it.
std::pair<int, int> shard_of(const py::object& shard) {
  if (shard.is_none()) return {0, 1};
  std::optional<std::pair<int, int>> parsed;
  if (py::isinstance<py::str>(shard)) {
    parsed = ckptsim::sweep::parse_shard(shard.cast<std::string>());
  } else if ((py::isinstance<py::tuple>(shard) || py::isinstance<py::list>(shard)) && py::len(shard) == 2) {
    const py::sequence pair = py::reinterpret_borrow<py::sequence>(shard);
    const auto i = count_of(pair[0]);
    const auto n = count_of(pair[1]);
    if (i && n && *n >= 1 && *i < *n) parsed = std::pair{*i, *n};
  }
  if (!parsed)
    throw ckptsim::ModelError("shard", fmt::format("expected \"I/N\" or (I, N) with 0 <= I < N (the command line's "
                                                   "--shard I/N), found {}",
                                                   repr_of(shard)));
  return *parsed;
}

/// A JSON file the sweep wrote, as Python objects (json.loads of its text: numbers as written).
py::object load_json_output(const std::string& path) {
  return json_module().attr("loads")(py::module_::import("pathlib").attr("Path")(path).attr("read_text")());
}

py::object sweep(const py::object& spec_arg, const py::object& output, int jobs, const py::object& shard, bool resume,
                 const py::object& file) {
  const ScenarioInput in = read_input(spec_arg, file);
  ckptsim::sweep::SweepOptions options;
  std::tie(options.shard_index, options.shard_count) = shard_of(shard);
  options.jobs = threads_for(jobs);
  options.resume = resume;
  // No output folder: a temporary one, removed once its outputs are read back.
  py::object temporary = py::none();
  if (output.is_none()) {
    if (resume)
      throw ckptsim::ModelError("resume", "expected output= (the folder of the sweep to finish), found no output folder");
    temporary = py::module_::import("tempfile").attr("TemporaryDirectory")(py::arg("prefix") = "ckptsim-sweep-");
    options.out_dir = temporary.attr("name").cast<std::string>();
  } else {
    const auto dir = path_text(output);
    if (!dir || dir->empty())
      throw ckptsim::ModelError("output", fmt::format("expected a folder path (str or os.PathLike), found {}", repr_of(output)));
    options.out_dir = *dir;
  }
  std::string call_options;
  if (!output.is_none()) call_options += fmt::format(", output=\"{}\"", options.out_dir);
  if (options.shard_count > 1) call_options += fmt::format(", shard=\"{}/{}\"", options.shard_index, options.shard_count);
  if (resume) call_options += ", resume=True";
  options.command_line = call_text("sweep", in, call_options);
  {
    py::gil_scoped_release release;
    // As `ckptsim sweep FILE`: a relative base scenario is found from the spec's folder ("." for a bare name).
    const std::string label = in.path ? *in.path : in.file.value_or(kDictLabel);
    const ckptsim::sweep::SweepSpec spec = [&] {
      if (in.path) return ckptsim::sweep::load_sweep_spec_file(*in.path);
      const std::string dir = in.file ? parent_text(*in.file) : std::string();
      return ckptsim::sweep::load_sweep_spec_json(dict_document(in, label, "sweep spec"), label, dir.empty() ? "." : dir);
    }();
    (void)ckptsim::sweep::run_sweep(spec, options);
  }
  const std::filesystem::path dir(options.out_dir);
  py::dict result;
  result["manifest"] = load_json_output((dir / "manifest.json").string());
  py::list points;
  const py::object lines = py::module_::import("pathlib").attr("Path")((dir / "points.jsonl").string()).attr("read_text")().attr("splitlines")();
  for (const py::handle line : lines) points.append(json_module().attr("loads")(line));
  result["points"] = points;
  if (!temporary.is_none()) temporary.attr("cleanup")();
  return result;
}

// ---- A scheduler written in Python (docs/python.md, "A scheduler in Python") ----

/// The plan input as the Python function sees it: times in seconds, bytes and bytes/s as numbers.
py::dict schedule_input_dict(const ckptsim::ScheduleInput& in) {
  py::list spans;
  for (const auto& s : in.spans) {
    py::dict d;
    d["start"] = s.start.seconds();
    d["length"] = s.length.seconds();
    spans.append(d);
  }
  py::dict d;
  d["spans"] = spans;
  d["shard_bytes"] = in.shard_bytes;
  d["copies"] = in.copies;
  d["buffer_bytes"] = in.buffer_bytes;
  d["sub_buffers"] = in.sub_buffers;
  d["span_safety"] = in.span_safety;
  d["alpha"] = in.alpha.seconds();
  d["bandwidth"] = in.bandwidth;
  return d;
}

/// Reads what a Python scheduler returned; every refusal is a ModelError at
/// /strategy/scheduler naming the scheduler, the place in its result, what was expected and found.
class PythonPlanReader {
 public:
  PythonPlanReader(std::string scheduler, const ckptsim::ScheduleInput& in) : scheduler_(std::move(scheduler)), in_(in) {}

  ckptsim::CheckpointPlan read(const py::handle& result) {
    if (py::isinstance<py::str>(result)) {  // a built-in's plan, e.g. "blocking" as a fallback
      const std::string name = result.cast<std::string>();
      const auto id = ckptsim::find_scheduler(name);
      if (!id || !id->builtin()) refuse("the result", "a built-in scheduler's name (" + builtin_names() + ") or a plan dict", repr_of(result));
      return ckptsim::make_plan(*id, in_);
    }
    if (!py::isinstance<py::dict>(result)) refuse("the result", "a plan dict or a built-in scheduler's name", repr_of(result));
    const auto plan_dict = py::reinterpret_borrow<py::dict>(result);
    for (const auto& [key, value] : plan_dict) {
      static_cast<void>(value);
      const std::string k = py::str(key).cast<std::string>();
      if (k != "chunks" && k != "sub_buffers" && k != "chunk_limit" && k != "blocks_training")
        refuse("the result", "only the keys chunks, sub_buffers, chunk_limit, blocks_training", "\"" + k + "\"");
    }
    ckptsim::CheckpointPlan plan = ckptsim::plan_for(in_);
    if (plan_dict.contains("sub_buffers")) plan.sub_buffers = integer(plan_dict["sub_buffers"], "sub_buffers");
    if (plan_dict.contains("chunk_limit")) plan.chunk_limit = number(plan_dict["chunk_limit"], "chunk_limit");
    if (plan_dict.contains("blocks_training")) {
      const py::object b = plan_dict["blocks_training"];
      if (!py::isinstance<py::bool_>(b)) refuse("blocks_training", "true or false", repr_of(b));
      plan.blocks_training = b.cast<bool>();
    }
    if (!plan_dict.contains("chunks")) refuse("the result", "a \"chunks\" list", "none");
    const py::object chunks = plan_dict["chunks"];
    if (!py::isinstance<py::list>(chunks) && !py::isinstance<py::tuple>(chunks))
      refuse("chunks", "a list of chunk dicts", repr_of(chunks));
    for (const py::handle c : chunks) {
      const std::string where = fmt::format("chunks[{}]", plan.chunks.size());
      if (!py::isinstance<py::dict>(c)) refuse(where, "a dict {copy, span, offset, bytes, sub_buffer}", repr_of(c));
      const auto cd = py::reinterpret_borrow<py::dict>(c);
      ckptsim::PlannedChunk chunk;
      chunk.index = static_cast<int>(plan.chunks.size());
      chunk.copy = integer(field(cd, where, "copy"), where + ".copy");
      chunk.span = integer(field(cd, where, "span"), where + ".span");
      const double offset = number(field(cd, where, "offset"), where + ".offset");
      if (!(offset >= 0 && offset < 3.15e9)) refuse(where + ".offset", "seconds from 0 to 100 years", repr_of(cd["offset"]));
      chunk.offset = ckptsim::SimTime::from_seconds(offset);
      chunk.bytes = number(field(cd, where, "bytes"), where + ".bytes");
      chunk.sub_buffer = cd.contains("sub_buffer") ? integer(cd["sub_buffer"], where + ".sub_buffer") : 0;
      plan.chunks.push_back(chunk);
    }
    return plan;  // make_plan completes and checks it (checkpoint/plan_check.hpp)
  }

 private:
  [[noreturn]] void refuse(const std::string& where, const std::string& expected, const std::string& found) const {
    throw ckptsim::ModelError("/strategy/scheduler",
                              fmt::format("the Python scheduler \"{}\" returned, at {}: expected {}, found {}", scheduler_,
                                          where, expected, found));
  }
  py::object field(const py::dict& d, const std::string& where, const char* key) const {
    if (!d.contains(key)) refuse(where, fmt::format("a \"{}\" key", key), "none");
    return d[key];
  }
  int integer(const py::handle& v, const std::string& where) const {
    if (py::isinstance<py::bool_>(v) || !py::isinstance<py::int_>(v)) refuse(where, "an integer", repr_of(v));
    const auto value = v.cast<long long>();
    if (value < -1'000'000 || value > 1'000'000'000) refuse(where, "an integer from -1000000 to 1000000000", repr_of(v));
    return static_cast<int>(value);
  }
  double number(const py::handle& v, const std::string& where) const {
    if (py::isinstance<py::bool_>(v) || !(py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)))
      refuse(where, "a number", repr_of(v));
    const double value = v.cast<double>();
    if (!std::isfinite(value)) refuse(where, "a finite number", repr_of(v));
    return value;
  }
  static std::string builtin_names() {
    std::string out;
    for (const auto& e : ckptsim::EnumNames<ckptsim::SchedulerKind>::table) out += (out.empty() ? "" : ", ") + std::string(e.name);
    return out;
  }

  std::string scheduler_;
  const ckptsim::ScheduleInput& in_;
};

/// Registers a Python callable as a scheduler. The library calls it from whichever thread plans
/// (the GIL is released while the library works): each call takes the GIL. A Python exception
/// in it becomes a ModelError at /strategy/scheduler naming the scheduler. Registrations last
/// for the process; the callable's reference is dropped under the GIL, or kept when the
/// interpreter has already ended (at the process's exit).
std::string register_python_scheduler(const std::string& name, const std::string& description, py::function plan) {
  std::shared_ptr<py::function> held(new py::function(std::move(plan)), [](py::function* f) {
    if (Py_IsInitialized() == 0) return;  // the interpreter is gone: nothing to release the reference to
    py::gil_scoped_acquire gil;
    delete f;
  });
  auto call = [name, held](const ckptsim::ScheduleInput& in) -> ckptsim::CheckpointPlan {
    py::gil_scoped_acquire gil;
    py::object result;
    try {
      result = (*held)(schedule_input_dict(in));
    } catch (py::error_already_set& e) {
      throw ckptsim::ModelError("/strategy/scheduler", fmt::format("the Python scheduler \"{}\" raised {}", name, e.what()));
    }
    return PythonPlanReader(name, in).read(result);
  };
  return ckptsim::name_of(ckptsim::register_scheduler(name, description, std::move(call)));
}

py::list scheduler_list() {
  py::list out;
  for (const auto id : ckptsim::all_schedulers()) {
    py::dict d;
    d["name"] = ckptsim::name_of(id);
    d["description"] = ckptsim::scheduler_description(id);
    d["builtin"] = id.builtin().has_value();
    out.append(d);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(ckptsim, m) {
  m.doc() =
      "ckptsim from Python: run, iteration, analyze, placement and optimize return the dicts the command\n"
      "line's JSON outputs hold (run -o FILE, iteration --json, analyze --json, placement --json,\n"
      "optimize --json); sweep writes what `ckptsim sweep -o DIR` writes and returns its manifest and points.\n"
      "A scenario is a path or a dict in the scenario format (docs/scenario-format.md).\n"
      "A dict given with file=PATH (run, analyze, iteration) is loaded as the command line loads that\n"
      "file: problems name it, it names a scenario without \"name\" (the file name without its\n"
      "extension), and a relative failures.trace is found from its folder. Without file=, problems\n"
      "and the default name are \"<dict>\", and a relative trace is found from the working directory.";
  static py::exception<ckptsim::InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<ckptsim::LimitError> limit_error(m, "LimitError", PyExc_ValueError);
  static py::exception<ckptsim::ModelError> model_error(m, "ModelError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ckptsim::InputError& e) {
      py::list problems;
      for (const auto& q : e.problems()) {
        py::dict d;
        d["file"] = q.file;
        d["pointer"] = q.pointer;
        d["expected"] = q.expected;
        d["found"] = q.found;
        problems.append(d);
      }
      std::string text;
      for (const auto& q : e.problems()) text += (text.empty() ? "" : "\n") + ckptsim::format_problem(q);
      py::object error = py::reinterpret_borrow<py::object>(input_error.ptr())(text);
      error.attr("problems") = problems;
      PyErr_SetObject(input_error.ptr(), error.ptr());
    } catch (const ckptsim::LimitError& e) {
      limit_error(e.what());
    } catch (const ckptsim::ModelError& e) {
      py::object error = py::reinterpret_borrow<py::object>(model_error.ptr())(std::string(e.what()));
      error.attr("parameter") = e.parameter();
      PyErr_SetObject(model_error.ptr(), error.ptr());
    } catch (const ckptsim::IoError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    }
  });
  m.attr("__version__") = CKPTSIM_PYTHON_VERSION;

  m.def("run", &run, py::arg("scenario"), py::kw_only(), py::arg("replicas") = py::none(),
        py::arg("seed") = py::none(), py::arg("jobs") = 1, py::arg("exact") = false, py::arg("force") = false,
        py::arg("file") = py::none(),
        "Monte Carlo replicas of the training run under failures (ckptsim run). Returns the JSON report\n"
        "`ckptsim run SCENARIO -o FILE` writes: {manifest, scenario, costs, summary}. replicas and seed\n"
        "override run.replicas and run.seed; jobs=0 uses every core; exact steps iteration by iteration;\n"
        "force=True as --force: the work limits lifted, a job that does not fit its GPUs priced with a\n"
        "warning in costs.warnings.");
  m.def("analyze", &analyze, py::arg("scenario"), py::kw_only(), py::arg("replicas") = py::none(),
        py::arg("seed") = py::none(), py::arg("jobs") = 1, py::arg("force") = false, py::arg("file") = py::none(),
        "Closed forms beside the Monte Carlo estimates (ckptsim analyze --json); replicas=0: closed forms only.\n"
        "force=True as --force: the work limits lifted, a job that does not fit its GPUs priced with a\n"
        "warning in costs.warnings.");
  m.def("iteration", &iteration, py::arg("scenario"), py::kw_only(), py::arg("scheduler") = "all",
        py::arg("profile") = py::none(), py::arg("force") = false, py::arg("file") = py::none(),
        "One training iteration and each checkpoint traffic scheduler (ckptsim iteration --json).\n"
        "scheduler: blocking | naive | single-buffer | gemini | all; profile: a measured profile file;\n"
        "force=True as --force: the work limits lifted.");
  m.def("placement", &placement, py::kw_only(), py::arg("machines") = py::none(), py::arg("replicas") = py::none(),
        py::arg("failures") = py::none(), py::arg("scheme") = py::none(), py::arg("placement_file") = py::none(),
        py::arg("window_probability") = py::none(), py::arg("shard_bytes") = py::none(),
        py::arg("cpu_memory") = py::none(), py::arg("monte_carlo") = false, py::arg("samples") = 10000,
        py::arg("seed") = 1, py::arg("force") = false,
        "P(every checkpoint recoverable from CPU memory) after k simultaneous failures, per placement\n"
        "scheme (ckptsim placement --json). failures: K or (K1, K2); scheme: a name, a list of names or\n"
        "\"all\"; window_probability, shard_bytes, cpu_memory: numbers or text with units (\"1%\", \"9.4GB\").");
  m.def("optimize", &optimize, py::arg("scenario"), py::kw_only(), py::arg("vary"), py::arg("objective") = "ettr",
        py::arg("replicas") = 0, py::arg("seed") = py::none(), py::arg("jobs") = 1, py::arg("force") = false,
        py::arg("file") = py::none(),
        "The best ETTR over every combination of scenario values (ckptsim optimize --json). vary:\n"
        "\"POINTER=V1,V2,...\" as --vary takes it, a list of such strings, or a dict {pointer: [values]};\n"
        "objective: ettr | goodput; replicas > 0 ranks by the Monte Carlo mean; force=True as --force.");
  m.def("register_scheduler", &register_python_scheduler, py::arg("name"), py::arg("description"), py::arg("plan"),
        "Adds a checkpoint traffic scheduler written in Python (docs/python.md, \"A scheduler in Python\").\n"
        "plan(input) gets {spans: [{start, length}] (seconds), shard_bytes, copies, buffer_bytes, sub_buffers,\n"
        "span_safety, alpha (seconds), bandwidth (bytes/s)} and returns {chunks: [{copy, span, offset (s),\n"
        "bytes, sub_buffer}], sub_buffers, chunk_limit, blocks_training}, or a built-in's name (\"blocking\").\n"
        "Scenarios loaded afterwards may name it in strategy.scheduler; iteration(scheduler=\"all\") lists it.\n"
        "The plan is checked (plan_check.hpp) before use; it must be the same for the same input. Returns the name.");
  m.def("schedulers", &scheduler_list,
        "Every checkpoint traffic scheduler of this process: [{name, description, builtin}], the built-ins\n"
        "first, then those registered, in order.");
  m.def("sweep", &sweep, py::arg("spec"), py::kw_only(), py::arg("output") = py::none(), py::arg("jobs") = 1,
        py::arg("shard") = py::none(), py::arg("resume") = false, py::arg("file") = py::none(),
        "Every point of a sweep spec (ckptsim sweep SPEC -o DIR), given as a path or a dict. Writes\n"
        "points.csv, points.jsonl and manifest.json into output (a temporary folder, removed after, when\n"
        "None) and returns {\"manifest\": manifest.json, \"points\": the records of points.jsonl}.\n"
        "shard: \"I/N\" or (I, N); resume=True finishes the sweep whose journal is in output.");
}
