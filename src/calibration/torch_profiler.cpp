#include "ckptsim/calibration/torch_profiler.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "ckptsim/calibration/kernel_classes.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "json_reader.hpp"

namespace ckptsim {

namespace {

struct GpuEvent {
  double start, end;             // seconds from the trace's origin
  std::optional<double> launch;  // the launching runtime call's start (host clock), when linked
  std::string cls, collective;
  double bytes = 0;
  int group = 0;
};

struct StepMark {
  int number;
  double start, length;  // the host's ProfilerStep annotation
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
long long correlation_of(const nlohmann::json& v) {
  const double c = v.is_number() && std::isfinite(v.get<double>()) ? v.get<double>() : 0.0;
  if (!(c >= 1 && c <= 9007199254740992.0) || c != std::floor(c)) return 0;
  return static_cast<long long>(c);
}

long long correlation_arg(const nlohmann::json& args) {
  return args.is_object() && args.contains("correlation") ? correlation_of(args.at("correlation")) : 0;
}

// Where an event sits: its process, thread (the GPU's device and stream for GPU events) and
// start; an ac2g flow's end ("f") sits where the GPU event it points at starts.
std::string place_key(const nlohmann::json& e, double ts) {
  const auto pid = e.find("pid"), tid = e.find("tid");
  return fmt::format("{}|{}|{:.17g}", pid != e.end() ? pid->dump() : "-", tid != e.end() ? tid->dump() : "-", ts);
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
    check(e, k, {"ts", "dur"});
    return {e.at("ts").get<double>() * 1e-6, e.at("dur").get<double>() * 1e-6};
  }

  // ts of event k (a flow event has no duration), in seconds, checked as times() does.
  double instant(const nlohmann::json& e, std::size_t k) const {
    check(e, k, {"ts"});
    return e.at("ts").get<double>() * 1e-6;
  }

 private:
  void check(const nlohmann::json& e, std::size_t k, std::initializer_list<const char*> keys) const {
    for (const char* key : keys) {
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
  }

  std::string file_;
};

const std::string kEmpty;

std::string copy_direction(const std::string& name) {
  for (const char* d : {"DtoH", "HtoD", "DtoD"}) {
    if (name.find(d) != std::string::npos) return d;
  }
  return "other";
}

// Which GPU events belong to each step and the step's window (torch_profiler.hpp).
struct StepWindows {
  std::vector<std::vector<const GpuEvent*>> of;          // per mark
  std::vector<std::pair<double, double>> window;          // per mark: [start, end), seconds
  std::size_t unlinked = 0;                               // GPU events without a launch (device windows)
  std::size_t outside = 0;                                // GPU events in no step
  std::optional<int> last_without_successor;              // the last step with GPU work (device windows)
};

// On the GPU's clock (`by_launch`): a linked event belongs to the step whose annotation holds
// its launch; a step's window runs from its first GPU event's start to the next step's (or, for
// the last step with GPU work, to its last event's end); an event without a launch belongs to
// the window holding its start. Otherwise (no event linked) on the host's: an event belongs to
// the step whose annotation holds its own start, and the window is [g0, g0 + annotation length).
StepWindows step_windows(const std::vector<StepMark>& marks, const std::vector<GpuEvent>& gpu, bool by_launch, const std::string& file) {
  StepWindows w;
  w.of.resize(marks.size());
  w.window.assign(marks.size(), {0.0, 0.0});
  const auto mark_of = [&](double t) -> std::optional<std::size_t> {
    auto it = std::upper_bound(marks.begin(), marks.end(), t, [](double x, const StepMark& m) { return x < m.start; });
    if (it == marks.begin()) return std::nullopt;
    --it;
    if (!(t < it->start + it->length)) return std::nullopt;
    return static_cast<std::size_t>(it - marks.begin());
  };
  for (const GpuEvent& g : gpu) {
    if (by_launch && !g.launch) continue;
    const auto s = mark_of(by_launch ? *g.launch : g.start);
    if (s) w.of[*s].push_back(&g);
    else ++w.outside;
  }
  std::vector<std::size_t> with_work;
  for (std::size_t s = 0; s < marks.size(); ++s) {
    if (w.of[s].empty()) continue;
    double first = w.of[s].front()->start, last = w.of[s].front()->end;
    for (const GpuEvent* g : w.of[s]) first = std::min(first, g->start), last = std::max(last, g->end);
    w.window[s] = by_launch ? std::pair(first, last) : std::pair(first, first + marks[s].length);
    with_work.push_back(s);
  }
  if (!by_launch) return w;
  for (std::size_t i = 0; i + 1 < with_work.size(); ++i) {
    const std::size_t s = with_work[i], n = with_work[i + 1];
    if (!(w.window[n].first > w.window[s].first)) {
      throw InputError(file, "/traceEvents", "each step's GPU work starting after the previous step's (the steps' windows on the GPU's clock)",
                       fmt::format("ProfilerStep#{}'s first GPU event at {:.3f} us, not after ProfilerStep#{}'s at {:.3f} us", marks[n].number,
                                   1e6 * w.window[n].first, marks[s].number, 1e6 * w.window[s].first));
    }
    w.window[s].second = w.window[n].first;
  }
  if (!with_work.empty()) {
    const std::size_t s = with_work.back();
    w.last_without_successor = marks[s].number;
    if (!(w.window[s].second > w.window[s].first)) {
      throw InputError(file, "/traceEvents", fmt::format("ProfilerStep#{}'s GPU work lasting more than 0 s", marks[s].number), "events of 0 s only");
    }
  }
  // Events without a launch record: by their own start, into the window holding it.
  for (const GpuEvent& g : gpu) {
    if (g.launch) continue;
    ++w.unlinked;
    auto it = std::upper_bound(with_work.begin(), with_work.end(), g.start, [&](double t, std::size_t s) { return t < w.window[s].first; });
    if (it != with_work.begin() && g.start < w.window[*std::prev(it)].second) w.of[*std::prev(it)].push_back(&g);
    else ++w.outside;
  }
  return w;
}

}  // namespace

bool engine_hook_range(std::string_view name) {
  static constexpr std::string_view fsdp1[] = {"FullyShardedDataParallel._pre_forward", "FullyShardedDataParallel._post_forward",
                                               "FullyShardedDataParallel._pre_backward_hook",
                                               "FullyShardedDataParallel._post_backward_hook"};
  static constexpr std::string_view fsdp2[] = {"FSDP::pre_forward", "FSDP::post_forward", "FSDP::pre_backward", "FSDP::post_backward"};
  for (const std::string_view n : fsdp1)
    if (name == n) return true;
  // FSDP2 appends the module's name: "FSDP::pre_forward (layers.0)"; "FSDP::post_backward_reduce"
  // (nested in the hook) is another range.
  for (const std::string_view n : fsdp2)
    if (name.substr(0, n.size()) == n && (name.size() == n.size() || name.substr(n.size(), 2) == " (")) return true;
  return false;
}

HookHostTime hook_host_time(const std::vector<ProfiledRank>& ranks) {
  HookHostTime h;
  for (const ProfiledRank& r : ranks) {
    for (const ProfiledStep& s : r.steps) {
      h.calls += s.hook_calls;
      h.host_s += s.hook_host_s;
      ++h.steps;
    }
  }
  return h;
}

bool torch_profiler_reads(const nlohmann::json& e) {
  if (!e.is_object()) return true;
  const auto cat_it = e.find("cat"), name_it = e.find("name");
  const std::string& cat = cat_it != e.end() && cat_it->is_string() ? cat_it->get_ref<const std::string&>() : kEmpty;
  if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "cuda_runtime" || cat == "cuda_driver" || cat == "ac2g") return true;
  if (name_it == e.end() || !name_it->is_string()) return false;
  const std::string& name = name_it->get_ref<const std::string&>();
  return name.rfind("ProfilerStep#", 0) == 0 || (cat == "user_annotation" && engine_hook_range(name));
}

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
  std::vector<StepMark> marks;
  std::unordered_map<long long, double> launches;      // correlation -> runtime event's start
  std::unordered_map<long long, double> flow_starts;   // ac2g flow id -> its start (the launch)
  std::unordered_map<std::string, long long> flow_ends;  // (pid, tid, ts) of an ac2g flow's end -> its id
  std::vector<GpuEvent> gpu;
  std::vector<long long> gpu_correlation;
  std::vector<std::string> gpu_key;  // (pid, tid, ts) of GPU events without a correlation arg
  std::vector<std::pair<double, double>> hooks;  // engine hooks' host ranges: (start, length)
  for (std::size_t k = 0; k < events->size(); ++k) {
    const nlohmann::json& e = (*events)[k];
    if (!e.is_object() || !e.contains("ph") || !e.at("ph").is_string()) continue;
    const std::string& ph = e.at("ph").get_ref<const std::string&>();
    const auto cat_it = e.find("cat"), name_it = e.find("name");
    const std::string& cat = cat_it != e.end() && cat_it->is_string() ? cat_it->get_ref<const std::string&>() : kEmpty;
    if ((ph == "s" || ph == "f") && cat == "ac2g") {
      // Kineto's launch-to-GPU flow (docs/references.md): "s" on the runtime call, "f" on the
      // GPU event, sharing the correlation id as `id`.
      const long long id = correlation_of(e.contains("id") ? e.at("id") : nlohmann::json());
      if (id == 0) continue;
      const double ts = r.instant(e, k);
      if (ph == "s") flow_starts.emplace(id, ts);
      else flow_ends.emplace(place_key(e, ts), id);
      continue;
    }
    if (ph != "X") continue;
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
      marks.push_back({number, ts, dur});
    } else if (cat == "user_annotation" && engine_hook_range(name)) {
      hooks.push_back(r.times(e, k));
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      // cudaLaunchKernel, cudaMemcpyAsync, ... and on ROCm hipLaunchKernel,
      // hipExtModuleLaunchKernel, hipMemcpyWithStream (same categories).
      if (const long long c = correlation_arg(args); c > 0) launches[c] = r.times(e, k).first;
    } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      const auto [ts, dur] = r.times(e, k);
      GpuEvent g{ts, ts + dur, std::nullopt, {}, {}, 0, 0};
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
      const long long c = correlation_arg(args);
      gpu_correlation.push_back(c);
      gpu_key.push_back(c > 0 ? std::string() : place_key(e, ts));
      gpu.push_back(std::move(g));
    }
  }
  if (marks.empty()) {
    throw InputError(file, "/traceEvents", "ProfilerStep#N annotations (profile with torch.profiler.schedule and call prof.step() every iteration)", "none");
  }
  std::sort(marks.begin(), marks.end(), [](const StepMark& a, const StepMark& b) { return a.start < b.start; });
  // Each GPU event's launch: the runtime call of its correlation id, else the start of the ac2g
  // flow of that id, else (no correlation arg) the flow ending where the event starts.
  std::size_t linked = 0;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    long long c = gpu_correlation[i];
    if (c == 0 && !gpu_key[i].empty()) {
      const auto f = flow_ends.find(gpu_key[i]);
      if (f != flow_ends.end()) c = f->second;
    }
    if (c == 0) continue;
    if (const auto it = launches.find(c); it != launches.end()) gpu[i].launch = it->second;
    else if (const auto fs = flow_starts.find(c); fs != flow_starts.end()) gpu[i].launch = fs->second;
    linked += gpu[i].launch.has_value();
  }
  const StepWindows w = step_windows(marks, gpu, linked > 0, file);
  rank.host_windows = linked == 0;
  if (gpu.empty()) {
    throw InputError(file, "/traceEvents", "GPU work (kernel, gpu_memcpy or gpu_memset events) in the ProfilerSteps",
                     fmt::format("none: {} ProfilerStep annotations and no GPU event (a CPU-only trace, or one profiled without "
                                 "ProfilerActivity.CUDA)", marks.size()));
  }
  if (linked == 0) {
    rank.notes.push_back(fmt::format("no GPU event is linked to its launch (no correlation ids, no ac2g flows): the steps are cut on "
                                     "the host's ProfilerStep annotations, which misplaces kernels when the host runs ahead of the GPU"));
  } else if (w.unlinked > 0) {
    rank.notes.push_back(fmt::format("{} of {} GPU events have no launch record: placed by their own start on the GPU's clock", w.unlinked, gpu.size()));
  }
  if (w.outside > 0) {
    rank.notes.push_back(fmt::format("{} of {} GPU events were launched outside every ProfilerStep (before the first or between steps): "
                                     "counted in no step's classes", w.outside, gpu.size()));
  }
  // The network is busy while any NCCL kernel runs, whichever step launched it (the GPU's own
  // timeline): the union of their intervals.
  std::vector<std::pair<double, double>> nccl;
  std::size_t kernels = 0;
  std::map<std::string, std::size_t> class_counts;
  for (const GpuEvent& g : gpu) {
    if (g.cls == "nccl") nccl.emplace_back(g.start, g.end);
    if (g.cls.rfind("memcpy", 0) != 0 && g.cls != "memset") ++kernels, ++class_counts[g.cls];
  }
  std::sort(nccl.begin(), nccl.end());
  std::vector<std::pair<double, double>> busy_union;
  for (const auto& [b, e] : nccl) {
    if (!busy_union.empty() && b <= busy_union.back().second) busy_union.back().second = std::max(busy_union.back().second, e);
    else busy_union.emplace_back(b, e);
  }
  std::vector<std::string> empty_steps;
  bool any_nccl = false;
  for (std::size_t s = 0; s < marks.size(); ++s) {
    if (o.steps && (marks[s].number < o.steps->first || marks[s].number > o.steps->second)) continue;
    if (w.of[s].empty()) {
      empty_steps.push_back(fmt::format("#{}", marks[s].number));
      continue;
    }
    ProfiledStep st;
    st.step = marks[s].number;
    const double g0 = w.window[s].first, t_end = w.window[s].second - w.window[s].first;
    st.iteration_time_s = t_end;
    st.gpu_start_s = g0;
    // The engine's hooks that started in the step's own host annotation.
    for (const auto& [start, length] : hooks) {
      if (start >= marks[s].start && start < marks[s].start + marks[s].length) {
        ++st.hook_calls;
        st.hook_host_s += length;
      }
    }
    for (const GpuEvent* g : w.of[s]) {
      ClassTime& c = st.classes[g->cls];
      ++c.count;
      c.seconds += g->end - g->start;
      if (g->cls == "nccl") {
        const int machines = o.gpus_per_machine && g->group > 0 ? (g->group + *o.gpus_per_machine - 1) / *o.gpus_per_machine : 0;
        st.collectives.push_back({g->collective, g->end - g->start, g->bytes, g->group, machines});
      } else if (g->cls.rfind("memcpy", 0) == 0) {
        st.copies.push_back({g->cls.substr(7), g->bytes, g->end - g->start});
      }
    }
    // Idle spans: the gaps of [0, T) (from g0) between the busy intervals that overlap it.
    double cursor = 0;
    auto it = std::upper_bound(busy_union.begin(), busy_union.end(), g0, [](double t, const std::pair<double, double>& b) { return t < b.second; });
    for (; it != busy_union.end() && it->first - g0 < t_end; ++it) {
      const double b = std::max(0.0, it->first - g0), e = std::min(t_end, it->second - g0);
      if (e <= b) continue;
      any_nccl = true;
      if (b > cursor && b - cursor >= o.min_span_s) st.idle_spans.emplace_back(cursor, b - cursor);
      st.network_busy_s += e - std::max(cursor, b);
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
  if (rank.steps.empty()) {
    throw InputError(file, "/traceEvents",
                     o.steps ? fmt::format("GPU work launched in ProfilerStep#{}..#{}", o.steps->first, o.steps->second)
                             : std::string("GPU work launched in a ProfilerStep"),
                     fmt::format("none in {} step(s), while the trace holds {} GPU events (launched outside the steps, or the steps "
                                 "chosen hold none)",
                                 o.steps ? empty_steps.size() : marks.size(), gpu.size()));
  }
  if (!empty_steps.empty()) {
    std::string list;
    for (const std::string& e : empty_steps) list += (list.empty() ? "" : ", ") + e;
    rank.notes.push_back(fmt::format("ProfilerStep {} launched no GPU work and left out (a step after the profiler's last active one?)", list));
  }
  if (!rank.host_windows && w.last_without_successor && *w.last_without_successor == rank.steps.back().step) {
    rank.notes.push_back(fmt::format("ProfilerStep#{}, the last with GPU work, ends at its last GPU event (the next step's first kernel is "
                                     "not in the trace): its iteration time and last idle span may be short by the gap between steps",
                                     rank.steps.back().step));
  }
  if (!any_nccl) {
    std::string classes;
    for (const auto& [cls, n] : class_counts) classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", cls, n);
    throw InputError(file, "/traceEvents",
                     "NCCL kernels (or RCCL's, AMD's NCCL: names containing nccl, rccl or msccl) in the ProfilerSteps: the gaps "
                     "between these collectives are the network's idle spans",
                     kernels == 0 ? std::string("no kernel at all, only memory copies and sets")
                                  : fmt::format("{} kernels and no collective among them ({}): a job without collectives (one GPU) has "
                                                "no network idle spans to measure",
                                                kernels, classes));
  }
  return rank;
}

namespace {

using Spans = std::vector<std::pair<double, double>>;

double overlap(const std::pair<double, double>& a, const std::pair<double, double>& b) {
  return std::max(0.0, std::min(a.first + a.second, b.first + b.second) - std::max(a.first, b.first));
}

// The order-preserving matching of `ref`'s spans to `other`'s with the largest total overlap
// (times from each step's start), by dynamic programming over (ref prefix, other prefix):
// match[a] is the index in `other` of ref span a, or -1. Only overlapping spans match.
std::vector<long> match_spans(const Spans& ref, const Spans& other) {
  const std::size_t m = ref.size(), n = other.size();
  std::vector<double> dp((m + 1) * (n + 1), 0.0);
  const auto at = [&](std::size_t a, std::size_t b) -> double& { return dp[a * (n + 1) + b]; };
  for (std::size_t a = 1; a <= m; ++a) {
    for (std::size_t b = 1; b <= n; ++b) {
      const double o = overlap(ref[a - 1], other[b - 1]);
      at(a, b) = std::max({at(a - 1, b), at(a, b - 1), o > 0 ? at(a - 1, b - 1) + o : 0.0});
    }
  }
  std::vector<long> match(m, -1);
  for (std::size_t a = m, b = n; a > 0 && b > 0;) {
    const double o = overlap(ref[a - 1], other[b - 1]);
    if (o > 0 && at(a, b) == at(a - 1, b - 1) + o) {
      match[a - 1] = static_cast<long>(b - 1);
      --a, --b;
    } else if (at(a, b) == at(a - 1, b)) {
      --a;
    } else {
      --b;
    }
  }
  return match;
}

// Above this many span pairs per step the matching is not tried (its table would pass ~400 MB).
constexpr double kMaxMatchedPairs = 5e7;

}  // namespace

nlohmann::json idle_span_profile(const std::vector<ProfiledRank>& ranks, const std::string& source, std::vector<std::string>* notes) {
  struct Iteration {
    int rank, step;
    double time;
    const Spans* spans;
  };
  std::vector<Iteration> its;
  std::string counts;
  for (const ProfiledRank& r : ranks) {
    for (const ProfiledStep& s : r.steps) {
      its.push_back({r.rank, s.step, s.iteration_time_s, &s.idle_spans});
      counts += fmt::format("{}rank {} step {}: {}", counts.empty() ? "" : ", ", r.rank, s.step, s.idle_spans.size());
    }
  }
  const bool same = std::all_of(its.begin(), its.end(), [&](const Iteration& i) { return i.spans->size() == its.front().spans->size(); });
  // Span k must be the same gap in every iteration (docs/profile-format.md). With unequal counts
  // the spans are matched to those of the step with the fewest, by overlap on the steps' own
  // clocks; a span of that step kept only if every other step has one overlapping it.
  std::vector<std::vector<long>> match(its.size());
  std::size_t ref = 0;
  std::vector<bool> keep;
  if (!same) {
    for (std::size_t i = 0; i < its.size(); ++i) {
      if (its[i].spans->size() < its[ref].spans->size()) ref = i;
    }
    const Spans& rs = *its[ref].spans;
    keep.assign(rs.size(), true);
    for (std::size_t i = 0; i < its.size(); ++i) {
      if (static_cast<double>(rs.size()) * static_cast<double>(its[i].spans->size()) > kMaxMatchedPairs) {
        throw InputError(ranks.front().file, "", fmt::format("the same number of idle spans in every step, or few enough to match ({:.0g} span pairs a step at most); drop short gaps (--min-span) or choose steps (--steps A:B)", kMaxMatchedPairs), counts);
      }
      match[i] = match_spans(rs, *its[i].spans);
      for (std::size_t a = 0; a < rs.size(); ++a) keep[a] = keep[a] && match[i][a] >= 0;
    }
    const auto kept = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true));
    if (kept == 0) {
      throw InputError(ranks.front().file, "", "idle spans that overlap from step to step (span k is the same gap each iteration, docs/profile-format.md); "
                       "choose steps (--steps A:B), one rank (--rank R) or drop short gaps (--min-span)",
                       fmt::format("no span of rank {} step {} overlaps one in every other step ({})", its[ref].rank, its[ref].step, counts));
    }
    if (notes) {
      std::string dropped;
      std::size_t listed = 0, with_drops = 0;
      for (std::size_t i = 0; i < its.size(); ++i) {
        std::vector<bool> used(its[i].spans->size(), false);
        for (std::size_t a = 0; a < rs.size(); ++a) {
          if (keep[a]) used[static_cast<std::size_t>(match[i][a])] = true;
        }
        std::size_t n = 0;
        double length = 0;
        for (std::size_t b = 0; b < used.size(); ++b) {
          if (!used[b]) ++n, length += (*its[i].spans)[b].second;
        }
        if (n == 0) continue;
        ++with_drops;
        if (listed++ < 8) dropped += fmt::format("; rank {} step {}: {} of {} ({:.3f} ms)", its[i].rank, its[i].step, n, used.size(), 1e3 * length);
      }
      notes->push_back(fmt::format("the steps have different numbers of idle spans ({}): matched to the {} spans of rank {} step {} (the "
                                   "fewest) by the largest total overlap, {} kept in every step; dropped{}{}",
                                   counts, rs.size(), its[ref].rank, its[ref].step, kept, dropped.empty() ? ": none" : ": " + dropped.substr(2),
                                   with_drops > 8 ? fmt::format("; and {} more steps", with_drops - 8) : std::string()));
    }
  }
  auto iterations = nlohmann::json::array();
  for (std::size_t i = 0; i < its.size(); ++i) {
    auto spans = nlohmann::json::array();
    if (same) {
      for (const auto& [start, length] : *its[i].spans) spans.push_back({start, length});
    } else {
      for (std::size_t a = 0; a < keep.size(); ++a) {
        if (!keep[a]) continue;
        const auto& [start, length] = (*its[i].spans)[static_cast<std::size_t>(match[i][a])];
        spans.push_back({start, length});
      }
    }
    iterations.push_back({{"iteration_time", its[i].time}, {"spans", std::move(spans)}});
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
