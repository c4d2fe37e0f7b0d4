// Megatron-LM's optimizer step as a pass list (workload/step_phases.hpp, megatron_step_phases)
// and its place in the megatron iteration (megatron_iteration.hpp), on cases worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "../common/megatron_documents.hpp"
#include "../common/scenario_documents.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/workload/megatron_iteration.hpp"
#include "ckptsim/workload/megatron_layout.hpp"
#include "ckptsim/workload/step_phases.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// 1 TB/s of HBM at its full rate, 2 us per kernel launch.
KernelTimer step_toy_timer() {
  ClusterSpec c;
  c.gpu_peak_flops = 100e12;
  c.gpu_memory_bandwidth = 1e12;
  c.kernels.sms = 100;
  c.kernels.gemm_efficiency = 1.0;
  c.kernels.memory_efficiency = 1.0;
  c.kernels.launch_overhead = SimTime::from_ns(2000);
  return KernelTimer::memory_only(c);
}

/// One optimizer of E = 41,943,040 elements (two multi_tensor_apply launches' worth, 2 x 65,536
/// x 320) in 10 tensors; bf16 parameters and gradients, the whole rank (Φ_r = E), clip 1.0.
constexpr double kE = 41'943'040;

MegatronStepShape step_toy_shape() {
  MegatronStepShape x;
  x.optimizers = {{kE, 10}};
  x.rank_parameters = kE;
  x.buffers = 1;
  x.word_bytes = 2;
  x.grad_bytes = 2;
  return x;
}

const StepPhase* find_phase(const std::vector<StepPhase>& phases, const std::string& name) { return test::find_named(phases, name); }

json step_megatron_document() { return test::small_megatron_document(); }

Scenario load_step_scenario(const json& doc) { return load_scenario_json(doc, "test.json", "."); }

const MegatronCollective* find_collective(const MegatronIteration& it, const std::string& name) {
  return test::find_named(it.collectives, name);
}

}  // namespace

TEST_CASE("megatron step: multi_tensor_apply launches are the larger of the chunk and tensor limits") {
  // 65,536 x 320 = 20,971,520 elements per launch.
  CHECK(multi_tensor_launches(20'971'520, 1, 4) == 1);
  CHECK(multi_tensor_launches(20'971'521, 1, 4) == 2);
  // Depth 1 takes 110 tensors a launch, depth 2 64, depth 4 36: 111 small tensors need 2, 3, 4.
  CHECK(multi_tensor_launches(111, 111, 1) == 2);
  CHECK(multi_tensor_launches(111, 111, 2) == 2);
  CHECK(multi_tensor_launches(111, 111, 4) == 4);
  CHECK(multi_tensor_launches(0, 10, 4) == 0);
}

TEST_CASE("megatron step: bf16, not distributed, pass by pass by hand") {
  const auto phases = megatron_step_phases(step_toy_timer(), step_toy_shape());
  // copy gradients: main_grad.float() per tensor, 10 kernels, (2 + 4) E = 251,658,240 B.
  const StepPhase* copy = find_phase(phases, "copy gradients to main (fp32)");
  REQUIRE(copy);
  CHECK(copy->kernels == 10);
  CHECK(copy->bytes == 6 * kE);
  // 251.65824 us at 1 TB/s + 10 x 2 us = 271.65824 us.
  CHECK(copy->duration.seconds() == doctest::Approx(271.65824e-6).epsilon(1e-9));
  // bf16 has no grad scaler: no unscale, no found-inf flag.
  CHECK_FALSE(find_phase(phases, "unscale and check inf/NaN"));
  CHECK_FALSE(find_phase(phases, "found inf to host"));
  // The norm: overflow buffer, zeros, 2 l2norm launches, cleanup, ** 2 = 6 kernels, 4 E bytes;
  // it is followed by the norm's all-reduce; .item() is one copy and one sync.
  const StepPhase* norm = find_phase(phases, "gradient norm (multi_tensor_l2norm)");
  REQUIRE(norm);
  CHECK(norm->kernels == 6);
  CHECK(norm->bytes == 4 * kE);
  CHECK(norm->sync == StepSync::grad_norm);
  const StepPhase* host = find_phase(phases, "gradient norm to host");
  REQUIRE(host);
  CHECK(host->kernels == 1);
  CHECK(host->syncs == 1);
  // Clip: overflow buffer + 2 multi_tensor_scale launches, 8 E in place.
  const StepPhase* clip = find_phase(phases, "clip (multi_tensor_scale)");
  REQUIRE(clip);
  CHECK(clip->kernels == 3);
  CHECK(clip->bytes == 8 * kE);
  // Adam: 28 E, 2 launches (E is two launches of chunks; 10 tensors < 36).
  const StepPhase* adam = find_phase(phases, "fused Adam");
  REQUIRE(adam);
  CHECK(adam->kernels == 2);
  CHECK(adam->bytes == 28 * kE);
  // bf16 copies main parameters back per tensor: 10 kernels, (4 + 2) E.
  const StepPhase* back = find_phase(phases, "copy main parameters to model (16-bit)");
  REQUIRE(back);
  CHECK(back->kernels == 10);
  CHECK(back->bytes == 6 * kE);
  // The gradient buffer zeroed: 1 kernel, 2 Φ_r.
  const StepPhase* zero = find_phase(phases, "zero the gradient buffer (next step)");
  REQUIRE(zero);
  CHECK(zero->bytes == 2 * kE);
  // Whole step: (6 + 4 + 8 + 28 + 6 + 2) E = 54 E = 2,264,924,160 B -> 2,264.92416 us; kernels
  // 10 + 6 + 1 + 3 + 2 + 10 + 1 = 33 and 1 sync -> 34 x 2 us = 68 us: 2,332.92416 us (Adam
  // alone, the model before: 30 E + 1 launch = 1,260.31 us).
  // (Each phase rounds up to the nanosecond: 7 ns at most over 2.3 ms.)
  CHECK(total_duration(phases).seconds() == doctest::Approx(2332.92416e-6).epsilon(5e-6));
}

TEST_CASE("megatron step: fp16 adds the unscale and found-inf path; the distributed optimizer copies per tensor") {
  MegatronStepShape x = step_toy_shape();
  x.fp16 = true;
  const auto phases = megatron_step_phases(step_toy_timer(), x);
  // Unscale: fill, inv_scale's 3 kernels and 2 foreach launches = 6 kernels, 8 E, then the
  // found-inf all-reduce; the flag to the host: 1 copy, 1 sync.
  const StepPhase* unscale = find_phase(phases, "unscale and check inf/NaN");
  REQUIRE(unscale);
  CHECK(unscale->kernels == 6);
  CHECK(unscale->bytes == 8 * kE);
  CHECK(unscale->sync == StepSync::found_inf);
  REQUIRE(find_phase(phases, "found inf to host"));
  // Float16Optimizer in fp16 copies back with multi_tensor_scale(1.0): fill + 2 launches.
  CHECK(find_phase(phases, "copy main parameters to model (16-bit)")->kernels == 3);
  // Whole step: 62 E = 2,600,468,480 B -> 2,600.46848 us; kernels 10 + 6 + 1 + 6 + 1 + 3 + 2 +
  // 3 + 1 = 33 and 2 syncs -> 70 us: 2,670.46848 us.
  CHECK(total_duration(phases).seconds() == doctest::Approx(2670.46848e-6).epsilon(5e-6));
  // The order: the found-inf all-reduce comes before the norm's.
  std::vector<StepSync> order;
  for (const StepPhase& p : phases)
    if (p.sync != StepSync::none) order.push_back(p.sync);
  CHECK(order == std::vector<StepSync>{StepSync::found_inf, StepSync::grad_norm});
  // The distributed optimizer copies each shard piece with copy_ in fp16 too.
  x.distributed = true;
  CHECK(find_phase(megatron_step_phases(step_toy_timer(), x), "copy main parameters to model (16-bit)")->kernels == 10);
}

TEST_CASE("megatron step: fp32 gradient buffers need no copy; no clipping drops the norm; fp32 training copies nothing") {
  MegatronStepShape x = step_toy_shape();
  x.grad_bytes = 4;  // grad_reduce_in_fp32: main_grad.float() is the tensor itself
  auto phases = megatron_step_phases(step_toy_timer(), x);
  CHECK(find_phase(phases, "copy gradients to main (fp32)")->bytes == 0);
  CHECK(find_phase(phases, "copy gradients to main (fp32)")->kernels == 0);
  CHECK(find_phase(phases, "zero the gradient buffer (next step)")->bytes == 4 * kE);
  x.clip_grad = 0;
  phases = megatron_step_phases(step_toy_timer(), x);
  CHECK_FALSE(find_phase(phases, "gradient norm (multi_tensor_l2norm)"));
  CHECK_FALSE(find_phase(phases, "clip (multi_tensor_scale)"));
  // FP32Optimizer: no main copies either way; Adam and the buffer only (28 E + 4 E).
  x = step_toy_shape();
  x.mixed_precision = false;
  x.word_bytes = x.grad_bytes = 4;
  x.clip_grad = 0;
  phases = megatron_step_phases(step_toy_timer(), x);
  CHECK_FALSE(find_phase(phases, "copy main parameters to model (16-bit)"));
  double bytes = 0;
  for (const StepPhase& p : phases) bytes += p.bytes;
  CHECK(bytes == 32 * kE);
}

TEST_CASE("megatron step: two optimizers (experts) launch per optimizer and norm once or twice") {
  MegatronStepShape x = step_toy_shape();
  x.optimizers = {{kE, 10}, {kE, 10}};
  // One norm over both (distributed optimizer: the same group): M(2E, 20, 1) = 4 launches + 4.
  x.norms = 1;
  CHECK(find_phase(megatron_step_phases(step_toy_timer(), x), "gradient norm (multi_tensor_l2norm)")->kernels == 8);
  // One per optimizer: 2 x (2 + 4) = 12 kernels, two flags to the host.
  x.norms = 2;
  const auto phases = megatron_step_phases(step_toy_timer(), x);
  CHECK(find_phase(phases, "gradient norm (multi_tensor_l2norm)")->kernels == 12);
  CHECK(find_phase(phases, "gradient norm to host")->syncs == 2);
  // Adam: 2 launches per optimizer.
  CHECK(find_phase(phases, "fused Adam")->kernels == 4);
}

TEST_CASE("megatron layout: the model-parallel groups' machines") {
  // t 2, c 1, d 4, p 2 on machines of 8: the group {0, 1, 8, 9} spans machines 0 and 1; the
  // expert group with e 2 is {0..3, 8..11}, the same two machines.
  MegatronLayout a(2, 1, 4, 2, 2, 1, 8, true);
  CHECK(a.model_group_size(false) == 4);
  CHECK(a.model_group_machines(false) == 2);
  CHECK(a.model_group_size(true) == 8);
  CHECK(a.model_group_machines(true) == 2);
  // t 2, d 2, p 2: {0, 1, 4, 5}, one machine.
  CHECK(MegatronLayout(2, 1, 2, 2, 1, 1, 8, false).model_group_machines(false) == 1);
  // t 8, d 1, p 4: one machine per stage, 4.
  CHECK(MegatronLayout(8, 1, 1, 4, 1, 1, 8, false).model_group_machines(false) == 4);
  // t 4, d 3, p 4 on 6 machines of 8: blocks {0-3}, {12-15}, {24-27}, {36-39}: machines 0, 1,
  // 3, 4 (machine 2 holds none of them).
  CHECK(MegatronLayout(4, 1, 3, 4, 1, 1, 8, false).model_group_machines(false) == 4);
}

TEST_CASE("megatron iteration: the step's phases, its all-reduces and where the iteration ends") {
  json doc = step_megatron_document();
  doc["training"]["megatron"]["pp"] = 1;  // one stage: t 2 x d 8 on 2 machines of 8
  doc["training"]["megatron"]["micro_batches"] = 1;
  const Scenario s = load_step_scenario(doc);
  const MegatronIteration it = simulate_megatron_iteration(s);
  REQUIRE(it.stages.size() == 1);
  const MegatronStage& st = it.stages.front();
  // Adam on the shard: 28 x Φ_r / (d·c), d = 8.
  const StepPhase* adam = find_phase(it.step_phases, "fused Adam");
  REQUIRE(adam);
  CHECK(adam->bytes == doctest::Approx(28 * st.parameters / 8));
  // The norm's all-reduce runs over every rank (distributed optimizer): 16 ranks on 2 machines,
  // 8 each: the tree's 2 (7 alpha_NVLink + 1 alpha_network) beats the ring's 2 x 15 alpha_network.
  const MegatronCollective* norm = find_collective(it, "gradient-norm all-reduce (step)");
  REQUIRE(norm);
  CHECK(norm->group == 16);
  const SimTime tree = 2 * (7 * s.cluster.nvlink_latency + s.cluster.network.latency);
  CHECK(tree < 30 * s.cluster.network.latency);
  CHECK(norm->time == tree);
  CHECK_FALSE(find_collective(it, "found-inf all-reduce (step)"));  // bf16
  // One stage: the step is its phases and the all-reduce, from the reduce's end.
  CHECK(st.step == total_duration(it.step_phases) + tree);
  CHECK(it.step_end == it.step_start + st.step);
  CHECK(it.iteration_time == it.step_end + it.param_gather_exposed);

  // fp16 adds the found-inf all-reduce and its phases; the step grows.
  doc["training"]["megatron"]["fp16"] = true;
  const MegatronIteration fp16 = simulate_megatron_iteration(load_step_scenario(doc));
  REQUIRE(find_collective(fp16, "found-inf all-reduce (step)"));
  CHECK(fp16.stages.front().step > st.step);
  // No clipping: no norm and no norm all-reduce.
  doc["training"]["megatron"]["fp16"] = false;
  doc["training"]["megatron"]["clip_grad"] = 0;
  const MegatronIteration unclipped = simulate_megatron_iteration(load_step_scenario(doc));
  CHECK_FALSE(find_collective(unclipped, "gradient-norm all-reduce (step)"));
  CHECK(unclipped.stages.front().step < st.step);
}

TEST_CASE("megatron iteration: stages meet at the step's all-reduces") {
  const MegatronIteration it = simulate_megatron_iteration(load_step_scenario(step_megatron_document()));
  REQUIRE(it.stages.size() == 2);
  // Each stage waits at the norm's all-reduce for the other: the step ends no earlier than any
  // stage's own reduce end plus its step, and the slowest stage's step is the one listed.
  for (const MegatronStage& st : it.stages) {
    CHECK(it.step_end >= st.schedule_end + st.grad_reduce_exposed + st.step);
    CHECK(st.step <= it.stages[static_cast<std::size_t>(it.step_stage)].step);
  }
  CHECK(it.iteration_time == it.step_end + it.param_gather_exposed);
}

TEST_CASE("megatron step: bad inputs are refused with their pointers") {
  json doc = step_megatron_document();
  doc["training"]["megatron"]["clip_grad"] = -1;
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/clip_grad"));
  doc = step_megatron_document();
  doc["training"]["megatron"]["fp16"] = true;
  doc["training"]["mixed_precision"] = false;
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/fp16"));
  doc = step_megatron_document();
  doc["training"]["megatron"]["fp16"] = "yes";
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/fp16"));
}
