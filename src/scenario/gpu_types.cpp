// The GPU types (gpu_types.hpp), every figure next to its source (docs/references.md, "GPU types").
//
// HBM capacities: the vendors' "GB" labels count 2^30-byte stacks (an A100 "40 GB" has 40 GiB),
// and the same reading is kept for every GPU here. NVLink: the data sheets give both directions
// together; the table stores one direction (half). Peaks are dense (no sparsity).
#include "ckptsim/scenario/gpu_types.hpp"

#include <algorithm>

#include "ckptsim/core/byte_units.hpp"

namespace ckptsim {
namespace {

constexpr double kTflops = 1e12;
constexpr double kMHz = 1e6;

// Data sheets and white papers.
constexpr const char* kV100Sheet =
    "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf; "
    "SMs and clock: https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf";
constexpr const char* kA100Sheet =
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf; SMs and clock: "
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf";
constexpr const char* kH100Sheet =
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet; SMs: "
    "https://resources.nvidia.com/en-us-hopper-architecture/nvidia-h100-tensor-c";
constexpr const char* kH200Sheet = "https://www.nvidia.com/en-us/data-center/h200/";
constexpr const char* kB200Sheet = "https://www.nvidia.com/en-us/data-center/dgx-b200/";
constexpr const char* kGb200Sheet = "https://www.nvidia.com/en-us/data-center/gb200-nvl72/";
constexpr const char* kMi300xSheet = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html";

// Kernel-level measurements.
// Large GEMMs: Maximum Achievable Matmul FLOPS (MAMF), torch.mm in BF16, the best of a sweep of
// shapes (mean of 100 iterations after 50 warm-up), S. Bekman, "Machine Learning Engineering",
// compute/accelerator/README.md, https://github.com/stas00/ml-engineering (A100 SXM 271.2 of
// 312; H100 SXM 794.5 of 989, "H200 is the same"; B200 SXM 1745.0 of 2250; GB200 1822.0 of
// 2500; MI300X 668.4 of 1300 with PyTorch TunableOp, ROCm 6.3).
constexpr const char* kMamf = "MAMF table, https://github.com/stas00/ml-engineering (compute/accelerator/README.md)";
// V100: cuBLAS GEMM on tensor cores "up to 83 Tflops/s in mixed precision" of 125 (Markidis et
// al., "NVIDIA Tensor Core Programmability, Performance & Precision", IPDPSW 2018,
// https://arxiv.org/abs/1803.04014).
constexpr const char* kMarkidis = "Markidis et al., IPDPSW 2018, https://arxiv.org/abs/1803.04014: cuBLAS 83 of 125 TFLOPS";
// HBM and FlashAttention-2: Azure AI benchmarking guide, per VM type: BabelStream (CUDA) triad,
// and flash-attention's benchmarks/benchmark_flash_attention.py, forward + backward, causal,
// batch 2, sequence 8192 (head dimension 128; 64 on ND A100 v4),
// https://github.com/Azure/AI-benchmarking-guide (Azure_Results/ND_*_results.md):
//   ND A100 v4 (A100 80GB): triad 1.70 TB/s; FlashAttention-2 179.5 TFLOPS
//   ND H100 v5: triad 2.97 TB/s; FlashAttention-2 327.9 TFLOPS
//   ND H200 v5: triad 4.15 TB/s; FlashAttention-2 329.3 TFLOPS
//   ND GB200 v6: FlashAttention-2 373.9 TFLOPS (no HBM figure)
constexpr const char* kAzure = "Azure AI-benchmarking-guide, https://github.com/Azure/AI-benchmarking-guide";
// GEMM depth overhead K0 (kernel_time.hpp): fitted by scripts/fit-gemm-depth to the Azure AI
// benchmarking guide's cuBLASLt sweeps (Azure_Results/ND_*_results.md @ 8fd0c6e, shapes 2048^3 to
// 32768^3 and 6144 x 12288 x 12288 whose tiles fill their waves): A100 80GB FP16 390 elements
// (4 shapes, rms error 0.6 %); H100 80GB FP8 255 (6 shapes, 1.6 %); H200 FP8 175 (6 shapes,
// 0.9 %). No BF16 sweep is published for H100/H200: their FP8 K0 is taken for BF16 (assumed: the
// same depth per tile). Held out, H200 BF16 torch.bmm (tile-ai/TileOPs PR 2148: 8 x 1024^3 in
// 30.7 us, 16 x 512^3 in 11.9 us) against the model with and without K0 is in docs/references.md.
// The reference depth is the k of the MAMF best shape (A100 1024 x 10240 x 5120; H100
// 2048 x 2048 x 13312).
constexpr const char* kDepthSweep =
    "fitted to the Azure AI-benchmarking-guide cuBLASLt sweep (scripts/fit-gemm-depth)";

// Collectives inside one machine of 8 GPUs (NVLink + NVSwitch), nccl-tests bus bandwidth by size
// (bus_curve.hpp; docs/references.md, "Collectives inside a machine"):
//   all-reduce as NCCL picks it on 8 GPUs: Azure AI benchmarking guide, Azure_Results/
//   ND_A100_v4_results.md, ND_H100_v5_results.md, ND_H200_v5_results.md @ 8fd0c6e, all_reduce_perf
//   -g 8, in place, 1 MiB to 8 GiB (NCCL 2.18.5 on A100 and H100, 2.20.5 on H200). On H100/H200
//   that is NVLink SHARP (NVLS; the file says so); A100 has no NVLS (NCCL src/graph/tuning.cc,
//   nvlsEfficiency 0 on Ampere), so its curve is NCCL's ring.
//   ring reduce-scatter on one H100 server: NVIDIA/nccl issue 1047 (2023-10-31), out of place,
//   128 MiB to 4 GiB (tests/fixtures/nccl-tests/reduce_scatter_perf-nccl-1047-h100x8.txt). NVLS
//   does not serve reduce-scatter or all-gather on one machine (issue 1047's finding; nccl issue
//   1670), so the ring is what Megatron's sequence-parallel collectives run. All-gather is taken
//   equal (one machine of 8 H200, 16 GiB: reduce-scatter 362.9, all-gather 361.4, ring
//   all-reduce 367.2 GB/s; ml-engineering network/README.md). H200: the H100 curve (the same
//   NVLink 4 and NVSwitch; assumed). A100: the ring all-reduce curve (assumed for reduce-scatter
//   and all-gather on the same evidence).
constexpr double kMiB = 1024.0 * 1024;
const std::vector<double> kAzureSizes = {1 * kMiB,   2 * kMiB,   4 * kMiB,    8 * kMiB,    16 * kMiB,
                                         32 * kMiB,  64 * kMiB,  128 * kMiB,  256 * kMiB,  512 * kMiB,
                                         1024 * kMiB, 2048 * kMiB, 4096 * kMiB, 8192 * kMiB};
constexpr const char* kAzureNccl = "Azure AI-benchmarking-guide all_reduce_perf -g 8";

BusCurve curve(const std::vector<double>& sizes, const std::vector<double>& gbps, std::string source, bool assumed) {
  BusCurve c;
  for (std::size_t i = 0; i < sizes.size(); ++i) c.points.push_back({sizes[i], gbps[i] * 1e9});
  c.source = std::move(source);
  c.assumed = assumed;
  return c;
}

BusCurve h100_ring_reduce_scatter(bool assumed) {
  return curve({128 * kMiB, 256 * kMiB, 512 * kMiB, 1024 * kMiB, 2048 * kMiB, 4096 * kMiB},
               {311.34, 330.94, 340.94, 349.36, 354.81, 357.76},
               std::string("NVIDIA/nccl issue 1047, reduce_scatter_perf on one H100 server (ring)") +
                   (assumed ? ", taken for H200" : ""),
               assumed);
}

// Launch: "the launch overhead of null kernels ... about 3 microseconds with recent hardware and
// software" (NVIDIA developer forums,
// https://forums.developer.nvidia.com/t/too-much-time-for-kernel-launch-latency/233645/3).
constexpr const char* kLaunch =
    "null-kernel launch overhead about 3 us, "
    "https://forums.developer.nvidia.com/t/too-much-time-for-kernel-launch-latency/233645/3";
const SimTime kLaunchOverhead = microseconds(3);
// GEMM tiles: cuBLAS's 256x128 tiles are its most efficient, and a GEMM runs in waves of one
// tile per SM (NVIDIA, "Matrix Multiplication Background User's Guide", sections 2.3 and 3,
// https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html).

KernelFigure measured(double achieved, double peak, std::string source) {
  return {achieved / peak, FigureOrigin::measured, std::move(source)};
}

KernelFigure from_data_sheet() { return {1.0, FigureOrigin::data_sheet, "no measurement found; the data-sheet bandwidth is used"}; }

std::vector<GpuType> make_gpu_types() {
  std::vector<GpuType> out;
  auto add = [&](GpuType t) {
    t.launch_overhead = kLaunchOverhead;
    t.launch_source = kLaunch;
    out.push_back(std::move(t));
  };
  // NVIDIA V100 SXM2 (data sheet: 125 TFLOPS tensor, 900 GB/s, 16 or 32 GB HBM2, NVLink 300
  // GB/s; white paper: 80 SMs, boost 1530 MHz). FlashAttention-2 does not run on Volta (its
  // README: Ampere, Ada and Hopper GPUs).
  for (const double gib : {16.0, 32.0}) {
    GpuType t;
    t.name = gib == 16 ? "v100-sxm2-16gb" : "v100-sxm2-32gb";
    t.description = gib == 16 ? "NVIDIA V100 SXM2 16 GB" : "NVIDIA V100 SXM2 32 GB";
    t.data_sheet = kV100Sheet;
    t.sms = 80;
    t.clock_hz = 1530 * kMHz;
    t.memory_bytes = gib * kGiB;
    t.memory_bandwidth = 900 * kGB;
    t.peak_flops = 125 * kTflops;
    t.nvlink_bandwidth = 150 * kGB;
    t.gemm_efficiency = measured(83, 125, kMarkidis);
    t.memory_efficiency = from_data_sheet();
    add(std::move(t));
  }
  // NVIDIA A100 SXM4 (data sheet: 312 TFLOPS dense FP16/BF16, 40 GB HBM2 at 1,555 GB/s or 80 GB
  // HBM2e at 2,039 GB/s, NVLink 600 GB/s; white paper: 108 SMs, boost 1410 MHz). The HBM and
  // FlashAttention-2 measurements are of the 80 GB part; the 40 GB part takes the same
  // fractions (same GA100 SMs and memory controllers; an assumption).
  for (const bool large : {false, true}) {
    GpuType t;
    t.name = large ? "a100-sxm4-80gb" : "a100-sxm4-40gb";
    t.description = large ? "NVIDIA A100 SXM4 80 GB" : "NVIDIA A100 SXM4 40 GB";
    t.data_sheet = kA100Sheet;
    t.sms = 108;
    t.clock_hz = 1410 * kMHz;
    t.memory_bytes = (large ? 80 : 40) * kGiB;
    t.memory_bandwidth = (large ? 2039 : 1555) * kGB;
    t.peak_flops = 312 * kTflops;
    t.nvlink_bandwidth = 300 * kGB;
    t.gemm_efficiency = measured(271.2, 312, kMamf);
    t.gemm_depth_overhead = KernelFigure{390, large ? FigureOrigin::measured : FigureOrigin::assumed,
                                         std::string(kDepthSweep) + ", A100 80GB FP16"};
    t.gemm_reference_depth = 5120;
    t.nvlink_all_reduce_curve = curve(kAzureSizes,
                                      {36.22, 53.54, 71.43, 89.99, 109.22, 132.77, 166.63, 174.18, 213.87, 221.58, 228.10,
                                       230.22, 230.48, 231.58},
                                      std::string(kAzureNccl) + " (ND A100 v4, NCCL 2.18.5; ring: no NVLS on Ampere)", !large);
    t.nvlink_ring_curve = *t.nvlink_all_reduce_curve;
    t.nvlink_ring_curve->source += ", taken for reduce-scatter and all-gather";
    t.nvlink_ring_curve->assumed = true;
    t.nvlink_curve_gpus = 8;
    const std::string azure_a100 = std::string(kAzure) + " (ND A100 v4, A100 80GB)";
    t.memory_efficiency = measured(1700, 2039, azure_a100 + ": triad 1.70 TB/s");
    t.flash_efficiency = measured(179.5, 312, azure_a100 + ": 179.5 TFLOPS, head dimension 64");
    if (!large) {
      t.memory_efficiency.origin = FigureOrigin::assumed;
      t.flash_efficiency->origin = FigureOrigin::assumed;
    }
    add(std::move(t));
  }
  // NVIDIA H100 SXM5 80 GB (data sheet: 989 TFLOPS dense BF16 (1,979 with sparsity), 3.35 TB/s,
  // NVLink 900 GB/s; 132 SMs; 1830 MHz, the clock its peak is quoted at).
  {
    GpuType t;
    t.name = "h100-sxm5-80gb";
    t.description = "NVIDIA H100 SXM5 80 GB";
    t.data_sheet = kH100Sheet;
    t.sms = 132;
    t.clock_hz = 1830 * kMHz;
    t.memory_bytes = 80 * kGiB;
    t.memory_bandwidth = 3350 * kGB;
    t.peak_flops = 989 * kTflops;
    t.nvlink_bandwidth = 450 * kGB;
    t.gemm_efficiency = measured(794.5, 989, kMamf);
    t.gemm_depth_overhead = KernelFigure{255, FigureOrigin::assumed, std::string(kDepthSweep) + ", H100 FP8 taken for BF16"};
    t.gemm_reference_depth = 13312;
    t.nvlink_all_reduce_curve = curve(kAzureSizes,
                                      {43.70, 81.93, 128.73, 172.13, 234.45, 295.53, 361.78, 400.61, 423.38, 438.46, 466.35,
                                       472.36, 475.54, 478.87},
                                      std::string(kAzureNccl) + " (ND H100 v5, NCCL 2.18.5, NVLS)", false);
    t.nvlink_ring_curve = h100_ring_reduce_scatter(false);
    t.nvlink_curve_gpus = 8;
    t.memory_efficiency = measured(2970, 3350, std::string(kAzure) + " (ND H100 v5): triad 2.97 TB/s");
    t.flash_efficiency = measured(327.9, 989, std::string(kAzure) + " (ND H100 v5): 327.9 TFLOPS");
    add(std::move(t));
  }
  // NVIDIA H200 SXM 141 GB (product page: 141 GB HBM3e at 4.8 TB/s, 1,979 TFLOPS BF16 with
  // sparsity = 989 dense, NVLink 900 GB/s; the H100's GH100 with 132 SMs at 1830 MHz).
  {
    GpuType t;
    t.name = "h200-sxm-141gb";
    t.description = "NVIDIA H200 SXM 141 GB";
    t.data_sheet = kH200Sheet;
    t.sms = 132;
    t.clock_hz = 1830 * kMHz;
    t.memory_bytes = 141 * kGiB;
    t.memory_bandwidth = 4800 * kGB;
    t.peak_flops = 989 * kTflops;
    t.nvlink_bandwidth = 450 * kGB;
    t.gemm_efficiency = measured(794.5, 989, std::string(kMamf) + ": H100 SXM, \"H200 is the same\"");
    t.gemm_depth_overhead = KernelFigure{175, FigureOrigin::assumed, std::string(kDepthSweep) + ", H200 FP8 taken for BF16"};
    t.gemm_reference_depth = 13312;
    t.nvlink_all_reduce_curve = curve(kAzureSizes,
                                      {52.96, 88.78, 138.44, 181.94, 240.41, 300.91, 368.11, 412.45, 432.24, 442.72, 467.58,
                                       472.57, 477.41, 479.98},
                                      std::string(kAzureNccl) + " (ND H200 v5, NCCL 2.20.5, NVLS)", false);
    t.nvlink_ring_curve = h100_ring_reduce_scatter(true);
    t.nvlink_curve_gpus = 8;
    t.memory_efficiency = measured(4150, 4800, std::string(kAzure) + " (ND H200 v5): triad 4.15 TB/s");
    t.flash_efficiency = measured(329.3, 989, std::string(kAzure) + " (ND H200 v5): 329.3 TFLOPS");
    add(std::move(t));
  }
  // NVIDIA B200 (DGX B200 data sheet: 8 GPUs with 1,440 GB HBM3e = 180 GB each, 8 TB/s each,
  // 72 PFLOPS FP8 training with sparsity = 2,250 TFLOPS dense BF16 per GPU, NVLink 5 1.8 TB/s per
  // GPU; 148 SMs, the count Blackwell kernels size their grids by; 1965 MHz is the
  // device-reported maximum SM clock, above the ~1.86 GHz the 2,250 TFLOPS implies).
  // FlashAttention-2 on B200: no figure found; GB200's measured fraction is taken (the same
  // Blackwell GPU and kernel; an assumption).
  {
    GpuType t;
    t.name = "b200-180gb";
    t.description = "NVIDIA B200 180 GB (HGX / DGX B200)";
    t.data_sheet = kB200Sheet;
    t.sms = 148;
    t.clock_hz = 1965 * kMHz;
    t.memory_bytes = 180 * kGiB;
    t.memory_bandwidth = 8000 * kGB;
    t.peak_flops = 2250 * kTflops;
    t.nvlink_bandwidth = 900 * kGB;
    t.gemm_efficiency = measured(1745.0, 2250, kMamf);
    t.memory_efficiency = from_data_sheet();
    t.flash_efficiency = measured(373.9, 2500, std::string(kAzure) + " (ND GB200 v6): 373.9 of 2,500 TFLOPS");
    t.flash_efficiency->origin = FigureOrigin::assumed;
    add(std::move(t));
  }
  // NVIDIA GB200's Blackwell GPU (GB200 NVL72 page: 72 GPUs with up to 13.4 TB HBM3e = 186 GB
  // each at 576 TB/s = 8 TB/s each, 360 PFLOPS FP16/BF16 with sparsity = 2,500 TFLOPS dense per
  // GPU, NVLink 130 TB/s = 1.8 TB/s per GPU; 148 SMs at the device-reported 2062 MHz give
  // 148 x 8192 FLOPs x 2.062 GHz = 2,500 TFLOPS).
  {
    GpuType t;
    t.name = "gb200-186gb";
    t.description = "NVIDIA Blackwell GPU of a GB200 superchip, 186 GB";
    t.data_sheet = kGb200Sheet;
    t.sms = 148;
    t.clock_hz = 2062 * kMHz;
    t.memory_bytes = 186 * kGiB;
    t.memory_bandwidth = 8000 * kGB;
    t.peak_flops = 2500 * kTflops;
    t.nvlink_bandwidth = 900 * kGB;
    t.gemm_efficiency = measured(1822.0, 2500, kMamf);
    t.memory_efficiency = from_data_sheet();
    t.flash_efficiency = measured(373.9, 2500, std::string(kAzure) + " (ND GB200 v6): 373.9 TFLOPS");
    add(std::move(t));
  }
  // AMD Instinct MI300X (product page: 304 compute units, 2100 MHz peak engine clock, 192 GB
  // HBM3 at 5.3 TB/s, 1,307.4 TFLOPS dense FP16/BF16, Infinity Fabric 896 GB/s aggregate peer
  // bandwidth (seven point-to-point links, taken here as one switch port)). No HBM or
  // FlashAttention figure found.
  {
    GpuType t;
    t.name = "mi300x-192gb";
    t.description = "AMD Instinct MI300X 192 GB";
    t.data_sheet = kMi300xSheet;
    t.sms = 304;
    t.clock_hz = 2100 * kMHz;
    t.memory_bytes = 192 * kGiB;
    t.memory_bandwidth = 5300 * kGB;
    t.peak_flops = 1307.4 * kTflops;
    t.nvlink_bandwidth = 448 * kGB;
    t.gemm_efficiency = measured(668.4, 1307.4, std::string(kMamf) + ": 668.4 TFLOPS");
    t.memory_efficiency = from_data_sheet();
    add(std::move(t));
  }
  return out;
}

}  // namespace

const char* to_string(FigureOrigin origin) {
  switch (origin) {
    case FigureOrigin::measured: return "measured";
    case FigureOrigin::assumed: return "assumed";
    case FigureOrigin::data_sheet: return "data sheet";
  }
  return "";
}

const std::vector<GpuType>& gpu_types() {
  static const std::vector<GpuType> types = make_gpu_types();
  return types;
}

const GpuType* find_gpu_type(std::string_view name) {
  const auto& types = gpu_types();
  auto it = std::find_if(types.begin(), types.end(), [&](const GpuType& t) { return t.name == name; });
  return it == types.end() ? nullptr : &*it;
}

std::vector<std::string> gpu_type_names() {
  std::vector<std::string> out;
  for (const auto& t : gpu_types()) out.push_back(t.name);
  return out;
}

void apply_gpu_type(ClusterSpec& cluster, const GpuType& type) {
  cluster.gpu = type.name;
  cluster.gpu_memory_bytes = type.memory_bytes;
  cluster.gpu_peak_flops = type.peak_flops;
  cluster.gpu_memory_bandwidth = type.memory_bandwidth;
  cluster.nvlink_bandwidth = type.nvlink_bandwidth;
  GpuKernelSpec& k = cluster.kernels;
  k.sms = type.sms;
  k.gemm_efficiency = type.gemm_efficiency.value;
  k.memory_efficiency = type.memory_efficiency.value;
  k.flash_efficiency = type.flash_efficiency ? std::optional<double>(type.flash_efficiency->value) : std::nullopt;
  k.gemm_depth_overhead =
      type.gemm_depth_overhead ? std::optional<double>(type.gemm_depth_overhead->value) : std::nullopt;
  k.gemm_reference_depth = type.gemm_depth_overhead ? std::optional<double>(type.gemm_reference_depth) : std::nullopt;
  k.launch_overhead = type.launch_overhead;
  cluster.nvlink_ring_curve = type.nvlink_ring_curve;
  cluster.nvlink_all_reduce_curve = type.nvlink_all_reduce_curve;
  cluster.nvlink_curve_gpus = type.nvlink_curve_gpus;
  k.tile_m = type.tile_m;
  k.tile_n = type.tile_n;
}

}  // namespace ckptsim
