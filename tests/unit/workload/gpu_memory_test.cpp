// GPU memory per engine (workload/gpu_memory.hpp, the engines' terms): terms by hand, the phase
// peak, and GEMINI's testbeds (GPT-2 100B on 16 p4d, 40B and 100B on 16 p3dn, SOSP '23 §6-7:
// "100B is the largest that fits on 16 p4d, 40B on 16 p3dn").
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/workload/iteration_model.hpp"
#include "paper_scenario.hpp"

using namespace ckptsim;

namespace {

const GpuMemoryTerm& term(const GpuMemory& m, const std::string& name) {
  for (const GpuMemoryTerm& t : m.terms) {
    if (t.name == name) return t;
  }
  FAIL("no memory term " << name);
  return m.terms.front();
}

// One of the paper scenarios (presets applied by the loader), with another model preset.
Scenario testbed(const std::string& file, const std::string& model) {
  const std::string path = std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper/" + file;
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["model"] = {{"preset", model}};
  return load_scenario_json(doc, path, std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper");
}

}  // namespace

TEST_CASE("DeepSpeed's memory terms of GPT-2 100B on 128 A100-40GB, by hand") {
  const IterationModel model = simulate_iteration(testing::paper_scenario(16));
  const GpuMemory& m = model.memory;
  const double p = model.workload.shape.parameters();
  constexpr auto B = MemoryPhase::backward;
  constexpr auto L = MemoryPhase::loss;
  CHECK(term(m, "model states (16 B x P / n)").bytes_in(L) == doctest::Approx(16.0 * p / 128));  // 12.5 GB
  CHECK(term(m, "gradient bucket").bytes_in(L) == 1e9);                                           // 5e8 x 2 B
  CHECK(term(m, "CUDA context").bytes_in(L) == 781e6);
  // Two communicators (the default group and the data-parallel group) x 8 channels x 2 ring
  // neighbours x 4 MiB.
  CHECK(term(m, "NCCL buffers").bytes_in(L) == 2 * 8 * 2 * 4.0 * 1024 * 1024);
  // The tied embedding's gradient V·h + 2h = 411,787,264 elements x 2 B, held through backward;
  // the largest layer module, FC1: h·f + f + 2h = 268,484,608 elements x 2 B.
  CHECK(term(m, "tied embedding gradient (whole backward)").bytes_in(B) == doctest::Approx(2.0 * (50265 * 8192 + 2 * 8192)));
  CHECK(term(m, "largest layer-module gradient").bytes_in(B) == doctest::Approx(2.0 * (8192.0 * 32768 + 32768 + 2 * 8192)));
  CHECK(term(m, "reduce-scatter copy").bytes_in(B) == 1e9);
  // Step: sub_group_size 1e9 > P/n = 7.8e8, the whole partition flattened (2 B) and made fp32 (4 B).
  CHECK(term(m, "fp32 gradient (sub-group)").bytes_in(MemoryPhase::optimizer_step) == doctest::Approx(6.0 * p / 128));
  // Checkpoints: the 124 layer inputs and the last output, (L + 1)·b·s·h x 2 B.
  CHECK(term(m, "activation checkpoints").bytes_in(B) == doctest::Approx(125.0 * 8 * 512 * 8192 * 2));
  // Gathered parameters: the pool holds at least the largest module in use (the embedding,
  // 411,770,880 gathered elements) and at most what max_live_parameters lets the prefetcher
  // hold plus an on-demand module, each rounded up to 2 MiB, twice over for fragmentation.
  const double gathered = term(m, "gathered parameters (allocator, host order)").bytes_in(B);
  CHECK(gathered >= 2.0 * 50265 * 8192);
  CHECK(gathered <= 2 * 2.0 * (1e9 + 2 * 50265.0 * 8192));
}

TEST_CASE("phases: the step frees what backward holds; the peak is the largest phase, not the sum") {
  const GpuMemory m = simulate_iteration(testing::paper_scenario(16)).memory;
  CHECK(m.peak_phase() == MemoryPhase::backward);
  CHECK(m.used_in(MemoryPhase::optimizer_step) < m.used_in(MemoryPhase::backward));
  double sum = 0;
  for (const GpuMemoryTerm& t : m.terms) {
    for (MemoryPhase p : kMemoryPhases) sum += t.bytes_in(p);
  }
  CHECK(sum > m.used());
  CHECK(m.free() == doctest::Approx(m.capacity - m.used_in(MemoryPhase::backward)));
}

TEST_CASE("the optimizer step is the peak when one GPU steps a 1.06B-parameter model") {
  // One GPU, micro-batch 1, sequence 64, P = 1.06e9 (19 layers, h = 2048): the step flattens
  // and converts one sub-group of 1e9 elements, 6 B x 1e9 = 6e9 B, beside the 16 B x P model
  // states present in every phase; backward adds the gathered parameters (a few modules of
  // 2 x 8.4e6 B... 2 x 1.03e8 B for the embedding), the 1e9 B bucket copy and small activations:
  // the step is larger.
  Scenario s = testing::paper_scenario(1);
  s.cluster.gpus_per_machine = 1;
  s.cluster.gpu_memory_bytes = 80.0 * 1024 * 1024 * 1024;
  s.model.layers = 19;
  s.model.hidden = 2048;
  s.model.ffn = 8192;
  s.model.heads = 16;
  s.training.micro_batch = 1;
  s.training.sequence_length = 64;
  const GpuMemory m = simulate_iteration(s).memory;
  CHECK(term(m, "fp32 gradient (sub-group)").bytes_in(MemoryPhase::optimizer_step) == doctest::Approx(6e9));
  CHECK(m.peak_phase() == MemoryPhase::optimizer_step);
  // A smaller sub-group shrinks the step's copy to 1e6 elements x 6 B, and backward is the peak.
  s.training.zero3.sub_group_size = 1e6;
  const GpuMemory small = simulate_iteration(s).memory;
  CHECK(term(small, "fp32 gradient (sub-group)").bytes_in(MemoryPhase::optimizer_step) == doctest::Approx(6e6));
  CHECK(small.peak_phase() == MemoryPhase::backward);
}

TEST_CASE("FSDP's terms: fp32 sharded states and no DeepSpeed buckets") {
  Scenario s = testing::paper_scenario(16);
  s.training.engine = EngineKind::fsdp;
  const IterationModel model = simulate_iteration(s);
  const GpuMemory& m = model.memory;
  // fp32 flat parameter and gradient shards (4 + 4) and AdamW's moments (8): 16 B x P / n.
  CHECK(term(m, "model states (16 B x P / n)").bytes_in(MemoryPhase::loss) ==
        doctest::Approx(16.0 * model.workload.shape.parameters() / 128));
  for (const GpuMemoryTerm& t : m.terms) CHECK(t.name != "gradient bucket");
  // The unsharded flat parameters in flight hold at least one block, w x P_l = 2 x 805,412,864 B.
  CHECK(term(m, "unsharded parameters (allocator, host order)").bytes_in(MemoryPhase::backward) >= 2.0 * 805412864);
  // One communicator for FULL_SHARD.
  CHECK(term(m, "NCCL buffers").bytes_in(MemoryPhase::loss) == 8 * 2 * 4.0 * 1024 * 1024);
}

TEST_CASE("GEMINI's testbeds: GPT-2 100B fits on 16 p4d, 40B on 16 p3dn") {
  CHECK(simulate_iteration(testbed("gpt2-100b-16xp4d.json", "gpt2-100b")).memory.free() > 0);
  CHECK(simulate_iteration(testbed("gpt2-40b-16xp3dn.json", "gpt2-40b")).memory.free() > 0);
}

TEST_CASE("GEMINI's testbeds: GPT-2 100B on 16 p3dn needs more of the V100 than 40B, within its 32 GiB") {
  // GEMINI reports 40B as the largest of its models (10B, 20B, 40B, 100B) that fits on 16 p3dn.
  // Every term here comes from the engine's code and the allocator's rules, none from that
  // report; they place 100B at about 90% of the V100's memory, under it (docs/models.md, "GPU
  // memory": the published verdict is not reproduced, and what could account for it). The test
  // holds what the terms show: 100B's model states alone (16 B x 1.003e11 / 128 = 12.5 GB) are
  // 2.5 x 40B's, and the total stays above the 40B model's.
  const GpuMemory big = simulate_iteration(testbed("gpt2-40b-16xp3dn.json", "gpt2-100b")).memory;
  const GpuMemory small = simulate_iteration(testbed("gpt2-40b-16xp3dn.json", "gpt2-40b")).memory;
  CHECK(term(big, "model states (16 B x P / n)").bytes_in(MemoryPhase::loss) ==
        doctest::Approx(2.49 * term(small, "model states (16 B x P / n)").bytes_in(MemoryPhase::loss)).epsilon(0.01));
  CHECK(big.used() > small.used() + 8e9);
}

TEST_CASE("GPT-2 100B on 16 p3dn, term by term: the fixed terms by hand, the simulated ones bounded") {
  // P = 124 x (4h^2 + 2hf + 9h + f) + V·h + 2h = 100,282,982,400 (h 8192, f 32768, V 50265).
  // Backward's fixed terms: CUDA context 781,000,000; NCCL 2 x 8 x 2 x 4 MiB = 134,217,728;
  // model states 16·P/128 = 12,535,372,800; persistent (124 x 13h + 2h) x 2 B = 26,443,776;
  // bucket 1e9; tied embedding gradient 2 x (V·h + 2h) = 823,574,528; largest module (FC1)
  // 2 x (h·f + f + 2h) = 536,969,216; reduce-scatter copy 1e9; checkpoints
  // 125 x 8 x 512 x 8192 x 2 = 8,388,608,000. Sum 25,226,186,048 B (23.49 GiB).
  const GpuMemory m = simulate_iteration(testbed("gpt2-40b-16xp3dn.json", "gpt2-100b")).memory;
  constexpr auto B = MemoryPhase::backward;
  const char* const fixed_terms[] = {"CUDA context", "NCCL buffers", "model states (16 B x P / n)", "persistent parameters",
                                     "gradient bucket", "tied embedding gradient (whole backward)",
                                     "largest layer-module gradient", "reduce-scatter copy", "activation checkpoints"};
  double fixed = 0;
  for (const char* name : fixed_terms) fixed += term(m, name).bytes_in(B);
  CHECK(fixed == doctest::Approx(25226186048.0));
  // The simulated terms: the gathered parameters hold at least the embedding (411,770,880
  // elements x 2 B); the queued gradients at most four buckets' worth (the host waits for
  // flush k-3 before issuing flush k, so buckets k-2 .. k+1 can be pending), 4 x (1e9 + FC1's
  // 536,870,912 B weight gradient, which may overshoot a bucket).
  const double gathered = term(m, "gathered parameters (allocator, host order)").bytes_in(B);
  const double queued = term(m, "parameter gradients queued for the reduce stream (simulated peak)").bytes_in(B);
  const double activations = term(m, "activations besides checkpoints (simulated peak)").bytes_in(B);
  const double overhead = term(m, "allocator overhead (activations, simulated)").bytes_in(B);
  CHECK(gathered >= 2.0 * 411770880);
  CHECK(queued >= 0.0);
  CHECK(queued <= 4 * (1e9 + 536870912.0));
  CHECK(m.peak_phase() == B);
  CHECK(m.used() == doctest::Approx(fixed + gathered + queued + activations + overhead));
  // What the model says, against GEMINI's "40B is the largest that fits on 16 p3dn": 100B
  // fits, under the 32 GiB (docs/models.md, "GPU memory per engine": not reproduced).
  CHECK(m.capacity == 32.0 * 1024 * 1024 * 1024);
  CHECK(m.free() > 0);
}
