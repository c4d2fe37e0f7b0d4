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
    {"nccl", {"nccl"}},
    {key_of(KernelClass::gemm), {"gemm", "cutlass", "xmma", "cublas", "matmul"}},
    {key_of(KernelClass::attention), {"flash", "fmha", "attention", "sdpa"}},
    {key_of(KernelClass::layer_norm), {"layer_norm", "layernorm", "rms_norm", "rmsnorm"}},
    {key_of(KernelClass::loss), {"cross_entropy", "nll_loss", "log_softmax"}},
    {key_of(KernelClass::embedding), {"embedding", "index_select", "indexselect"}},
    {"optimizer", {"adam", "multi_tensor_apply", "sgd", "lamb"}},
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
    for (const char* prefix : {"ncclKernel_", "ncclDevKernel_"}) {
      const auto at = n.find(prefix);
      if (at == std::string::npos) continue;
      const auto begin = at + std::string_view(prefix).size();
      c = lower(n.substr(begin, n.find('_', begin) - begin));
      break;
    }
  }
  c.erase(std::remove(c.begin(), c.end(), '_'), c.end());
  return c;
}

}  // namespace ckptsim
