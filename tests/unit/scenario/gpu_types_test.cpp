// GPU types (scenario/gpu_types.hpp): the table's figures against the data sheets and the
// kernel-level sources (values typed here from those documents, not from the code), the
// architecture's per-SM rate as an independent check of each peak, and how the loader fills a
// cluster from an instance's GPU type, from cluster.gpu, and from explicit fields.
#include <doctest/doctest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "../common/scenario_documents.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const GpuType& gpu(const char* name) {
  const GpuType* t = find_gpu_type(name);
  REQUIRE(t != nullptr);
  return *t;
}

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("GPU types: data-sheet figures") {
  // NVIDIA A100 data sheet: 312 TFLOPS dense BF16, 40 GB at 1,555 GB/s, 80 GB at 2,039 GB/s,
  // NVLink 600 GB/s (both ways); Ampere white paper: 108 SMs, boost 1410 MHz.
  const GpuType& a40 = gpu("a100-sxm4-40gb");
  CHECK(a40.peak_flops == 312e12);
  CHECK(a40.memory_bytes == 40 * kGiB);
  CHECK(a40.memory_bandwidth == 1555e9);
  CHECK(a40.nvlink_bandwidth == 300e9);
  CHECK(a40.sms == 108);
  CHECK(gpu("a100-sxm4-80gb").memory_bandwidth == 2039e9);
  // V100 SXM2 data sheet: 125 TFLOPS tensor, 900 GB/s, 16 or 32 GB; 80 SMs.
  CHECK(gpu("v100-sxm2-32gb").peak_flops == 125e12);
  CHECK(gpu("v100-sxm2-16gb").memory_bytes == 16 * kGiB);
  CHECK(gpu("v100-sxm2-32gb").memory_bandwidth == 900e9);
  // H100 SXM data sheet: 1,979 TFLOPS BF16 with sparsity = 989 dense, 3.35 TB/s, 80 GB, 132 SMs.
  CHECK(gpu("h100-sxm5-80gb").peak_flops == 989e12);
  CHECK(gpu("h100-sxm5-80gb").memory_bandwidth == 3.35e12);
  // H200: 141 GB at 4.8 TB/s. B200 (DGX B200: 1,440 GB over 8 GPUs): 180 GB at 8 TB/s, 2,250
  // TFLOPS dense. MI300X: 192 GB HBM3 at 5.3 TB/s, 1,307.4 TFLOPS dense FP16, 304 CUs.
  CHECK(gpu("h200-sxm-141gb").memory_bandwidth == 4.8e12);
  CHECK(gpu("h200-sxm-141gb").memory_bytes == 141 * kGiB);
  CHECK(gpu("b200-180gb").peak_flops == 2250e12);
  CHECK(gpu("b200-180gb").memory_bytes == 180 * kGiB);
  CHECK(gpu("mi300x-192gb").memory_bandwidth == 5.3e12);
  CHECK(gpu("mi300x-192gb").sms == 304);
  CHECK(find_gpu_type("a100") == nullptr);
}

TEST_CASE("GPU types: each dense peak is SMs x clock x the architecture's FLOPs per SM per clock") {
  // Dense FP16 tensor FLOPs per SM per clock (white papers): Volta 8 tensor cores x 64 FMA x 2 =
  // 1024; Ampere 4 x 256 x 2 = 2048; Hopper 4096; Blackwell 8192; CDNA 3 (MI300X) 2048 per CU.
  struct Row {
    const char* name;
    double per_sm_per_clock;
  };
  for (const Row& r : {Row{"v100-sxm2-32gb", 1024}, Row{"a100-sxm4-40gb", 2048}, Row{"h100-sxm5-80gb", 4096},
                       Row{"h200-sxm-141gb", 4096}, Row{"gb200-186gb", 8192}, Row{"mi300x-192gb", 2048}}) {
    const GpuType& g = gpu(r.name);
    CAPTURE(g.name);
    // V100: 80 x 1.53 GHz x 1024 = 125.3 TFLOPS (the data sheet rounds to 125): within 0.5%.
    CHECK(g.sms * g.clock_hz * r.per_sm_per_clock == doctest::Approx(g.peak_flops).epsilon(0.005));
  }
  // B200: 148 x 1.965 GHz (the device's maximum) x 8192 = 2,382 TFLOPS, above the 2,250 the data
  // sheet quotes: its peak is stated at a lower clock (about 1.86 GHz), which NVIDIA does not give.
  const GpuType& b200 = gpu("b200-180gb");
  CHECK(b200.sms * b200.clock_hz * 8192 > b200.peak_flops * 1.05);
}

TEST_CASE("GPU types: kernel efficiencies are the measured throughput over the peak") {
  // MAMF (ml-engineering): A100 SXM 271.2 of 312 TFLOPS; H100 SXM 794.5 of 989 ("H200 is the
  // same"); B200 1745.0 of 2250. Markidis et al.: V100 cuBLAS 83 of 125.
  CHECK(gpu("a100-sxm4-40gb").gemm_efficiency.value == doctest::Approx(271.2 / 312));
  CHECK(gpu("h100-sxm5-80gb").gemm_efficiency.value == doctest::Approx(794.5 / 989));
  CHECK(gpu("h200-sxm-141gb").gemm_efficiency.value == gpu("h100-sxm5-80gb").gemm_efficiency.value);
  CHECK(gpu("b200-180gb").gemm_efficiency.value == doctest::Approx(1745.0 / 2250));
  CHECK(gpu("v100-sxm2-32gb").gemm_efficiency.value == doctest::Approx(83.0 / 125));
  // BabelStream triad (Azure benchmarking guide): A100 80GB 1.70 of 2.039 TB/s, measured; the
  // 40 GB part takes the same fraction as an assumption; V100 has no measurement: 1.
  CHECK(gpu("a100-sxm4-80gb").memory_efficiency.value == doctest::Approx(1.70 / 2.039));
  CHECK(gpu("a100-sxm4-80gb").memory_efficiency.origin == FigureOrigin::measured);
  CHECK(gpu("a100-sxm4-40gb").memory_efficiency.origin == FigureOrigin::assumed);
  CHECK(gpu("v100-sxm2-32gb").memory_efficiency.value == 1.0);
  CHECK(gpu("v100-sxm2-32gb").memory_efficiency.origin == FigureOrigin::data_sheet);
  // FlashAttention-2 forward + backward: H100 327.9 of 989 TFLOPS; none on V100 (no kernel).
  REQUIRE(gpu("h100-sxm5-80gb").flash_efficiency.has_value());
  CHECK(gpu("h100-sxm5-80gb").flash_efficiency->value == doctest::Approx(327.9 / 989));
  CHECK_FALSE(gpu("v100-sxm2-32gb").flash_efficiency.has_value());
  // Null-kernel launch overhead, about 3 us (NVIDIA forums); cuBLAS's 256 x 128 tiles.
  for (const GpuType& g : gpu_types()) {
    CAPTURE(g.name);
    CHECK(g.launch_overhead == microseconds(3));
    CHECK(g.tile_m * g.tile_n == 256 * 128);
    CHECK(g.gemm_efficiency.value > 0);
    CHECK(g.gemm_efficiency.value <= 1);
    CHECK(g.data_sheet.rfind("https://", 0) == 0);
  }
}

TEST_CASE("GPU types: the GEMM depth overhead where a per-shape sweep exists, and its reference depth") {
  // scripts/fit-gemm-depth on the Azure cuBLASLt sweeps: A100 80GB FP16 K0 = 390 (measured; the
  // 40 GB part assumed the same), H100 FP8 255 and H200 FP8 175 (taken for BF16: assumed). The
  // reference depth is the k of the MAMF best shape: A100 1024 x 10240 x 5120, H100 2048 x 2048
  // x 13312. No sweep for V100 or B200: no K0.
  REQUIRE(gpu("a100-sxm4-80gb").gemm_depth_overhead.has_value());
  CHECK(gpu("a100-sxm4-80gb").gemm_depth_overhead->value == 390);
  CHECK(gpu("a100-sxm4-80gb").gemm_depth_overhead->origin == FigureOrigin::measured);
  CHECK(gpu("a100-sxm4-40gb").gemm_depth_overhead->origin == FigureOrigin::assumed);
  CHECK(gpu("a100-sxm4-80gb").gemm_reference_depth == 5120);
  CHECK(gpu("h100-sxm5-80gb").gemm_depth_overhead->value == 255);
  CHECK(gpu("h200-sxm-141gb").gemm_depth_overhead->value == 175);
  CHECK(gpu("h200-sxm-141gb").gemm_reference_depth == 13312);
  CHECK_FALSE(gpu("v100-sxm2-32gb").gemm_depth_overhead.has_value());
  CHECK_FALSE(gpu("b200-180gb").gemm_depth_overhead.has_value());
  // The loader carries both into the cluster, and a written value replaces the type's.
  json doc = test::minimal_scenario_document();  // p4d.24xlarge: A100 40GB
  Scenario s = load_scenario_json(doc, "p4d.json", ".");
  REQUIRE(s.cluster.kernels.gemm_depth_overhead.has_value());
  CHECK(*s.cluster.kernels.gemm_depth_overhead == 390);
  CHECK(*s.cluster.kernels.gemm_reference_depth == 5120);
  doc["cluster"]["gpu_gemm_depth_overhead"] = 100;
  s = load_scenario_json(doc, "depth.json", ".");
  CHECK(*s.cluster.kernels.gemm_depth_overhead == 100);
}

TEST_CASE("loader: the instance's GPU type, cluster.gpu instead, and explicit fields over both") {
  json doc = test::minimal_scenario_document();  // p4d.24xlarge: A100 40GB
  Scenario s = load_scenario_json(doc, "p4d.json", ".");
  CHECK(s.cluster.gpu == "a100-sxm4-40gb");
  CHECK(s.cluster.gpu_peak_flops == 312e12);
  CHECK(s.cluster.gpu_memory_bandwidth == 1555e9);
  CHECK(s.cluster.kernels.sms == 108);
  CHECK(s.cluster.kernels.gemm_efficiency == doctest::Approx(271.2 / 312));

  doc["cluster"]["gpu"] = "a100-sxm4-80gb";  // the instance's machine with the 80 GB part
  s = load_scenario_json(doc, "p4d-80.json", ".");
  CHECK(s.cluster.gpu == "a100-sxm4-80gb");
  CHECK(s.cluster.gpu_memory_bytes == 80 * kGiB);
  CHECK(s.cluster.gpu_memory_bandwidth == 2039e9);
  CHECK(s.cluster.cpu_memory_bytes == 1152 * kGiB);  // still the instance's

  doc["cluster"]["gpu_gemm_efficiency"] = 0.5;
  doc["cluster"]["gpu_sms"] = 100;
  doc["cluster"]["gpu_memory_bandwidth"] = "2TB/s";
  s = load_scenario_json(doc, "explicit.json", ".");
  CHECK(s.cluster.kernels.gemm_efficiency == 0.5);
  CHECK(s.cluster.kernels.sms == 100);
  CHECK(s.cluster.gpu_memory_bandwidth == 2e12);
  CHECK(s.cluster.kernels.memory_efficiency == doctest::Approx(1.70 / 2.039));  // the type's

  // A GPU type alone (no instance) fills every GPU field; the machine fields stay required.
  json bare = test::minimal_scenario_document();
  bare["cluster"] = {{"gpu", "h100-sxm5-80gb"}, {"machines", 2}};
  const auto problems = test::scenario_problems(bare);
  CHECK_FALSE(test::has_problem_at(problems, "/cluster/gpu_memory"));
  CHECK_FALSE(test::has_problem_at(problems, "/cluster/gpu_peak_flops"));
  CHECK(test::has_problem_at(problems, "/cluster/cpu_memory"));

  json unknown = test::minimal_scenario_document();
  unknown["cluster"]["gpu"] = "a100";
  const auto wrong = test::scenario_problems(unknown);
  REQUIRE(test::has_problem_at(wrong, "/cluster/gpu"));
  for (const Problem& p : wrong)
    if (p.pointer == "/cluster/gpu") CHECK(p.expected.find("\"a100-sxm4-40gb\"") != std::string::npos);
}

TEST_SUITE_END();
