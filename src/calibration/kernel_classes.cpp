#include "ckptsim/calibration/kernel_classes.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace ckptsim {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

struct Rule {
  std::string_view name;
  std::array<const char*, 9> needles;
};

// Compute classes take their names from the kernel model (key_of), the one place they are named.
const Rule kRules[] = {
    // RCCL keeps NCCL's kernel names (ncclDevKernel_Generic, ncclKernel_*); its MSCCL kernels
    // are mscclKernel_* (ROCm/rccl src/device/common.h, generate.py).
    {"nccl", {"nccl", "rccl", "msccl"}},
    // Cijk_*: the GEMM kernels of AMD's Tensile / hipBLASLt (HTA's MI250 test trace).
    {key_of(KernelClass::gemm), {"gemm", "cutlass", "xmma", "cublas", "matmul", "cijk_"}},
    {key_of(KernelClass::attention), {"flash", "fmha", "attention", "sdpa"}},
    {key_of(KernelClass::layer_norm), {"layer_norm", "layernorm", "rms_norm", "rmsnorm"}},
    {key_of(KernelClass::loss), {"cross_entropy", "nll_loss", "log_softmax"}},
    {key_of(KernelClass::embedding), {"embedding", "index_select", "indexselect"}},
    // "lamb_", not "lamb": PyTorch's kernel names hold "{lambda()#1}" (288 of the 1,154 kernels
    // of tests/fixtures/torch-profiler/hta-sampled-rank-0 were once counted as optimizer).
    {"optimizer", {"adam", "multi_tensor_apply", "sgd", "lamb_"}},
    {key_of(KernelClass::elementwise), {"elementwise", "vectorized", "reduce_kernel", "softmax", "dropout", "gelu", "index", "cat", "copy"}},
};

}  // namespace

std::string kernel_class(std::string_view kernel_name) {
  const std::string n = lower(kernel_name);
  for (const Rule& r : kRules) {
    for (const char* needle : r.needles) {
      if (needle && n.find(needle) != std::string::npos) return std::string(r.name);
    }
  }
  return "other";
}

std::optional<KernelClass> model_kernel_class(std::string_view class_name) {
  for (int c = 0; c < kKernelClasses; ++c) {
    if (class_name == key_of(static_cast<KernelClass>(c))) return static_cast<KernelClass>(c);
  }
  return std::nullopt;
}

std::string nccl_collective(std::string_view kernel_name, std::string_view collective_arg) {
  std::string c = lower(collective_arg);
  if (c.empty()) {
    const std::string n(kernel_name);
    for (const char* prefix : {"ncclDevKernelDebug_", "ncclKernel_", "ncclDevKernel_", "mscclKernel_"}) {
      const auto at = n.find(prefix);
      if (at == std::string::npos) continue;
      const auto begin = at + std::string_view(prefix).size();
      c = lower(n.substr(begin, n.find('_', begin) - begin));
      break;
    }
  }
  c.erase(std::remove(c.begin(), c.end(), '_'), c.end());
  // One kernel runs every collective (NCCL >= 2.19's and RCCL's ncclDevKernel_Generic[_N]; an
  // MSCCL kernel is named by its reduction): the name says none, so "" (unknown).
  if (c == "generic" || c == "sum" || c == "prod" || c == "minmax") c.clear();
  return c;
}

}  // namespace ckptsim
