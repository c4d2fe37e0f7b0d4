// The parameter table (scenario/parameters.hpp) and the listing `ckptsim list` prints.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include "ckptsim/scenario/parameters.hpp"

using namespace ckptsim;

namespace {
const ParameterDoc& doc_of(const std::vector<ParameterDoc>& docs, const std::string& pointer) {
  auto it = std::find_if(docs.begin(), docs.end(), [&](const ParameterDoc& d) { return d.pointer == pointer; });
  REQUIRE(it != docs.end());
  return *it;
}
}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("parameters: one entry per field, pointers unique, all described") {
  const auto docs = scenario_parameters();
  CHECK(docs.size() == scenario_fields().size());
  std::set<std::string> pointers;
  for (const auto& d : docs) {
    CAPTURE(d.pointer);
    CHECK(pointers.insert(d.pointer).second);
    CHECK_FALSE(d.description.empty());
    CHECK_FALSE(d.unit.empty());
    CHECK_FALSE(d.default_text.empty());
  }
}

TEST_CASE("parameters: the paper's strategy defaults are listed") {
  const auto docs = scenario_parameters();
  CHECK(doc_of(docs, "/strategy/replicas").default_text == "2");
  CHECK(doc_of(docs, "/strategy/placement").default_text == "group");
  CHECK(doc_of(docs, "/strategy/persistent_interval").default_text == "3h");
  CHECK(doc_of(docs, "/strategy/gpu_buffer").default_text == "128MiB");
  CHECK(doc_of(docs, "/strategy/sub_buffers").default_text == "4");
  CHECK(doc_of(docs, "/strategy/span_safety").default_text == "0.8");
  CHECK(doc_of(docs, "/strategy/kind").default_text == "required");
  CHECK(doc_of(docs, "/cluster/cpu_memory").default_text.find("instance") != std::string::npos);
  // Name-valued fields list their names.
  CHECK(doc_of(docs, "/strategy/kind").unit.find("in-memory-blocking") != std::string::npos);
  CHECK(doc_of(docs, "/strategy/placement").unit.find("mixed") != std::string::npos);
  CHECK(doc_of(docs, "/failures/process").unit.find("weibull") != std::string::npos);
}

TEST_SUITE_END();
