// The Python module `ckptsim` (pybind11): run, iteration, analyze and placement on a scenario
// given as a dict or a file path, each returning the plain dict that the command's JSON output
// holds (`run -o FILE`, `iteration --json`, `analyze --json`, `placement --json`). The documents
// come from the same library writers the command line calls (output/run_report.hpp,
// output/iteration_report.hpp, output/analyze_report.hpp, output/placement_report.hpp); this
// file only converts arguments, releases the GIL while the library works, and maps errors:
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
#include <cstdint>
#include <filesystem>
#include <limits>
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

#include "ckptsim/analysis/placement_study.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/output/band_report.hpp"
#include "ckptsim/output/analyze_report.hpp"
#include "ckptsim/output/iteration_report.hpp"
#include "ckptsim/output/placement_report.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/resolve_costs.hpp"
#include "ckptsim/run/work_estimate.hpp"
#include "ckptsim/scenario/kinds.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/units.hpp"
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
  std::vector<ckptsim::SchedulerKind> kinds;
  if (scheduler == "all") {
    for (const auto& e : ckptsim::EnumNames<ckptsim::SchedulerKind>::table) kinds.push_back(e.value);
  } else if (const auto kind = ckptsim::parse_name<ckptsim::SchedulerKind>(scheduler)) {
    kinds.push_back(*kind);
  } else {
    throw ckptsim::ModelError("scheduler", fmt::format("expected all or {}, found \"{}\"",
                                                       ckptsim::scheduler_registry().names_for_error(), scheduler));
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

}  // namespace

PYBIND11_MODULE(ckptsim, m) {
  m.doc() =
      "ckptsim from Python: run, iteration, analyze and placement return the dicts the command line's\n"
      "JSON outputs hold (run -o FILE, iteration --json, analyze --json, placement --json).\n"
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
}
