#pragma once
// Shared by the megatron model's tests (workload/megatron_*_test.cpp): a small GPT-style layout
// worked by hand in several of them, and a lookup of a named row (a collective, a step phase).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckptsim::test {

/// A small GPT-style model on 2 DGX A100 (16 GPUs): 4 layers, h 1024, f 4096, 16 heads,
/// vocabulary 32000; t = 2, p = 2, d = 4, 4 micro-batches of 1 x 1024 tokens, distributed
/// optimizer.
inline nlohmann::json small_megatron_document() {
  return nlohmann::json::parse(R"({
    "cluster": {"instance": "dgx-a100", "machines": 2},
    "storage": {"bandwidth": "20GB/s"},
    "model": {"layers": 4, "hidden": 1024, "ffn": 4096, "heads": 16, "vocabulary": 32000},
    "training": {"parallelism": "megatron", "micro_batch": 1, "sequence_length": 1024,
                 "serialization_bandwidth": "2GB/s",
                 "megatron": {"tp": 2, "pp": 2, "micro_batches": 4, "distributed_optimizer": true}},
    "strategy": {"kind": "remote-periodic"},
    "failures": {"process": "none"},
    "run": {"duration": "1d"}
  })");
}

/// The first row named `name` (a MegatronCollective, a StepPhase, ...), or nullptr.
template <typename Row>
const Row* find_named(const std::vector<Row>& rows, const std::string& name) {
  for (const Row& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace ckptsim::test
