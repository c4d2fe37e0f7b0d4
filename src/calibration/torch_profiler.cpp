#include "ckptsim/calibration/torch_profiler.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "ckptsim/calibration/kernel_classes.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "json_reader.hpp"

namespace ckptsim {

namespace {

struct GpuEvent {
  double start, end;  // seconds from the trace's origin
  double launch;      // the launching cuda_runtime event's start, or the event's own start
  std::string name, cls, collective;
  double bytes = 0;
  int group = 0;
};

double dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, double> sizes = {
      {"Float", 4}, {"float", 4}, {"Float32", 4}, {"BFloat16", 2}, {"bfloat16", 2}, {"Half", 2}, {"Float16", 2}, {"half", 2},
      {"Double", 8}, {"double", 8}, {"Int", 4}, {"Int32", 4}, {"Long", 8}, {"Int64", 8}, {"Byte", 1}, {"Char", 1}, {"Bool", 1},
      {"UInt8", 1}, {"Int8", 1}, {"Short", 2}, {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0.0 : it->second;
}

double number_arg(const nlohmann::json& args, const char* key) {
  if (!args.is_object() || !args.contains(key)) return 0;
  const auto& v = args.at(key);
  return v.is_number() && std::isfinite(v.get<double>()) ? v.get<double>() : 0.0;
}

// A kernel's or launch's correlation id: a positive integer below 2^53 (Kineto writes a 64-bit
// counter, far below that); anything else (missing, fractional, negative, 1e300) is 0, "no
// correlation", so the event keeps its own start as its launch instead of converting an
// out-of-range double to an integer (undefined behaviour).
long long correlation_arg(const nlohmann::json& args) {
  const double c = number_arg(args, "correlation");
  if (!(c >= 1 && c <= 9007199254740992.0) || c != std::floor(c)) return 0;
  return static_cast<long long>(c);
}

// A collective's group size, capped at 1e6 before it becomes an int; below 1 (negative, -1e300)
// it names no group (0).
int group_size_arg(const nlohmann::json& args) {
  const double g = number_arg(args, "Group size");
  return g >= 1 ? static_cast<int>(std::min(g, 1e6)) : 0;
}

std::string text_arg(const nlohmann::json& args, const char* key) {
  return args.is_object() && args.contains(key) && args.at(key).is_string() ? args.at(key).get<std::string>() : std::string();
}

// The clock range of a trace's times (docs/limits.md, "Clock range"): a duration at most 100
// years, an instant (Kineto writes microseconds since the epoch, about 1.7e15) within the
// +-2^63 ns of the simulated clock. Beyond them a kernel's time would leave the fields that
// `ckptsim calibrate` and `iteration --profile` read back, or vanish in the rounding of its
// start (1e300 + 5 == 1e300).
constexpr double kMaxTraceDurationUs = kMaxDurationSeconds * 1e6;
constexpr double kMaxTraceInstantUs = 9.223372036854775807e15;  // 2^63 ns

class TraceReader {
 public:
  TraceReader(const std::string& file) : file_(file) {}

  // ts and dur of event k, in seconds; refuses non-finite values, negative durations and times
  // beyond the clock's range.
  std::pair<double, double> times(const nlohmann::json& e, std::size_t k) const {
    for (const char* key : {"ts", "dur"}) {
      const bool is_duration = key[0] == 'd';
      const auto it = e.find(key);
      const bool number = it != e.end() && it->is_number() && std::isfinite(it->get<double>());
      const double v = number ? it->get<double>() : 0.0;
      const bool ok = number && (is_duration ? v >= 0 && v <= kMaxTraceDurationUs : std::abs(v) <= kMaxTraceInstantUs);
      if (!ok) {
        throw InputError(file_, fmt::format("/traceEvents/{}/{}", k, key),
                         is_duration ? fmt::format("a duration >= 0 of at most 100 years ({:.6g} microseconds, the simulated "
                                                   "clock's range; docs/limits.md)",
                                                   kMaxTraceDurationUs)
                                     : fmt::format("a time in microseconds within the simulated clock's range (+-2^63 ns, "
                                                   "+-{:.4g} microseconds; docs/limits.md)",
                                                   kMaxTraceInstantUs),
                         it != e.end() ? it->dump().substr(0, 40) : "nothing");
      }
    }
    return {e.at("ts").get<double>() * 1e-6, e.at("dur").get<double>() * 1e-6};
  }

 private:
  std::string file_;
};

const std::string kEmpty;

std::string copy_direction(const std::string& name) {
  for (const char* d : {"DtoH", "HtoD", "DtoD"}) {
    if (name.find(d) != std::string::npos) return d;
  }
  return "other";
}

}  // namespace

ProfiledRank parse_torch_profiler(const nlohmann::json& doc, const std::string& file, int position, const TorchProfilerOptions& o) {
  const nlohmann::json* events = nullptr;
  if (doc.is_array()) events = &doc;
  else if (doc.is_object() && doc.contains("traceEvents") && doc.at("traceEvents").is_array()) events = &doc.at("traceEvents");
  if (!events) {
    throw InputError(file, doc.is_object() ? "/traceEvents" : "", "a Chrome trace-event document of the PyTorch profiler (an object with traceEvents, or an array of events)",
                     doc.is_object() ? (doc.contains("traceEvents") ? "traceEvents that is not an array" : "no traceEvents") : std::string("a JSON ") + doc.type_name());
  }
  ProfiledRank rank;
  rank.file = file;
  rank.rank = position;
  if (doc.is_object() && doc.contains("distributedInfo") && doc.at("distributedInfo").is_object()) {
    const auto& di = doc.at("distributedInfo");
    if (di.contains("rank") && di.at("rank").is_number_integer() && di.at("rank").get<long long>() >= 0 && di.at("rank").get<long long>() < 1'000'000) {
      rank.rank = di.at("rank").get<int>();
    }
    if (di.contains("world_size") && di.at("world_size").is_number_integer() && di.at("world_size").get<long long>() > 0 && di.at("world_size").get<long long>() <= 1'000'000) {
      rank.world_size = di.at("world_size").get<int>();
    }
  }
  const TraceReader r(file);
  struct StepMark {
    int number;
    double start, length;
  };
  std::vector<StepMark> steps;
  std::unordered_map<long long, double> launches;  // correlation -> cuda_runtime start
  std::vector<GpuEvent> gpu;
  std::vector<long long> gpu_correlation;
  for (std::size_t k = 0; k < events->size(); ++k) {
    const nlohmann::json& e = (*events)[k];
    if (!e.is_object() || !e.contains("ph") || e.at("ph") != "X") continue;
    const auto cat_it = e.find("cat"), name_it = e.find("name");
    const std::string& cat = cat_it != e.end() && cat_it->is_string() ? cat_it->get_ref<const std::string&>() : kEmpty;
    const std::string& name = name_it != e.end() && name_it->is_string() ? name_it->get_ref<const std::string&>() : kEmpty;
    static const nlohmann::json no_args = nlohmann::json::object();
    const auto found_args = e.find("args");
    const nlohmann::json& args = found_args != e.end() ? *found_args : no_args;
    if (name.rfind("ProfilerStep#", 0) == 0 && cat != "gpu_user_annotation") {
      const auto [ts, dur] = r.times(e, k);
      int number = 0;
      try {
        number = std::stoi(name.substr(13));
      } catch (const std::exception&) {
        throw InputError(file, fmt::format("/traceEvents/{}/name", k), "ProfilerStep#N with a step number N", "\"" + name + "\"");
      }
      if (!o.steps || (number >= o.steps->first && number <= o.steps->second)) steps.push_back({number, ts, dur});
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      if (const long long c = correlation_arg(args); c > 0) launches[c] = r.times(e, k).first;
    } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      const auto [ts, dur] = r.times(e, k);
      GpuEvent g{ts, ts + dur, ts, name, {}, {}, 0, 0};
      if (cat == "kernel") {
        g.cls = kernel_class(name);
        if (g.cls == "nccl") {
          g.collective = nccl_collective(name, text_arg(args, "Collective name"));
          const double elems = std::max(number_arg(args, "In msg nelems"), number_arg(args, "Out msg nelems"));
          g.bytes = elems * dtype_bytes(text_arg(args, "dtype"));
          g.group = group_size_arg(args);
        }
      } else if (cat == "gpu_memcpy") {
        g.cls = "memcpy " + copy_direction(name);
        g.bytes = number_arg(args, "bytes");
      } else {
        g.cls = "memset";
      }
      gpu.push_back(std::move(g));
      gpu_correlation.push_back(correlation_arg(args));
    }
  }
  if (steps.empty()) {
    throw InputError(file, "/traceEvents", o.steps ? fmt::format("ProfilerStep#{}..#{} annotations", o.steps->first, o.steps->second)
                                                   : "ProfilerStep#N annotations (profile with torch.profiler.schedule and call prof.step() every iteration)",
                     "none");
  }
  std::sort(steps.begin(), steps.end(), [](const StepMark& a, const StepMark& b) { return a.start < b.start; });
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    const auto it = launches.find(gpu_correlation[i]);
    if (it != launches.end()) gpu[i].launch = it->second;
  }
  std::vector<std::vector<const GpuEvent*>> of(steps.size());
  for (const GpuEvent& g : gpu) {
    // The last step starting at or before the launch, if the launch falls inside it.
    auto it = std::upper_bound(steps.begin(), steps.end(), g.launch, [](double t, const StepMark& s) { return t < s.start; });
    if (it == steps.begin()) continue;
    --it;
    if (g.launch < it->start + it->length) of[static_cast<std::size_t>(it - steps.begin())].push_back(&g);
  }
  bool any_nccl = false;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (of[s].empty()) {
      throw InputError(file, "/traceEvents", fmt::format("GPU work (kernels, copies) launched in ProfilerStep#{}", steps[s].number), "none: a CPU-only trace?");
    }
    ProfiledStep st;
    st.step = steps[s].number;
    st.iteration_time_s = steps[s].length;
    double g0 = of[s].front()->start;
    for (const GpuEvent* g : of[s]) g0 = std::min(g0, g->start);
    st.gpu_start_s = g0;
    const double t_end = steps[s].length;
    std::vector<std::pair<double, double>> busy;
    for (const GpuEvent* g : of[s]) {
      ClassTime& c = st.classes[g->cls];
      ++c.count;
      c.seconds += g->end - g->start;
      if (g->cls == "nccl") {
        busy.emplace_back(std::max(0.0, g->start - g0), std::min(t_end, g->end - g0));
        const int machines = o.gpus_per_machine && g->group > 0 ? (g->group + *o.gpus_per_machine - 1) / *o.gpus_per_machine : 0;
        st.collectives.push_back({g->collective, g->end - g->start, g->bytes, g->group, machines});
      } else if (g->cls.rfind("memcpy", 0) == 0) {
        st.copies.push_back({g->cls.substr(7), g->bytes, g->end - g->start});
      }
    }
    any_nccl = any_nccl || !busy.empty();
    std::sort(busy.begin(), busy.end());
    double cursor = 0;
    for (const auto& [b, e] : busy) {
      if (e <= b) continue;
      if (b > cursor && b - cursor >= o.min_span_s && b - cursor > 0) st.idle_spans.emplace_back(cursor, b - cursor);
      if (e > cursor) st.network_busy_s += e - std::max(cursor, b);
      cursor = std::max(cursor, e);
    }
    if (t_end > cursor && t_end - cursor >= o.min_span_s) st.idle_spans.emplace_back(cursor, t_end - cursor);
    // Each kernel is within 100 years; their sum per class in one step must be too (what the
    // kernel-class document holds and `calibrate` reads back).
    for (const auto& [cls, c] : st.classes) {
      if (!(c.seconds <= kMaxDurationSeconds)) {
        throw InputError(file, "/traceEvents", fmt::format("GPU time per kernel class and step within the simulated clock's range (at most 100 years, {:.6g} s; docs/limits.md)", kMaxDurationSeconds),
                         fmt::format("{:.6g} s of class {} in ProfilerStep#{}", c.seconds, cls, st.step));
      }
    }
    rank.steps.push_back(std::move(st));
  }
  if (!any_nccl) {
    throw InputError(file, "/traceEvents", "NCCL kernels (a distributed job's communication: their gaps are the idle spans)",
                     "none in any ProfilerStep: a single-GPU trace, or one profiled without CUDA activities");
  }
  return rank;
}

nlohmann::json idle_span_profile(const std::vector<ProfiledRank>& ranks, const std::string& source) {
  auto iterations = nlohmann::json::array();
  std::string counts;
  std::size_t expected = 0;
  bool same = true, first = true;
  for (const ProfiledRank& r : ranks) {
    for (const ProfiledStep& s : r.steps) {
      auto spans = nlohmann::json::array();
      for (const auto& [start, length] : s.idle_spans) spans.push_back({start, length});
      iterations.push_back({{"iteration_time", s.iteration_time_s}, {"spans", std::move(spans)}});
      if (first) expected = s.idle_spans.size(), first = false;
      same = same && s.idle_spans.size() == expected;
      counts += fmt::format("{}rank {} step {}: {}", counts.empty() ? "" : ", ", r.rank, s.step, s.idle_spans.size());
    }
  }
  if (!same) {
    throw InputError(ranks.front().file, "", "the same number of idle spans in every step of every rank (span k is the same gap each "
                     "iteration, docs/profile-format.md); choose steps (--steps A:B), one rank (--rank R) or drop short gaps (--min-span)",
                     counts);
  }
  return {{"format", "ckptsim-profile/1"}, {"source", source}, {"iterations", std::move(iterations)}};
}

nlohmann::json kernel_classes_document(const std::vector<ProfiledRank>& ranks) {
  auto out = nlohmann::json::array();
  for (const ProfiledRank& r : ranks) {
    auto steps = nlohmann::json::array();
    for (const ProfiledStep& s : r.steps) {
      nlohmann::json classes = nlohmann::json::object();
      for (const auto& [name, c] : s.classes) classes[name] = {{"count", c.count}, {"seconds", c.seconds}};
      auto collectives = nlohmann::json::array();
      for (const ProfiledCollective& c : s.collectives) {
        nlohmann::json j = {{"collective", c.collective}, {"seconds", c.seconds}, {"bytes", c.bytes}, {"group_size", c.group_size}};
        j["machines"] = c.machines > 0 ? nlohmann::json(c.machines) : nlohmann::json();
        collectives.push_back(std::move(j));
      }
      auto copies = nlohmann::json::array();
      for (const ProfiledCopy& c : s.copies) copies.push_back({{"direction", c.direction}, {"bytes", c.bytes}, {"seconds", c.seconds}});
      steps.push_back({{"step", s.step}, {"iteration_time_s", s.iteration_time_s}, {"network_busy_s", s.network_busy_s},
                       {"classes", std::move(classes)}, {"collectives", std::move(collectives)}, {"copies", std::move(copies)}});
    }
    out.push_back({{"rank", r.rank}, {"world_size", r.world_size}, {"file", r.file}, {"steps", std::move(steps)}});
  }
  return {{"format", "ckptsim-kernels/1"}, {"ranks", std::move(out)}};
}

}  // namespace ckptsim

namespace ckptsim {

std::vector<ProfiledRank> parse_kernel_classes_document(const nlohmann::json& doc, const std::string& file) {
  const JsonReader r(file);
  if (!doc.is_object()) r.fail("", "a kernel-class document (a JSON object)", std::string("a JSON ") + doc.type_name());
  const std::string format = r.text(doc, "", "format");
  if (format != "ckptsim-kernels/1") r.fail("/format", "\"ckptsim-kernels/1\"", "\"" + format + "\"");
  std::vector<ProfiledRank> out;
  const auto& ranks = r.array(doc, "", "ranks");
  if (ranks.empty()) r.fail("/ranks", "at least one rank", "none");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string rp = fmt::format("/ranks/{}", i);
    ProfiledRank pr;
    pr.rank = r.integer(ranks[i], rp, "rank", 0, 1'000'000);
    pr.world_size = r.integer(ranks[i], rp, "world_size", 0, 1'000'000);
    pr.file = r.text(ranks[i], rp, "file");
    const auto& steps = r.array(ranks[i], rp, "steps");
    if (steps.empty()) r.fail(rp + "/steps", "at least one step", "none");
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const std::string sp = fmt::format("{}/steps/{}", rp, s);
      ProfiledStep st;
      st.step = r.integer(steps[s], sp, "step", 0, 2'000'000'000);
      st.iteration_time_s = r.number(steps[s], sp, "iteration_time_s", 0, kMaxDurationSeconds);
      if (!(st.iteration_time_s > 0)) r.fail(sp + "/iteration_time_s", "a positive time", "0");
      st.network_busy_s = r.number(steps[s], sp, "network_busy_s", 0, st.iteration_time_s);
      const auto& classes = r.object(steps[s], sp, "classes");
      for (const auto& [name, c] : classes.items()) {
        const std::string cp = sp + "/classes/" + name;
        ClassTime t;
        t.count = static_cast<std::size_t>(r.integer(c, cp, "count", 0, 2'000'000'000));
        t.seconds = r.number(c, cp, "seconds", 0, kMaxDurationSeconds);
        st.classes[name] = t;
      }
      const auto& colls = r.array(steps[s], sp, "collectives");
      for (std::size_t k = 0; k < colls.size(); ++k) {
        const std::string cp = fmt::format("{}/collectives/{}", sp, k);
        ProfiledCollective c;
        c.collective = r.text(colls[k], cp, "collective");
        c.seconds = r.number(colls[k], cp, "seconds", 0, kMaxDurationSeconds);
        c.bytes = r.number(colls[k], cp, "bytes", 0, 1e18);
        c.group_size = r.integer(colls[k], cp, "group_size", 0, 1'000'000);
        const auto& m = r.at(colls[k], cp, "machines", "a machine count or null");
        if (!m.is_null()) c.machines = r.integer(colls[k], cp, "machines", 1, std::max(1, c.group_size));
        st.collectives.push_back(std::move(c));
      }
      const auto& copies = r.array(steps[s], sp, "copies");
      for (std::size_t k = 0; k < copies.size(); ++k) {
        const std::string cp = fmt::format("{}/copies/{}", sp, k);
        ProfiledCopy c;
        c.direction = r.text(copies[k], cp, "direction");
        c.bytes = r.number(copies[k], cp, "bytes", 0, 1e18);
        c.seconds = r.number(copies[k], cp, "seconds", 0, kMaxDurationSeconds);
        st.copies.push_back(std::move(c));
      }
      pr.steps.push_back(std::move(st));
    }
    out.push_back(std::move(pr));
  }
  return out;
}

}  // namespace ckptsim
