// Trace synthesis from published descriptions (trace_tools.hpp).
#include <cmath>
#include <fstream>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/trace_tools.hpp"
#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

constexpr double kDay = 86400.0;

TraceSynthesisSpec llama3_preset() {
  const CausePreset* llama = find_cause_preset("llama3-405b");
  TraceSynthesisSpec t;
  t.name = "llama3-405b";
  t.failures.process = FailureProcessKind::exponential;
  t.failures.rate = llama->rate_per_machine;
  t.failures.causes = FailureCauseTable{llama->name, llama->causes};
  t.provenance = {
      "Llama 3 405B pre-training interruptions (Dubey et al., The Llama 3 Herd of Models, arXiv 2407.21783,",
      "Table 5, https://arxiv.org/abs/2407.21783): 419 unexpected interruptions in 54 days on 2,048 machines",
      "(16,384 H100): rate 419 / (2,048 x 54) = 0.003789 per machine-day, exponential; causes drawn with the",
      "published counts as weights (faulty GPU 148, GPU HBM3 72, software bug 54, network switch/cable 35, ...);",
      "software bug, NCCL watchdog timeout and dependency are software, the other causes hardware."};
  return t;
}

TraceSynthesisSpec opt_preset() {
  TraceSynthesisSpec t;
  t.name = "opt-175b";
  t.failures.process = FailureProcessKind::exponential;
  t.failures.rate = 2.0 / 124.0 / kDay;
  t.failures.hardware_fraction = 0.5;
  t.provenance = {
      "OPT-175B training logbook (Meta, metaseq, https://github.com/facebookresearch/metaseq/tree/main/projects/OPT/",
      "chronicles; cited by GEMINI, SOSP'23): ~2 machines down per day on 124 machines (992 A100):",
      "rate 2 / 124 = 0.01613 per machine-day, exponential. The log gives no hardware/software split:",
      "hardware fraction 0.5 is the ckptsim default, not a published figure."};
  return t;
}

TraceSynthesisSpec lanl_preset() {
  TraceSynthesisSpec t;
  t.name = "lanl-weibull";
  t.failures.process = FailureProcessKind::weibull;
  t.failures.weibull_shape = 0.7;
  // Long-run rate 1.5%/machine/day: mean lifetime = scale x Gamma(1 + 1/k) = 1 / rate.
  t.failures.weibull_scale = SimTime::from_seconds(kDay / 0.015 / std::tgamma(1.0 + 1.0 / 0.7));
  t.failures.hardware_fraction = 0.5;
  t.provenance = {
      "LANL field data (Schroeder and Gibson, A large-scale study of failures in high-performance computing",
      "systems, DSN 2006, https://doi.org/10.1109/DSN.2006.5): times between a node's failures fit a Weibull",
      "with decreasing hazard, shape 0.7-0.8; shape 0.7 used, per-machine renewal from time 0. The scale is",
      "set so the long-run rate is 1.5% per machine-day (GEMINI's rate from the OPT-175B log), not a LANL",
      "figure. Hardware fraction 0.5 is the ckptsim default."};
  return t;
}

void apply_option(TraceSynthesisSpec& t, const std::string& key, const std::string& value, ProblemList& problems) {
  const std::string where = "/" + key;
  try {
    if (key == "rate") {
      const double rate = parse_failure_rate(value);
      if (t.failures.process == FailureProcessKind::weibull) {
        if (!(rate > 0)) throw UnitError("a failure rate greater than zero");
        const double k = t.failures.weibull_shape;
        t.failures.weibull_scale = SimTime::from_seconds(std::min(9.2e9, 1.0 / rate / std::tgamma(1.0 + 1.0 / k)));
      } else {
        t.failures.rate = rate;
      }
      t.provenance.push_back(fmt::format("Overridden: rate {}.", value));
    } else if (key == "shape") {
      const double k = std::stod(value);
      if (!(k >= 0.05 && k <= 20)) throw UnitError("a Weibull shape in [0.05, 20]");
      // Keep the long-run rate: rescale with the new shape.
      const double mean = t.failures.weibull_scale.seconds() * std::tgamma(1.0 + 1.0 / t.failures.weibull_shape);
      t.failures.weibull_shape = k;
      t.failures.weibull_scale = SimTime::from_seconds(std::min(9.2e9, mean / std::tgamma(1.0 + 1.0 / k)));
      t.provenance.push_back(fmt::format("Overridden: Weibull shape {}.", value));
    } else if (key == "hardware") {
      t.failures.hardware_fraction = parse_fraction(value);
      t.failures.causes = {};
      t.provenance.push_back(fmt::format("Overridden: hardware fraction {} (no cause table).", value));
    } else if (key == "causes") {
      const CausePreset* p = find_cause_preset(value);
      if (p == nullptr) throw UnitError("a cause preset name (llama3-405b)");
      t.failures.causes = FailureCauseTable{p->name, p->causes};
      t.provenance.push_back(fmt::format("Overridden: causes from {}: {}.", p->name, p->source));
    } else {
      problems.add(where, "one of the keys rate, shape, hardware, causes", fmt::format("\"{}\"", key));
    }
  } catch (const UnitError& e) {
    problems.add(where, e.what(), fmt::format("\"{}\"", value));
  } catch (const std::logic_error&) {  // std::stod
    problems.add(where, "a number", fmt::format("\"{}\"", value));
  }
}

}  // namespace

TraceSynthesisSpec parse_trace_spec(const std::string& text) {
  ProblemList problems("<trace spec>");
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  TraceSynthesisSpec t;
  if (name == "llama3-405b") {
    t = llama3_preset();
  } else if (name == "opt-175b") {
    t = opt_preset();
  } else if (name == "lanl-weibull") {
    t = lanl_preset();
  } else if (name == "exponential" || name == "weibull") {
    t.name = name;
    t.failures.process = *parse_name<FailureProcessKind>(name);
    t.failures.rate = 0.015 / kDay;
    t.failures.weibull_shape = 0.7;
    t.failures.weibull_scale = SimTime::from_seconds(kDay / 0.015 / std::tgamma(1.0 + 1.0 / 0.7));
    t.provenance = {fmt::format("A {} process given on the command line (not a published description).", name)};
  } else {
    problems.add("", "a preset (llama3-405b, opt-175b, lanl-weibull) or exponential / weibull, then :key=value,...",
                 fmt::format("\"{}\"", text));
    problems.throw_if_any();
  }
  if (colon != std::string::npos) {
    std::stringstream options(text.substr(colon + 1));
    std::string item;
    while (std::getline(options, item, ',')) {
      const auto eq = item.find('=');
      if (eq == std::string::npos) {
        problems.add("/" + item, "key=value", fmt::format("\"{}\"", item));
        continue;
      }
      apply_option(t, item.substr(0, eq), item.substr(eq + 1), problems);
    }
  }
  problems.throw_if_any();
  return t;
}

std::vector<TraceRecord> synthesize_trace(const FailureSpec& spec, int machines, SimTime duration,
                                          std::uint64_t seed) {
  const double expected = expected_failure_events(spec, machines, duration);
  if (expected > static_cast<double>(kMaxTraceRecords) / 2)
    throw LimitError(fmt::format("trace synth: ~{:.3g} failures expected, above the limit of {} records per trace; "
                                 "use fewer machines or a shorter duration",
                                 expected, kMaxTraceRecords / 2));
  // The Weibull process keeps one mt19937_64 engine (2.5 KB) per machine.
  constexpr int kMaxWeibullMachines = 100'000;
  if (spec.process == FailureProcessKind::weibull && machines > kMaxWeibullMachines)
    throw LimitError(fmt::format("trace synth: a Weibull process keeps a 2.5 KB random stream per machine: {} machines "
                                 "need ~{:.1f} GB, above the limit of {} machines",
                                 machines, machines * 2.5e3 / 1e9, kMaxWeibullMachines));
  const auto causes = failure_causes(spec);
  auto source = make_failure_source(FailureSourceContext{spec, machines, seed, 0, nullptr});
  std::vector<TraceRecord> out;
  while (auto e = source->next()) {
    if (e->time >= duration) break;
    for (int m = e->machine; m < e->machine + e->machines; ++m)
      out.push_back(TraceRecord{e->time, m, e->type, causes[static_cast<std::size_t>(e->cause)].name});
    if (out.size() > kMaxTraceRecords) throw LimitError("trace synth: more records than the trace limit");
  }
  return out;
}

void write_trace_csv(std::ostream& out, const std::vector<TraceRecord>& records, const std::vector<std::string>& header,
                     int machines, SimTime duration, std::uint64_t seed) {
  for (const auto& line : header) out << "# " << line << '\n';
  out << "# machines: " << machines << '\n';
  out << fmt::format("# duration: {:.9f}s\n", duration.seconds());
  out << "# seed: " << seed << '\n';
  out << "time,machine,type,cause\n";
  for (const auto& r : records)
    out << fmt::format("{:.9f},{},{},{}\n", r.time.seconds(), r.machine,
                       r.type == FailureType::hardware ? "hardware" : "software", r.cause);
}

TraceHeader read_trace_header(const std::string& path) {
  TraceHeader h;
  std::ifstream in(path);
  std::string line;
  for (int n = 0; n < 1000 && std::getline(in, line); ++n) {
    if (line.empty() || line.front() != '#') break;
    try {
      if (line.rfind("# machines: ", 0) == 0) h.machines = std::stoi(line.substr(12));
      if (line.rfind("# duration: ", 0) == 0) h.duration = parse_duration(line.substr(12));
    } catch (const std::exception&) {
      // A malformed header line is ignored: --machines / --duration then decide.
    }
  }
  return h;
}

}  // namespace ckptsim
