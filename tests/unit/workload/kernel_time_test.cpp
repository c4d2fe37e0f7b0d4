// The kernel compute model (workload/kernels.hpp, kernel_time.hpp, step_phases.hpp) on small
// GPUs and shapes chosen so that every expected time can be worked out by hand in the comment
// above its check.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <utility>

#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/workload/deepspeed_zero3.hpp"
#include "ckptsim/workload/iteration_model.hpp"
#include "ckptsim/workload/kernel_time.hpp"
#include "ckptsim/workload/step_phases.hpp"
#include "paper_scenario.hpp"

using namespace ckptsim;

namespace {

/// 128 SMs sharing 128 TFLOPS (1 TFLOPS each), GEMMs at the full peak, 1 TB/s of HBM at its
/// full rate, the fused attention kernel at half the peak, no launch overhead unless a test sets
/// one, cuBLAS's 256 x 128 tiles.
ClusterSpec toy_gpu() {
  ClusterSpec c;
  c.gpu_peak_flops = 128e12;
  c.gpu_memory_bandwidth = 1e12;
  c.kernels.sms = 128;
  c.kernels.gemm_efficiency = 1.0;
  c.kernels.memory_efficiency = 1.0;
  c.kernels.flash_efficiency = 0.5;
  c.kernels.launch_overhead = SimTime::zero();
  return c;
}

/// b = 1 sequence of s = 1024 tokens, h = 1024, a = 8 heads (d = 128), f = 4096, V = 1000, 16-bit.
TransformerShape toy_shape(AttentionKind attention) {
  TransformerShape s;
  s.layers = 2;
  s.hidden = 1024;
  s.ffn = 4096;
  s.heads = 8;
  s.vocabulary = 1000;
  s.sequence = 1024;
  s.micro_batch = 1;
  s.attention = attention;
  return s;
}

double attention_seconds(const KernelTimer& timer, const TransformerShape& shape, ComputeUse use, Pass pass) {
  double t = 0;
  for (const Kernel& k : use_kernels(shape, use, pass))
    if (k.group == KernelClass::attention) t += timer.seconds(k);
  return t;
}

}  // namespace

TEST_SUITE_BEGIN("workload");

TEST_CASE("kernel model: a GEMM one tile more than a full wave takes two waves") {
  const KernelTimer timer = KernelTimer::from(toy_gpu(), AttentionKind::unfused);
  // One 256 x 128 tile over k = 1000: 2 x 256 x 128 x 1000 FLOPs on one SM's 1e12 FLOP/s =
  // 65.536 us. m = 128 x 256, n = 128: 128 tiles = one wave of 128 SMs -> 65.536 us.
  CHECK(timer.gemm_waves(128 * 256, 128) == 1);
  CHECK(timer.gemm_seconds(128 * 256, 128, 1000) == doctest::Approx(65.536e-6));
  // 129 tiles (m one tile longer): a second wave for the last tile -> 131.072 us.
  CHECK(timer.gemm_waves(129 * 256, 128) == 2);
  CHECK(timer.gemm_seconds(129 * 256, 128, 1000) == doctest::Approx(2 * 65.536e-6));
  // Tile quantization: m = 128 x 256 + 1 rows need a 129th row of tiles, which costs a full
  // tile and here a full wave too.
  CHECK(timer.gemm_waves(128 * 256 + 1, 128) == 2);
  // A batched GEMM counts every product's tiles: 64 products of one tile each = half a wave.
  CHECK(timer.gemm_waves(256, 128, 64) == 1);
  CHECK(timer.gemm_seconds(256, 128, 1000, 64) == doctest::Approx(65.536e-6));
}

TEST_CASE("kernel model: a GEMM at the measured efficiency, and a launch per kernel") {
  ClusterSpec c = toy_gpu();
  c.kernels.gemm_efficiency = 0.8;
  c.kernels.launch_overhead = microseconds(3);
  const KernelTimer timer = KernelTimer::from(c, AttentionKind::unfused);
  // Ten full waves (1,280 tiles) of k = 4096: 2 x 256 x 128 x 4096 = 268,435,456 FLOPs a tile on
  // 0.8 x 1e12 FLOP/s = 335.54432 us a wave -> 3.3554432 ms + 3 us. Full waves run at exactly
  // e_g x P: 2 m n k / (0.8 x 128e12).
  const double m = 1280 * 256, n = 128, k = 4096;
  CHECK(timer.gemm_seconds(m, n, k) == doctest::Approx(3.3554432e-3 + 3e-6));
  CHECK(timer.gemm_seconds(m, n, k) - 3e-6 == doctest::Approx(2 * m * n * k / (0.8 * 128e12)));
}

TEST_CASE("kernel model: a GEMM's inner depth k against the depth overhead K0, hand-worked") {
  ClusterSpec c = toy_gpu();
  c.kernels.gemm_depth_overhead = 400;
  c.kernels.gemm_reference_depth = 4000;
  const KernelTimer timer = KernelTimer::from(c, AttentionKind::unfused);
  // At the reference depth the GEMM runs at e_g exactly: d = 4000/4400 x 4400/4000 = 1; one
  // wave of k = 4000 takes 2 x 256 x 128 x 4000 / 1e12 = 262.144 us.
  CHECK(timer.gemm_depth_factor(4000) == doctest::Approx(1.0));
  CHECK(timer.gemm_seconds(128 * 256, 128, 4000) == doctest::Approx(262.144e-6));
  // k = 1600: d = 1600/2000 x 4400/4000 = 0.8 x 1.1 = 0.88; the wave takes
  // 2 x 256 x 128 x 1600 / (0.88 x 1e12) = 104.8576 us / 0.88 = 119.1564 us.
  CHECK(timer.gemm_depth_factor(1600) == doctest::Approx(0.88));
  CHECK(timer.gemm_seconds(128 * 256, 128, 1600) == doctest::Approx(104.8576e-6 / 0.88));
  // Tile and wave quantization stay on top: 129 tiles at k = 1600 take two waves.
  CHECK(timer.gemm_seconds(129 * 256, 128, 1600) == doctest::Approx(2 * 104.8576e-6 / 0.88));
  // Deeper than the reference: 40000/40400 x 1.1 = 1.089 is capped at 1 (e_g is its sweep's best).
  CHECK(timer.gemm_depth_factor(40000) == 1.0);
  // Shallower than the sweeps' shallowest depth, 768: held at d(768) = 768/1168 x 1.1 = 0.72329.
  CHECK(timer.gemm_depth_factor(768) == doctest::Approx(768.0 / 1168 * 1.1));
  CHECK(timer.gemm_depth_factor(128) == timer.gemm_depth_factor(768));
  // Without K0 every depth runs at e_g.
  CHECK(KernelTimer::from(toy_gpu(), AttentionKind::unfused).gemm_depth_factor(1600) == 1.0);
}

TEST_CASE("kernel model: A100's K0 reproduces the cuBLASLt sweep's 4096^3 against 16384^3") {
  // Azure AI benchmarking guide, ND A100 v4 (scripts/fit-gemm-depth): 4096^3 at 228.0 and
  // 16384^3 at 256.5 TFLOPS, ratio 0.8889. The model's ratio: both run at 0.869 x 312 x d(k)
  // times their quantization. 4096^3: 16 x 32 = 512 tiles in 5 waves of 108 = 0.9481 of the
  // waves useful; 16384^3: 8,192 tiles in 76 waves = 0.99795. d(4096) = 4096/4486 x 5510/5120
  // = 0.98262 and d(16384) = 1 (capped), so the ratio is 0.9481 x 0.98262 / 0.99795 = 0.93352
  // of the launch-free rates; the 3 us launch adds 0.55 % to 4096^3's 544 us (and nothing
  // visible to 16384^3's 35 ms): 0.93352 / 1.0055 = 0.9284. Against the measured 0.8889 the
  // model is within 5 %: the fit's own 4096^3 point sits on its curve (scripts/fit-gemm-depth),
  // and the cap at k_ref = 5120 holds 16384^3 at MAMF's level, which the sweep's fp16 plateau
  // does not reach.
  ClusterSpec c;
  apply_gpu_type(c, *find_gpu_type("a100-sxm4-80gb"));
  const KernelTimer timer = KernelTimer::from(c, AttentionKind::unfused);
  const auto tflops = [&](double n) { return 2 * n * n * n / timer.gemm_seconds(n, n, n) / 1e12; };
  CHECK(timer.gemm_depth_factor(4096) == doctest::Approx(4096.0 / 4486 * 5510 / 5120));
  CHECK(timer.gemm_depth_factor(16384) == 1.0);
  const double ratio = tflops(4096) / tflops(16384);
  CHECK(ratio == doctest::Approx(0.9284).epsilon(0.001));
  CHECK(std::abs(ratio / (228.0 / 256.5) - 1) < 0.05);
}

TEST_CASE("kernel model: a depth overhead without its reference depth is refused by name") {
  ClusterSpec c = toy_gpu();
  c.kernels.gemm_depth_overhead = 400;
  try {
    (void)KernelTimer::from(c, AttentionKind::unfused);
    FAIL("a depth overhead without a reference depth was accepted");
  } catch (const ModelError& e) {
    CHECK(std::string(e.what()).find("/cluster/gpu_gemm_reference_depth") != std::string::npos);
  }
}

TEST_CASE("kernel model: a memory-bound kernel takes bytes / achieved bandwidth + launch") {
  ClusterSpec c = toy_gpu();
  c.kernels.memory_efficiency = 0.8;
  c.kernels.launch_overhead = microseconds(3);
  const KernelTimer timer = KernelTimer::from(c, AttentionKind::unfused);
  // 4e9 B over 0.8 x 1e12 B/s = 5 ms, plus the 3 us launch.
  CHECK(timer.memory_seconds(4e9) == doctest::Approx(5e-3 + 3e-6));
  // A kernel that moves nothing still costs its launch.
  CHECK(timer.memory_seconds(0) == doctest::Approx(3e-6));
  Kernel layer_norm;
  layer_norm.bound = KernelBound::memory;
  layer_norm.bytes = 4e9;
  CHECK(timer.seconds(layer_norm) == timer.memory_seconds(4e9));
}

TEST_CASE("kernel model: fused against unfused attention at the hand-computed ratio") {
  // Toy GPU, b = 1, s = 1024, h = 1024, a = 8, d = 128, 16-bit, causal. S = b·a·s² = 8,388,608.
  // Unfused forward:
  //   scores Q K^T: 8 products of 1024 x 1024 (k = 128): 4 x 8 tiles each, 256 tiles = 2 waves
  //     of 2 x 256 x 128 x 128 / 1e12 = 8.388608 us -> 16.777216 us
  //   mask 2 S w = 33,554,432 B -> 33.554432 us; softmax the same; dropout 2 S w + S =
  //     41,943,040 B -> 41.94304 us
  //   context P V: 8 products of 1024 x 128 (k = 1024): 4 tiles each, 32 tiles = 1 wave of
  //     2 x 256 x 128 x 1024 / 1e12 = 67.108864 us
  //   transpose 2 T h w = 4,194,304 B -> 4.194304 us
  //   total 197.132288 us
  // Flash forward: 4 x 1/2 x 1 x 1024² x 1024 = 2.147483648e9 FLOPs at 0.5 x 128e12 ->
  //   33.554432 us. Ratio 197.132288 / 33.554432 = 5.875.
  const KernelTimer timer = KernelTimer::from(toy_gpu(), AttentionKind::flash);
  const double unfused = attention_seconds(timer, toy_shape(AttentionKind::unfused), ComputeUse::qkv, Pass::forward);
  const double flash = attention_seconds(timer, toy_shape(AttentionKind::flash), ComputeUse::qkv, Pass::forward);
  CHECK(unfused == doctest::Approx(197.132288e-6));
  CHECK(flash == doctest::Approx(33.554432e-6));
  CHECK(unfused / flash == doctest::Approx(5.875));
  // Backward, unfused: transpose 4.194304; dP (like the scores) 16.777216; dV, dQ, dK (like the
  //   context) 3 x 67.108864; dropout 41.94304; softmax 3 S w = 50.331648; mask 33.554432 ->
  //   348.127232 us. Flash: 2.5 x the forward FLOPs -> 83.88608 us. Ratio 4.15.
  const double unfused_b = attention_seconds(timer, toy_shape(AttentionKind::unfused), ComputeUse::out, Pass::backward);
  const double flash_b = attention_seconds(timer, toy_shape(AttentionKind::flash), ComputeUse::out, Pass::backward);
  CHECK(unfused_b == doctest::Approx(348.127232e-6));
  CHECK(flash_b == doctest::Approx(83.88608e-6));
  CHECK(unfused_b / flash_b == doctest::Approx(4.15));
  // An encoder (not causal): the fused kernel computes the whole score matrix, twice the time.
  TransformerShape encoder = toy_shape(AttentionKind::flash);
  encoder.causal = false;
  CHECK(attention_seconds(timer, encoder, ComputeUse::qkv, Pass::forward) == doctest::Approx(2 * flash));
}

TEST_CASE("kernel model: recomputation re-runs exactly the forward kernels") {
  const TransformerShape shape = toy_shape(AttentionKind::unfused);
  for (ComputeUse use : kLayerUses) {
    const auto forward = use_kernels(shape, use, Pass::forward);
    const auto again = use_kernels(shape, use, Pass::recompute);
    REQUIRE(forward.size() == again.size());
    for (std::size_t i = 0; i < forward.size(); ++i) {
      CHECK(forward[i].name == again[i].name);
      CHECK(forward[i].bytes == again[i].bytes);
      CHECK(forward[i].flops == again[i].flops);
      CHECK(forward[i].m * forward[i].n * forward[i].k == again[i].m * again[i].n * again[i].k);
    }
  }
  ClusterSpec c = toy_gpu();
  c.kernels.launch_overhead = microseconds(3);
  const ComputeTimes times(shape, c, std::nullopt);
  CHECK(times.block(Pass::recompute) == times.block(Pass::forward));
  // An iteration with recomputation is one more forward of every layer (2 layers).
  TransformerShape plain = shape;
  plain.recompute = false;
  const ComputeTimes without(plain, c, std::nullopt);
  CHECK(times.iteration() - without.iteration() == times.block(Pass::forward) * 2);
  // The embedding and output stages are not recomputed.
  CHECK_THROWS_AS(use_kernels(shape, ComputeUse::output, Pass::recompute), std::logic_error);
}

TEST_CASE("kernel model: a block is its four uses, and the override path is FLOPs over e x peak") {
  ClusterSpec c = toy_gpu();
  c.kernels.launch_overhead = microseconds(3);
  const TransformerShape shape = toy_shape(AttentionKind::unfused);
  const ComputeTimes times(shape, c, std::nullopt);
  SimTime sum;
  for (ComputeUse use : kLayerUses) sum += times.duration(use, Pass::backward);
  CHECK(times.block(Pass::backward) == sum);
  // compute_efficiency 0.25: the FC1 forward executes 2 x 1024 x 4096 x 1024 = 8.589934592e9
  // FLOPs (its GEMM; the LayerNorm and bias + GeLU count none) at 0.25 x 128e12 -> 268.435456 us.
  const ComputeTimes flat(shape, c, 0.25);
  CHECK(flat.flops(ComputeUse::fc1, Pass::forward) == 8.589934592e9);
  CHECK(flat.duration(ComputeUse::fc1, Pass::forward).seconds() == doctest::Approx(268.435456e-6).epsilon(1e-6));
}

TEST_CASE("kernel model: the per-class times of a layer add up to its three passes") {
  // Every kernel belongs to one class, so the classes' seconds over forward, recompute and
  // backward sum to the three blocks (each use rounded up to the nanosecond: at most 12 ns apart).
  ClusterSpec c = toy_gpu();
  c.kernels.launch_overhead = microseconds(3);
  const ComputeTimes times(toy_shape(AttentionKind::unfused), c, std::nullopt);
  double classes = 0;
  for (double s : times.layer_seconds_by_class()) classes += s;
  const double blocks = (times.block(Pass::forward) + times.block(Pass::recompute) + times.block(Pass::backward)).seconds();
  CHECK(std::abs(classes - blocks) <= 12e-9);
  // The loss and embedding kernels lie outside the layers.
  CHECK(times.layer_seconds_by_class()[static_cast<std::size_t>(KernelClass::loss)] == 0);
  CHECK(times.layer_seconds_by_class()[static_cast<std::size_t>(KernelClass::embedding)] == 0);
}

TEST_CASE("kernel model: missing GPU figures and an unavailable fused kernel are refused by name") {
  ClusterSpec c = toy_gpu();
  c.kernels.sms = 0;  // no GPU type, nothing written
  try {
    (void)KernelTimer::from(c, AttentionKind::unfused);
    FAIL("no error");
  } catch (const ModelError& e) {
    CHECK(e.parameter() == "/cluster/gpu_sms");
    CHECK(std::string(e.what()).find("/training/compute_efficiency") != std::string::npos);
  }
  // The override needs no kernel figures.
  CHECK_NOTHROW(ComputeTimes(toy_shape(AttentionKind::unfused), c, 0.5));
  // V100: FlashAttention-2 does not run on it, so the GPU type has no figure.
  ClusterSpec v100;
  apply_gpu_type(v100, *find_gpu_type("v100-sxm2-32gb"));
  try {
    (void)KernelTimer::from(v100, AttentionKind::flash);
    FAIL("no error");
  } catch (const ModelError& e) {
    CHECK(e.parameter() == "/training/attention");
    CHECK(std::string(e.what()).find("v100-sxm2-32gb") != std::string::npos);
  }
}

TEST_CASE("step phases: the optimizer step's and the boundary's phases add up to their totals") {
  ClusterSpec c = toy_gpu();
  c.kernels.launch_overhead = microseconds(3);
  const KernelTimer timer = KernelTimer::memory_only(c);
  StepShape x;
  x.partition_elements = 2 * 20'971'520;  // two FusedAdam launches' worth (65536 x 320 each)
  x.tensors = 10;
  x.sub_group_size = 1e9;
  x.tokens = 1000;
  x.word_bytes = 2;
  x.host_bandwidth = 1e10;
  // Update: 52 B x E = 2,181,038,080 B at 1e12 B/s = 2.18103808 ms; launches: flatten, to fp32,
  // unscale, copy (one sub-group each) + 2 Adam = 6; step end: 2 syncs + 2 batch copies = 4 ->
  // 10 x 3 us = 30 us; the batch, 2 x 8 x 1000 B over 1e10 B/s = 1.6 us. Total 2.21263808 ms.
  const auto step = optimizer_step_phases(timer, x);
  SimTime sum;
  for (const StepPhase& p : step) sum += p.duration;
  CHECK(total_duration(step) == sum);
  CHECK(sum.seconds() == doctest::Approx(2.21263808e-3).epsilon(1e-6));
  // Boundary: 18 B x E + 3 x 8 x 10 B = 754,974,960 B -> 0.75497496 ms; kernels 1 + 1 + 1 +
  // 2 x 10 + 3 + 1 = 27 and 3 syncs -> 90 us; the 1-byte flag over 1e10 B/s -> 0.1 ns.
  // Total 0.84497506 ms.
  const auto boundary = boundary_phases(timer, x);
  CHECK(total_duration(boundary).seconds() == doctest::Approx(0.84497506e-3).epsilon(1e-6));
  // Sub-groups: sub_group_size 1e7 cuts E into 5 groups (4 full of 1e7 and 1.94e6 left): each
  // of flatten, to fp32, unscale and copy launches 5 times; Adam once per group.
  x.sub_group_size = 1e7;
  const auto cut = optimizer_step_phases(timer, x);
  CHECK(cut[0].kernels == 5);
  CHECK(cut[3].kernels == 5);
}

TEST_CASE("kernel lists: no dropout kernels without dropout; the loss as each cross-entropy kind runs it") {
  // toy shape: T = 1024 tokens, h = 1024, V = 1000, w = 2; TV = 1,024,000.
  TransformerShape s = toy_shape(AttentionKind::unfused);
  auto names = [&](ComputeUse use, Pass pass) {
    std::vector<std::string> out;
    for (const Kernel& k : use_kernels(s, use, pass)) out.emplace_back(k.name);
    return out;
  };
  auto has_dropout = [&](ComputeUse use, Pass pass) {
    for (const std::string& n : names(use, pass))
      if (n.find("dropout") != std::string::npos) return true;
    return false;
  };
  CHECK(has_dropout(ComputeUse::qkv, Pass::forward));  // attention dropout at 0.1
  s.dropout = 0;
  for (ComputeUse use : {ComputeUse::embedding, ComputeUse::qkv, ComputeUse::out, ComputeUse::fc1, ComputeUse::fc2})
    for (Pass pass : {Pass::forward, Pass::backward}) {
      CAPTURE(to_string(use));
      CHECK_FALSE(has_dropout(use, pass));
    }
  // The residual add after FC2 without its mask: 3Thw = 3 x 1024 x 1024 x 2 = 6,291,456 B.
  CHECK(use_kernels(s, ComputeUse::fc2, Pass::forward).back().bytes == 6291456.0);
  // Fused cross entropy: forward TVw + 16T = 2,048,000 + 16,384 B; backward 2TVw + 12T =
  // 4,096,000 + 12,288 B, one kernel each (after the three one-element kernels of the turn).
  s.cross_entropy = CrossEntropyKind::fused;
  const auto forward = use_kernels(s, ComputeUse::output, Pass::forward);
  CHECK(forward.back().name == "loss: fused cross entropy");
  CHECK(forward.back().bytes == 2064384.0);
  CHECK(forward.size() == 3);  // final LayerNorm, logits GEMM, the loss
  const auto backward = use_kernels(s, ComputeUse::output, Pass::backward);
  CHECK(backward[3].name == "loss backward: fused cross entropy");
  CHECK(backward[3].bytes == 4108288.0);
  // PyTorch's: log-softmax 3TVw = 6,144,000 B and the target gather T(w + 8) = 10,240 B.
  s.cross_entropy = CrossEntropyKind::torch;
  const auto torch_forward = use_kernels(s, ComputeUse::output, Pass::forward);
  REQUIRE(torch_forward.size() == 4);
  CHECK(torch_forward[2].bytes == 6144000.0);
  CHECK(torch_forward[3].bytes == 10240.0);
}

TEST_CASE("kernel lists: the fused GeLU is one kernel, Hugging Face's unfused one eight forward and eleven backward") {
  // toy shape: T = 1024 tokens, f = 4096, w = 2: one FFN-wide tensor is Tfw = 8,388,608 B.
  // Fused: 2Tfw forward (read, write), 3Tfw backward. Unfused (kernels.hpp): forward 0.5x 2,
  // x³ 2, 0.044715x³ 2, x + · 3, sqrt(2/pi)· 2, tanh 2, 1 + · 2, product 3 = 18 Tfw =
  // 150,994,944 B in 8 kernels; backward 3 + 3 + 3 + 2 + 2 + 2 + 2 + 3 + 3 + 2 + 3 = 28 Tfw =
  // 234,881,024 B in 11 kernels.
  TransformerShape s = toy_shape(AttentionKind::unfused);
  auto gelu = [&](Pass pass) {
    std::pair<int, double> count_bytes{0, 0.0};
    for (const Kernel& k : use_kernels(s, ComputeUse::fc1, pass))
      if (k.name.find("GeLU") != std::string::npos) {
        ++count_bytes.first;
        count_bytes.second += k.bytes;
      }
    return count_bytes;
  };
  CHECK(gelu(Pass::forward) == std::pair{1, 16777216.0});
  CHECK(gelu(Pass::backward) == std::pair{1, 25165824.0});
  s.gelu = GeluKind::unfused;
  CHECK(gelu(Pass::forward) == std::pair{8, 150994944.0});
  CHECK(gelu(Pass::backward) == std::pair{11, 234881024.0});
}

TEST_CASE("DeepSpeed's step in the iteration: one compute operation per phase, in the phases' order") {
  // The program's step (deepspeed_zero3.hpp) runs each boundary and optimizer-step phase as one
  // compute operation of exactly the phase's duration: their compute operations after the
  // backward, in host order, are the boundary phases then the optimizer-step phases.
  const Scenario sc = testing::paper_scenario(2);
  const IterationModel m = simulate_iteration(sc);
  const StepShape shape = deepspeed_zero3_step_shape(sc, m.workload.shape);
  const KernelTimer timer = KernelTimer::memory_only(sc.cluster);
  std::vector<StepPhase> phases = boundary_phases(timer, shape);
  for (StepPhase& p : optimizer_step_phases(timer, shape)) phases.push_back(p);
  const StreamProgram& program = m.workload.program.program;
  std::vector<SimTime> durations;
  for (std::size_t i = static_cast<std::size_t>(m.workload.program.step_op); i < program.size(); ++i) {
    const ProgramOp& op = program.op(static_cast<int>(i));
    if (op.kind == ProgramOp::Kind::compute) durations.push_back(m.workload.compute.duration(op.use));
  }
  REQUIRE(durations.size() == phases.size());
  for (std::size_t i = 0; i < phases.size(); ++i) {
    CAPTURE(phases[i].name);
    CHECK(durations[i] == phases[i].duration);
  }
  // The optimizer task (the first that changes model states) is fused Adam's.
  CHECK(m.workload.op_for(m.workload.optimizer_task)->label == "fused Adam");
}

TEST_SUITE_END();
