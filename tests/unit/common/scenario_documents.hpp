#pragma once
// Scenario JSON documents for the loader, schema and failure-mix tests: a valid minimal document
// to mutate, the problems the loader reports for a document, and a lookup by JSON pointer.
#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"

namespace ckptsim::test {

/// A valid minimal document: p4d testbed, GPT-2 100B, GEMINI, 1.5% of machines failing a day.
inline nlohmann::json minimal_scenario_document() {
  return nlohmann::json::parse(R"({
    "cluster": {"instance": "p4d.24xlarge", "machines": 16},
    "storage": {"bandwidth": "20Gbps"},
    "model": {"preset": "gpt2-100b"},
    "training": {"serialization_bandwidth": "930MB/s"},
    "strategy": {"kind": "gemini"},
    "failures": {"process": "exponential", "rate": "1.5%/machine/day"},
    "run": {"duration": "7d"}
  })");
}

/// A one-stage Megatron layout worked by hand in several tests: t = 8 inside each of 2 DGX A100,
/// p = 1, d = 2 across the machines, 4 micro-batches, distributed optimizer, no overlap of the
/// gradient reduce or the parameter gather; a 4-layer toy model, GEMINI with 2 replicas.
inline nlohmann::json megatron_single_stage_document(double checkpoint_bytes_per_parameter = 12) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"instance": "dgx-a100", "machines": 2},
    "storage": {"bandwidth": "20GB/s"},
    "model": {"layers": 4, "hidden": 1024, "ffn": 4096, "heads": 16, "vocabulary": 32000},
    "training": {"parallelism": "megatron", "micro_batch": 1, "sequence_length": 1024,
                 "serialization_bandwidth": "2GB/s",
                 "megatron": {"tp": 8, "pp": 1, "micro_batches": 4, "distributed_optimizer": true}},
    "strategy": {"kind": "gemini", "replicas": 2, "placement": "group"},
    "failures": {"process": "none"},
    "run": {"duration": "1d"}
  })");
  doc["training"]["checkpoint_bytes_per_parameter"] = checkpoint_bytes_per_parameter;
  return doc;
}

/// The loader's problems for `doc` (named test.json), none when it loads.
inline std::vector<Problem> scenario_problems(const nlohmann::json& doc) {
  try {
    load_scenario_json(doc, "test.json", ".");
  } catch (const InputError& e) {
    return e.problems();
  }
  return {};
}

inline bool has_problem_at(const std::vector<Problem>& problems, const std::string& pointer) {
  return std::any_of(problems.begin(), problems.end(), [&](const Problem& p) { return p.pointer == pointer; });
}

}  // namespace ckptsim::test
