#pragma once
// Typed reads of JSON fields for the calibration layer's readers (plans, measured timelines,
// microbenchmarks, imported profiles): each names the file and the RFC 6901 pointer of whatever
// is missing or wrong (InputError: expected X, found Y).
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

/// The ranges every calibration input shares: ranks of a job, and seconds of any measured or
/// planned time (plans, measured timelines, microbenchmarks).
inline constexpr int kMaxRanks = 65'536;
inline constexpr double kMaxSeconds = 1e6;

// Reads typed fields, naming the file and RFC 6901 pointer of whatever is wrong.
class JsonReader {
 public:
  explicit JsonReader(std::string file) : file_(std::move(file)) {}

  const nlohmann::json& at(const nlohmann::json& parent, const std::string& pointer, const char* key, const char* expected) const {
    if (!parent.is_object() || !parent.contains(key)) throw InputError(file_, pointer + "/" + key, expected, "nothing");
    return parent.at(key);
  }
  double number(const nlohmann::json& parent, const std::string& pointer, const char* key, double lo = 0,
                double hi = 1e18) const {
    const auto& v = at(parent, pointer, key, "a number");
    const std::string where = pointer + "/" + key;
    if (!v.is_number()) throw InputError(file_, where, "a number", v.dump().substr(0, 60));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi) throw InputError(file_, where, fmt::format("a number in [{}, {}]", lo, hi), v.dump());
    return x;
  }
  int integer(const nlohmann::json& parent, const std::string& pointer, const char* key, int lo, int hi) const {
    const auto& v = at(parent, pointer, key, "an integer");
    const std::string where = pointer + "/" + key;
    if (!v.is_number_integer()) throw InputError(file_, where, "an integer", v.dump().substr(0, 60));
    // An unsigned value beyond long long would wrap to a negative one.
    if (v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi)) {
      throw InputError(file_, where, fmt::format("an integer in [{}, {}]", lo, hi), v.dump());
    }
    const auto x = v.get<long long>();
    if (x < lo || x > hi) throw InputError(file_, where, fmt::format("an integer in [{}, {}]", lo, hi), v.dump());
    return static_cast<int>(x);
  }
  std::string text(const nlohmann::json& parent, const std::string& pointer, const char* key) const {
    const auto& v = at(parent, pointer, key, "a string");
    if (!v.is_string()) throw InputError(file_, pointer + "/" + key, "a string", v.dump().substr(0, 60));
    return v.get<std::string>();
  }
  const nlohmann::json& array(const nlohmann::json& parent, const std::string& pointer, const char* key) const {
    const auto& v = at(parent, pointer, key, "an array");
    if (!v.is_array()) throw InputError(file_, pointer + "/" + key, "an array", v.dump().substr(0, 60));
    return v;
  }
  const nlohmann::json& object(const nlohmann::json& parent, const std::string& pointer, const char* key) const {
    const auto& v = at(parent, pointer, key, "an object");
    if (!v.is_object()) throw InputError(file_, pointer + "/" + key, "an object", v.dump().substr(0, 60));
    return v;
  }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[noreturn]] void fail(const std::string& pointer, const std::string& expected, const std::string& found) const {
    throw InputError(file_, pointer, expected, found);
  }

 private:
  std::string file_;
};

}  // namespace ckptsim
