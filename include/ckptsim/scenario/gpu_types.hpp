#pragma once
// GPU types: one row per GPU with its data-sheet figures and the kernel-level figures the
// kernel compute model (workload/kernel_time.hpp) times operations with. A scenario names one in
// `cluster.gpu` (an instance preset names its own); the loader copies the row into the cluster
// (apply_gpu_type), then every GPU field written explicitly overrides it.
//
// Every figure is typed once, in gpu_types.cpp, next to its source (docs/references.md, "GPU
// types"). Data-sheet figures: SMs, clock, HBM capacity and bandwidth, dense FP16/BF16 tensor
// peak, NVLink. Kernel figures, each measured by a kernel-level microbenchmark or marked as an
// assumption where none was found:
//   gemm_efficiency    the best large-GEMM throughput measured / the dense peak (the fraction
//                      reached inside full waves of GEMM tiles)
//   memory_efficiency  STREAM triad bandwidth measured (BabelStream) / the data-sheet HBM
//                      bandwidth; 1 (the data sheet) where no measurement was found
//   flash_efficiency   FlashAttention-2 forward + backward throughput measured / the dense
//                      peak; none where the kernel does not run or no figure was found
//   gemm_depth_overhead  K0, each GEMM tile's fixed cost in elements of inner depth, fitted to
//                      a per-shape cuBLASLt sweep (scripts/fit-gemm-depth); none where no
//                      sweep was found. gemm_reference_depth is the inner depth of the shape
//                      gemm_efficiency was measured at.
//   launch_overhead    time per kernel launch on top of its work
//   tile_m x tile_n    the GEMM output tile one SM computes at a time (cuBLAS's largest)
// Units: bytes, bytes/s (NVLink per direction: half the data sheet's both-ways figure), FLOP/s,
// Hz.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/cluster.hpp"

namespace ckptsim {

/// How a kernel figure was obtained (`ckptsim list` prints it beside the value).
enum class FigureOrigin {
  measured,    ///< a kernel-level microbenchmark of this GPU
  assumed,     ///< taken from a measurement of a sibling GPU (the source says which)
  data_sheet,  ///< no measurement found: the data-sheet peak (efficiency 1)
};
const char* to_string(FigureOrigin origin);

/// One kernel-level figure with where it comes from.
struct KernelFigure {
  double value = 0;
  FigureOrigin origin = FigureOrigin::data_sheet;
  std::string source;
};

struct GpuType {
  std::string name;
  std::string description;
  std::string data_sheet;          ///< URL of the data sheet (and white paper for SMs / clock)
  int sms = 0;                     ///< streaming multiprocessors (AMD: compute units)
  double clock_hz = 0;             ///< the clock the data sheet's peak is quoted at (boost / peak engine)
  double memory_bytes = 0;         ///< HBM capacity
  double memory_bandwidth = 0;     ///< HBM bandwidth, data sheet
  double peak_flops = 0;           ///< dense FP16/BF16 tensor FLOP/s, data sheet
  double nvlink_bandwidth = 0;     ///< per GPU, each direction
  KernelFigure gemm_efficiency;
  KernelFigure memory_efficiency;
  std::optional<KernelFigure> flash_efficiency;  ///< nullopt: no FlashAttention-2 figure (or kernel)
  std::optional<KernelFigure> gemm_depth_overhead;  ///< K0 in elements; nullopt: no per-shape sweep
  double gemm_reference_depth = 0;                  ///< k of gemm_efficiency's shape (with K0)
  /// nccl-tests curves inside one machine of nvlink_curve_gpus GPUs (bus_curve.hpp); nullopt:
  /// none published, a ring at nvlink_bandwidth is used.
  std::optional<BusCurve> nvlink_ring_curve;
  std::optional<BusCurve> nvlink_all_reduce_curve;
  int nvlink_curve_gpus = 0;
  SimTime launch_overhead;
  std::string launch_source;
  int tile_m = 256;
  int tile_n = 128;
};

/// Every GPU type, in a stable order (`ckptsim list` prints them).
const std::vector<GpuType>& gpu_types();
/// nullptr when no type has this name.
const GpuType* find_gpu_type(std::string_view name);
std::vector<std::string> gpu_type_names();

/// The cluster's GPU fields from `type`: gpu, gpu_memory_bytes, gpu_peak_flops,
/// gpu_memory_bandwidth, nvlink_bandwidth and the kernel figures (the loader calls this before
/// reading explicit fields; code that builds a Scenario by hand calls it too).
void apply_gpu_type(ClusterSpec& cluster, const GpuType& type);

}  // namespace ckptsim
