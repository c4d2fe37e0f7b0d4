#pragma once
// Four small scenarios that between them exercise every engine, topology, placement and
// checkpoint layout whose fields the iteration model reads, for the tests that go over every row
// of the parameter table (tests/unit/sweep/cost_key_test.cpp and extreme_values_test.cpp,
// tests/unit/run/unread_fields_test.cpp). Small, so that a few thousand evaluations take seconds.
#include <nlohmann/json.hpp>

namespace ckptsim::test {

using nlohmann::json;

/// The four scenarios (small, so that a few thousand evaluations take seconds). Failure fields
/// are explicit so that every failure row has a value to change.
inline json cost_key_common(json doc) {
  doc["storage"] = {{"bandwidth", "20Gbps"}};
  doc["failures"] = {{"process", "exponential"},  {"rate", "1.5%/machine/day"}, {"hardware_fraction", 0.5},
                     {"detection", "15s"},        {"restart", "253s"},          {"replacement", {{"distribution", "fixed"}, {"value", "5min"}}}};
  doc["run"] = {{"duration", "1d"}, {"replicas", 2}, {"seed", 1}};
  return doc;
}

/// DeepSpeed ZeRO-3 on a fat-tree of 2 pods (one machine per leaf, 2 leaves per pod), GEMINI,
/// a standby machine (live migration needs a free one), restart tiers with a new job's overhead
/// written (the FSDP base takes it from the restart phases).
inline json cost_key_deepspeed_fat_tree() {
  json doc = cost_key_common(json::parse(R"({
    "cluster": {"instance": "p4d.24xlarge", "machines": 4, "standby_machines": 1,
                "network": {"topology": "fat-tree", "machines_per_leaf": 1, "leaves_per_pod": 2,
                            "oversubscription": 2, "pod_oversubscription": 2}},
    "model": {"layers": 2, "hidden": 512, "ffn": 2048, "heads": 8, "vocabulary": 4096},
    "training": {"parallelism": "zero3", "engine": "deepspeed-zero3", "micro_batch": 2, "sequence_length": 256,
                 "serialization_bandwidth": "1GB/s", "hook_host_time": "1ms"},
    "strategy": {"kind": "gemini", "replicas": 2, "placement": "group"}})"));
  doc["failures"]["restart_tiers"] = {{"enabled", true}, {"new_job", {{"overhead", "30s"}}}};
  return doc;
}

/// PyTorch FSDP on a leaf-spine of 2 leaves, an erasure code over groups of 2, restart tiers on.
inline json cost_key_fsdp_leaf_spine() {
  json doc = cost_key_common(json::parse(R"({
    "cluster": {"instance": "p4d.24xlarge", "machines": 4,
                "network": {"topology": "leaf-spine", "machines_per_leaf": 2, "oversubscription": 2}},
    "model": {"layers": 2, "hidden": 512, "ffn": 2048, "heads": 8, "vocabulary": 4096},
    "training": {"parallelism": "zero3", "engine": "fsdp", "micro_batch": 2, "sequence_length": 256,
                 "serialization_bandwidth": "1GB/s", "hook_host_time": "1ms"},
    "strategy": {"kind": "erasure-coded", "group_size": 2, "parity": 1}})"));
  doc["failures"]["restart_tiers"] = {{"enabled", true}};
  return doc;
}

/// Megatron: tensor 2, pipeline 2 with 2 virtual stages, experts 4 over ep 2 with a capacity
/// factor (so that padding to capacity can change alone), grouped-query attention, a gated FFN
/// and untied embeddings.
inline json cost_key_megatron() {
  return cost_key_common(json::parse(R"({
    "cluster": {"instance": "dgx-h100", "machines": 2},
    "model": {"layers": 8, "hidden": 512, "ffn": 1536, "heads": 8, "kv_heads": 4, "gated_ffn": true,
              "tied_embeddings": false, "vocabulary": 4096, "experts": 4, "experts_per_token": 2},
    "training": {"parallelism": "megatron", "micro_batch": 1, "sequence_length": 512,
                 "serialization_bandwidth": "1GB/s",
                 "megatron": {"tp": 2, "pp": 2, "ep": 2, "virtual_stages": 2, "micro_batches": 8,
                              "sequence_parallel": true, "distributed_optimizer": true,
                              "moe_capacity_factor": 2.0}},
    "strategy": {"kind": "gemini", "replicas": 2, "placement": "group"}})"));
}

/// A random placement (the only one that reads the seed) on one switch, a run of a number of
/// iterations, the restart from its phases.
inline json cost_key_random_placement() {
  json doc = cost_key_common(json::parse(R"({
    "cluster": {"instance": "p4d.24xlarge", "machines": 4},
    "model": {"layers": 2, "hidden": 512, "ffn": 2048, "heads": 8, "vocabulary": 4096},
    "training": {"parallelism": "zero3", "micro_batch": 2, "sequence_length": 256, "serialization_bandwidth": "1GB/s"},
    "strategy": {"kind": "gemini", "replicas": 2, "placement": "random"}})"));
  doc["run"] = {{"iterations", 1000}, {"replicas", 2}, {"seed", 1}};
  doc["failures"].erase("restart");  // its restart is the restart phases' sum (their rows are read)
  return doc;
}

}  // namespace ckptsim::test
