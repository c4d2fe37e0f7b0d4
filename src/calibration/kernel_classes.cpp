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
  const char* name;
  std::array<const char*, 7> needles;
};

constexpr Rule kRules[] = {
    {"nccl", {"nccl"}},
    {"gemm", {"gemm", "cutlass", "xmma", "cublas", "matmul"}},
    {"attention", {"flash", "fmha", "attention", "sdpa"}},
    {"norm", {"layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm", "group_norm"}},
    {"optimizer", {"adam", "multi_tensor_apply", "sgd", "lamb"}},
    {"elementwise", {"elementwise", "vectorized", "reduce_kernel", "softmax", "index", "cat", "copy"}},
};

}  // namespace

std::string kernel_class(std::string_view kernel_name) {
  const std::string n = lower(kernel_name);
  for (const Rule& r : kRules) {
    for (const char* needle : r.needles) {
      if (needle && n.find(needle) != std::string::npos) return r.name;
    }
  }
  return "other";
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
