// Sweep points: index order, random draws reproducible by index, seeds, scenario editing.
#include <doctest/doctest.h>

#include <set>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/sweep/points.hpp"

using namespace ckptsim;
using namespace ckptsim::sweep;
using nlohmann::json;

namespace {

SweepSpec spec_of(const json& doc) { return load_sweep_spec_json(doc, "spec.json", "."); }

}  // namespace

TEST_CASE("sweep points: grid is row-major with the last axis fastest") {
  const auto spec = spec_of({{"base", {{"name", "b"}}},
                             {"axes", {{{"pointer", "/a"}, {"values", {1, 2}}}, {{"pointer", "/b"}, {"values", {10, 20, 30}}}}}});
  // index 4 = 1 * 3 + 1 -> a[1] = 2, b[1] = 20; index 2 -> a[0] = 1, b[2] = 30.
  CHECK(point_values(spec, 4) == std::vector<json>{2, 20});
  CHECK(point_values(spec, 2) == std::vector<json>{1, 30});
  CHECK(point_values(spec, 5) == std::vector<json>{2, 30});
}

TEST_CASE("sweep points: zip takes value i of every axis") {
  const auto spec = spec_of({{"base", {{"name", "b"}}}, {"mode", "zip"},
                             {"axes", {{{"pointer", "/a"}, {"values", {1, 2, 3}}}, {{"pointer", "/b"}, {"values", {"x", "y", "z"}}}}}});
  CHECK(point_values(spec, 1) == std::vector<json>{2, "y"});
}

TEST_CASE("sweep points: random draws stay in range and depend only on (seed, index)") {
  const json doc = {{"base", {{"name", "b"}}}, {"mode", "random"}, {"count", 200}, {"seed", 3},
                    {"axes", {{{"pointer", "/rate"}, {"distribution", {{"kind", "log-uniform"}, {"low", 0.5}, {"high", 8}}}},
                              {{"pointer", "/n"}, {"distribution", {{"low", 16}, {"high", 64}, {"integer", true}}}},
                              {{"pointer", "/kind"}, {"values", {"gemini", "none"}}}}}};
  const auto spec = spec_of(doc);
  std::set<std::string> kinds;
  std::set<double> rates;
  for (std::int64_t i = 0; i < 200; ++i) {
    const auto v = point_values(spec, i);
    CHECK(v[0].get<double>() >= 0.5);
    CHECK(v[0].get<double>() <= 8.0);
    CHECK(v[1].is_number_integer());
    CHECK(v[1].get<int>() >= 16);
    CHECK(v[1].get<int>() <= 64);
    kinds.insert(v[2].get<std::string>());
    rates.insert(v[0].get<double>());
    CHECK(point_values(spec, i) == v);  // the same index gives the same draws
  }
  // 200 draws from two choices miss one with probability 2^-199; continuous draws never repeat.
  CHECK(kinds.size() == 2);
  CHECK(rates.size() == 200);
  json other = doc;
  other["seed"] = 4;
  CHECK(point_values(spec_of(other), 0) != point_values(spec, 0));  // another sweep seed, other draws
}

TEST_CASE("sweep points: per-point seeds differ by index and sweep seed, and fit in 53 bits") {
  // The seed is the formula of points.hpp: stream_seed(7, 0, 0x5377656570) >> 11, with
  // stream_seed(s, r, c, i) = mix64(mix64(mix64(mix64(s) ^ r) ^ c) ^ i) and mix64 the SplitMix64
  // finaliser. Worked apart from the C++ (a 64-bit Python transcription of Steele, Lea and
  // Flood's SplitMix64, checked on its published first output from state 0,
  // mix64(0) = 0xe220a8397b1dcdaf): 8042275110211573 for (7, 0). A change of the mix, the
  // component or the shift changes it, and with it every sweep's point seeds.
  CHECK(mix64(0) == 0xe220a8397b1dcdafULL);
  CHECK(point_seed(7, 0) == 8042275110211573ULL);
  CHECK(point_seed(7, 0) != point_seed(7, 1));
  CHECK(point_seed(7, 0) != point_seed(8, 0));
  CHECK(point_seed(7, 12345) < (std::uint64_t{1} << 53));
}

TEST_CASE("sweep points: values are written at their pointers; objects replace subtrees") {
  const auto spec = spec_of({{"base", {{"name", "b"}, {"strategy", {{"kind", "gemini"}, {"replicas", 3}}}}},
                             {"axes", {{{"pointer", "/strategy"}, {"values", {{{"kind", "none"}}}}},
                                       {{"pointer", "/cluster/machines"}, {"values", {32}}}}}});
  const json doc = point_scenario(spec, point_values(spec, 0));
  CHECK(doc.at("strategy") == json{{"kind", "none"}});  // replicas: 3 is gone with the old subtree
  CHECK(doc.at("cluster").at("machines") == 32);        // the missing parent object is created
  CHECK(doc.at("name") == "b");
  // Arrays take an index up to their size (appending), never a jump that would pad with nulls;
  // a scalar cannot hold a key.
  const auto append = spec_of({{"base", {{"list", {1}}}}, {"axes", {{{"pointer", "/list/1"}, {"values", {2}}}}}});
  CHECK(point_scenario(append, point_values(append, 0)).at("list") == json{1, 2});
  const auto jump = spec_of({{"base", {{"list", {1}}}}, {"axes", {{{"pointer", "/list/5"}, {"values", {2}}}}}});
  CHECK_THROWS_AS(point_scenario(jump, point_values(jump, 0)), InputError);
  const auto scalar = spec_of({{"base", {{"name", "b"}}}, {"axes", {{{"pointer", "/name/x"}, {"values", {2}}}}}});
  CHECK_THROWS_AS(point_scenario(scalar, point_values(scalar, 0)), InputError);
}
