// Scenario loader: walks the parameter table (parameters.hpp) over a JSON document, collecting
// every problem, then runs the cross-field checks (checks.cpp). See loader.hpp.
#include "ckptsim/scenario/loader.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "checks.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "ckptsim/scenario/units.hpp"
#include "field_format.hpp"

namespace ckptsim {
namespace {

using nlohmann::json;

constexpr std::string_view kNothing = "nothing";

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += '"' + n + '"';
  }
  return out;
}

/// RFC 6901: '~' -> "~0", '/' -> "~1".
std::string escape_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string parent_of(std::string_view pointer) {
  return std::string(pointer.substr(0, pointer.rfind('/')));
}

std::string check_text(Check c) {
  switch (c) {
    case Check::none: return "";
    case Check::positive: return "greater than zero";
    case Check::non_negative: return "zero or more";
    case Check::at_least_one: return "at least 1";
    case Check::unit_interval: return "in (0, 1]";
  }
  return "";
}

bool passes(Check c, double v) {
  switch (c) {
    case Check::none: return true;
    case Check::positive: return v > 0;
    case Check::non_negative: return v >= 0;
    case Check::at_least_one: return v >= 1;
    case Check::unit_interval: return v > 0 && v <= 1;
  }
  return true;
}

/// Reads one document into a Scenario, recording problems instead of stopping at the first.
class Reader {
 public:
  Reader(const json& doc, const std::string& label, std::string base_dir)
      : doc_(doc), label_(label), problems_(label), base_dir_(std::move(base_dir)) {}

  Scenario read() {
    if (!doc_.is_object()) {
      problems_.add("", "a JSON object (the scenario)", doc_.dump());
      problems_.throw_if_any();
    }
    check_objects();
    read_presets();
    for (const Field& f : scenario_fields()) {
      if (f.pointer == "/cluster/instance" || f.pointer == "/model/preset") continue;
      read_field(f);
    }
    finish();
    CheckContext ctx{problems_, bad_, [this](std::string_view p) { return found_text(p); }};
    cross_check(s_, ctx);
    problems_.throw_if_any();
    return s_;
  }

 private:
  /// The value at a table pointer (no escapes needed), nullptr when absent or under a non-object.
  [[nodiscard]] const json* find(std::string_view pointer) const {
    const json* node = &doc_;
    std::size_t pos = 1;
    while (pos <= pointer.size()) {
      const std::size_t next = std::min(pointer.find('/', pos), pointer.size());
      const std::string key(pointer.substr(pos, next - pos));
      if (!node->is_object()) return nullptr;
      auto it = node->find(key);
      if (it == node->end()) return nullptr;
      node = &*it;
      pos = next + 1;
    }
    return node;
  }

  /// What a cross-field problem shows as found: the value as written, or the value in effect
  /// and where it came from.
  std::string found_text(std::string_view pointer) {
    if (const json* v = find(pointer)) return v->dump();
    const Field* f = find_field(pointer);
    if (f == nullptr) return std::string(kNothing);
    const json value = format_field(*f, s_);
    if (value.is_null()) return std::string(kNothing);
    std::string text = value.dump();
    if (f->presence == Presence::from_instance && !s_.cluster.instance.empty())
      return text + " (from instance \"" + s_.cluster.instance + "\")";
    if (f->presence == Presence::from_model && !s_.model.preset.empty())
      return text + " (from model preset \"" + s_.model.preset + "\")";
    return text + " (default)";
  }

  /// True when an enclosing object already has a problem (e.g. is not an object).
  [[nodiscard]] bool under_bad(std::string_view pointer) const {
    for (std::string p = parent_of(pointer); !p.empty(); p = parent_of(p))
      if (bad_.count(p)) return true;
    return false;
  }

  void problem(std::string_view pointer, std::string expected, std::string found) {
    bad_.insert(std::string(pointer));
    problems_.add(std::string(pointer), std::move(expected), std::move(found));
  }

  /// Every object the table implies must be an object holding only the table's keys.
  void check_objects() {
    std::vector<std::string> objects{""};
    for (const Field& f : scenario_fields()) {
      for (std::string p = parent_of(f.pointer); !p.empty(); p = parent_of(p))
        if (std::find(objects.begin(), objects.end(), p) == objects.end()) objects.push_back(p);
    }
    std::sort(objects.begin(), objects.end());
    for (const std::string& obj : objects) {
      std::vector<std::string> allowed;
      for (const Field& f : scenario_fields()) {
        if (f.pointer.substr(0, obj.size() + 1) != obj + "/") continue;
        const std::string rest(f.pointer.substr(obj.size() + 1));
        const std::string key = rest.substr(0, rest.find('/'));
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) allowed.push_back(key);
      }
      const json* node = obj.empty() ? &doc_ : find(obj);
      if (node == nullptr) continue;
      if (!node->is_object()) {
        if (obj == "/failures/replacement" && (node->is_string() || node->is_number())) continue;
        const std::string extra = obj == "/failures/replacement" ? " (or a duration for a fixed time)" : "";
        problem(obj, "an object with keys " + quoted_list(allowed) + extra, node->dump());
        continue;
      }
      for (const auto& [key, value] : node->items()) {
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
        const std::string where = obj.empty() ? "the top level" : obj;
        problem(obj + "/" + escape_token(key), "one of the keys allowed in " + where + ": " + quoted_list(allowed),
                "unknown key \"" + key + "\"");
      }
    }
  }

  void read_presets() {
    if (const Field* f = find_field("/cluster/instance"); read_field(*f) && !s_.cluster.instance.empty()) {
      const InstancePreset* p = find_instance_preset(s_.cluster.instance);
      s_.cluster.gpus_per_machine = p->gpus_per_machine;
      s_.cluster.gpu_memory_bytes = p->gpu_memory_bytes;
      s_.cluster.cpu_memory_bytes = p->cpu_memory_bytes;
      s_.cluster.network_bandwidth = p->network_bandwidth;
      s_.cluster.gpu_cpu_bandwidth = p->gpu_cpu_bandwidth;
      s_.cluster.nvlink_bandwidth = p->nvlink_bandwidth;
      s_.cluster.gpu_peak_flops = p->gpu_peak_flops;
    }
    if (const Field* f = find_field("/model/preset"); read_field(*f) && !s_.model.preset.empty()) {
      const ModelPreset* p = find_model_preset(s_.model.preset);
      s_.model.layers = p->layers;
      s_.model.hidden = p->hidden;
      s_.model.ffn = p->ffn;
      s_.model.heads = p->heads;
      s_.model.vocabulary = p->vocabulary;
      s_.model.parameters = preset_parameters(*p);
    }
  }

  /// Reads one field; false when it is absent-and-required or invalid (problem recorded), or
  /// absent (nothing to do) -- true only when a value was read.
  bool read_field(const Field& f) {
    const json* v = find(f.pointer);
    if (v == nullptr) {
      if (!under_bad(f.pointer)) absent(f);
      return false;
    }
    return store(f, *v);
  }

  void absent(const Field& f) {
    const std::string expected = expectation(f);
    switch (f.presence) {
      case Presence::required: problem(f.pointer, expected, std::string(kNothing)); break;
      case Presence::from_instance:
        if (s_.cluster.instance.empty() && !bad_.count("/cluster/instance"))
          problem(f.pointer, expected + " (or a /cluster/instance preset: " + quoted_list(instance_preset_names()) + ")",
                  std::string(kNothing));
        break;
      case Presence::from_model:
        if (s_.model.preset.empty() && !bad_.count("/model/preset"))
          problem(f.pointer, expected + " (or a /model/preset: " + quoted_list(model_preset_names()) + ")",
                  std::string(kNothing));
        break;
      case Presence::when_process: missing_when_.push_back(&f); break;
      case Presence::defaulted:
      case Presence::computed:
      case Presence::optional:
      case Presence::alias: break;
    }
  }

  static std::string expectation(const Field& f) {
    if (f.unit == Unit::name) return "one of " + quoted_list(f.choices());
    std::string text = unit_expectation(f.unit);
    if (f.check != Check::none) text += ", " + check_text(f.check);
    return text;
  }

  /// Converts `v` by the field's unit and stores it; records a problem and returns false when
  /// the value does not fit.
  bool store(const Field& f, const json& v) {
    present_.insert(std::string(f.pointer));
    const std::string found = v.dump();
    const std::string expected = expectation(f);
    try {
      switch (f.unit) {
        case Unit::text:
        case Unit::name: {
          if (!v.is_string()) break;
          const auto text = v.get<std::string>();
          if (f.unit == Unit::name) {
            const auto names = f.choices();
            if (std::find(names.begin(), names.end(), text) == names.end()) break;
          }
          *std::get<std::string*>(f.bind(s_)) = text;
          return true;
        }
        case Unit::boolean:
          if (!v.is_boolean()) break;
          *std::get<bool*>(f.bind(s_)) = v.get<bool>();
          return true;
        case Unit::seed:
          if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) break;
          *std::get<std::uint64_t*>(f.bind(s_)) = v.get<std::uint64_t>();
          return true;
        case Unit::integer: {
          if (!v.is_number_integer()) break;
          if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) break;
          const auto n = v.get<std::int64_t>();
          if (!passes(f.check, static_cast<double>(n))) break;
          const FieldRef ref = f.bind(s_);
          if (auto* p = std::get_if<int*>(&ref)) {
            if (n > std::numeric_limits<int>::max()) break;
            **p = static_cast<int>(n);
          } else {
            *std::get<std::optional<std::int64_t>*>(ref) = n;
          }
          return true;
        }
        case Unit::number: {
          if (!v.is_number()) break;
          const auto x = v.get<double>();
          if (!passes(f.check, x)) break;
          *std::get<double*>(f.bind(s_)) = x;
          return true;
        }
        case Unit::fraction: {
          double x = 0;
          if (v.is_number()) {
            x = v.get<double>();
            if (x < 0 || x > 1) break;
          } else if (v.is_string()) {
            x = parse_fraction(v.get<std::string>());
          } else {
            break;
          }
          *std::get<double*>(f.bind(s_)) = x;
          return true;
        }
        case Unit::duration:
        case Unit::duration_or_never: {
          std::optional<SimTime> t;
          if (v.is_string() && f.unit == Unit::duration_or_never && v.get<std::string>() == "never") {
            t = std::nullopt;
          } else if (v.is_string()) {
            t = parse_duration(v.get<std::string>());
          } else if (v.is_number()) {
            const auto s = v.get<double>();
            if (!(s >= 0) || s > 9.2e9) break;
            t = SimTime::from_seconds(s);
          } else {
            break;
          }
          if (t && !passes(f.check, t->seconds())) break;
          const FieldRef ref = f.bind(s_);
          if (auto* p = std::get_if<SimTime*>(&ref)) {
            **p = *t;
          } else {
            *std::get<std::optional<SimTime>*>(ref) = t;
          }
          return true;
        }
        case Unit::bytes:
        case Unit::bandwidth:
        case Unit::failure_rate:
        case Unit::flop_rate: {
          double x = 0;
          if (v.is_number() && f.unit == Unit::bytes) {
            x = v.get<double>();
          } else if (v.is_string()) {
            const auto text = v.get<std::string>();
            if (f.unit == Unit::bytes) x = parse_bytes(text);
            if (f.unit == Unit::bandwidth) x = parse_bandwidth(text);
            if (f.unit == Unit::failure_rate) x = parse_failure_rate(text);
            if (f.unit == Unit::flop_rate) x = parse_flop_rate(text);
          } else {
            break;
          }
          if (!passes(f.check, x)) break;
          *std::get<double*>(f.bind(s_)) = x;
          return true;
        }
      }
      problem(f.pointer, expected, found);
    } catch (const UnitError& e) {
      std::string text = e.what();
      if (f.unit == Unit::duration_or_never) text += ", or \"never\"";
      if (f.check != Check::none && f.unit != Unit::bandwidth && f.unit != Unit::flop_rate)
        text += ", " + check_text(f.check);
      problem(f.pointer, text, found);
    }
    return false;
  }

  void finish() {
    // Name: the file name without its extension when not given.
    if (!present_.count("/name")) s_.name = std::filesystem::path(label_).stem().string();
    s_.source_file = label_;

    // Seed in one place only.
    if (present_.count("/seed") && present_.count("/run/seed"))
      problem("/seed", "the seed in one place: /run/seed or /seed, not both", find("/seed")->dump());

    // A bare duration for the replacement time means a fixed time.
    if (const json* r = find("/failures/replacement"); r != nullptr && (r->is_string() || r->is_number())) {
      Field fixed = *find_field("/failures/replacement/value");
      fixed.pointer = "/failures/replacement";
      if (store(fixed, *r)) s_.failures.replacement.distribution = "fixed";
    }

    // Parameters: explicit, else the preset's published count when the architecture is the
    // preset's, else counted from the architecture.
    if (!present_.count("/model/parameters")) {
      bool architecture_edited = false;
      for (auto p : {"/model/layers", "/model/hidden", "/model/ffn", "/model/heads", "/model/vocabulary"})
        architecture_edited = architecture_edited || present_.count(p) > 0;
      const ModelPreset* preset = find_model_preset(s_.model.preset);
      if (preset == nullptr || preset->published_parameters == std::nullopt || architecture_edited) {
        const ModelSpec& m = s_.model;
        if (m.layers > 0 && m.hidden > 0 && m.ffn > 0 && m.vocabulary > 0)
          s_.model.parameters = transformer_parameters(m.layers, m.hidden, m.ffn, m.vocabulary);
      }
    }

    // Fields required only under one failure process.
    for (const Field* f : missing_when_) {
      if (s_.failures.process == f->when && !bad_.count("/failures/process"))
        problem(f->pointer, expectation(*f) + " (required when /failures/process is \"" + std::string(f->when) + "\")",
                std::string(kNothing));
    }

    // Trace path: relative to the scenario's folder, stored absolute.
    if (!s_.failures.trace_file.empty()) {
      std::filesystem::path p(s_.failures.trace_file);
      if (p.is_relative()) p = std::filesystem::path(base_dir_) / p;
      s_.failures.trace_file = std::filesystem::absolute(p).lexically_normal().string();
    }
  }

  const json& doc_;
  std::string label_;
  ProblemList problems_;
  std::string base_dir_;
  Scenario s_;
  std::set<std::string> bad_;      ///< pointers with a recorded problem
  std::set<std::string> present_;  ///< pointers written in the document
  std::vector<const Field*> missing_when_;
};

/// Finds keys written twice in one object while the parser runs (nlohmann keeps the last).
class DuplicateKeys {
 public:
  void observe(nlohmann::json::parse_event_t event, const nlohmann::json& value) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start: {
        std::string path;
        if (!frames_.empty()) path = frames_.back().path + (frames_.back().is_array ? "/-" : "/" + frames_.back().key);
        frames_.push_back({path, event == E::array_start, {}, {}});
        break;
      }
      case E::object_end:
      case E::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case E::key:
        if (!frames_.empty() && value.is_string()) {
          Frame& f = frames_.back();
          f.key = escape_token(value.get<std::string>());
          if (!f.keys.insert(f.key).second) found_.push_back(f.path + "/" + f.key);
        }
        break;
      case E::value: break;
    }
  }
  [[nodiscard]] const std::vector<std::string>& found() const { return found_; }

 private:
  struct Frame {
    std::string path;  ///< pointer of this object or array
    bool is_array;
    std::string key;   ///< the latest key read (escaped)
    std::set<std::string> keys;
  };
  std::vector<Frame> frames_;
  std::vector<std::string> found_;
};

std::string strip_json_exception_prefix(std::string text) {
  // nlohmann messages start with "[json.exception.parse_error.101] ".
  if (!text.empty() && text.front() == '[') {
    const auto end = text.find("] ");
    if (end != std::string::npos) text.erase(0, end + 2);
  }
  return text;
}

}  // namespace

Scenario load_scenario_json(const nlohmann::json& doc, const std::string& file_label, const std::string& base_dir) {
  return Reader(doc, file_label, base_dir).read();
}

Scenario load_scenario_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, "", "an existing scenario file", "no such file");
  if (fs::is_directory(path, ec)) throw InputError(path, "", "a scenario file", "a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable scenario file", "a file that cannot be opened");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(path, "", "a JSON object (the scenario)", "an empty file");
  nlohmann::json doc;
  DuplicateKeys duplicates;
  try {
    doc = nlohmann::json::parse(text, [&duplicates](int, nlohmann::json::parse_event_t event, nlohmann::json& value) {
      duplicates.observe(event, value);
      return true;
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, "", "valid JSON", strip_json_exception_prefix(e.what()));
  }
  const fs::path parent = fs::path(path).parent_path();
  if (duplicates.found().empty())
    return load_scenario_json(doc, path, parent.empty() ? std::string(".") : parent.string());
  // A repeated key would silently keep only its last value: report it with the other problems.
  std::vector<Problem> problems;
  for (const std::string& pointer : duplicates.found())
    problems.push_back({path, pointer, "each key once per object", "the key written more than once"});
  try {
    load_scenario_json(doc, path, parent.empty() ? std::string(".") : parent.string());
  } catch (const InputError& e) {
    problems.insert(problems.end(), e.problems().begin(), e.problems().end());
  }
  throw InputError(std::move(problems));
}

}  // namespace ckptsim
