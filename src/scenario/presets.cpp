// Instance and model presets, with the source of every figure.
//
// Units: bytes, bytes/s per direction, FLOP/s. Vendor bandwidth figures for NVLink count both
// directions; the presets store one direction (half the data-sheet number), matching the
// per-direction convention of every bandwidth in scenario.hpp.
#include "ckptsim/scenario/presets.hpp"

#include <algorithm>
#include <cmath>

namespace ckptsim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kTiB = 1024.0 * kGiB;
constexpr double kGB = 1e9;
constexpr double kGbps = 1e9 / 8.0;  // bytes/s in one gigabit per second
constexpr double kTflops = 1e12;

// Bandwidth factors and ZeRO-3 compute efficiency (docs/references.md, "Bandwidth factors";
// docs/models.md, "Achieved bandwidth"). A factor is the fraction of the NIC's line rate a kind
// of traffic reaches. For ring collectives, nccl-tests' bus bandwidth (busbw) is the rate each
// NIC carries per direction, so factor = busbw / line rate. NCCL runs all-reduce as a tree on 2
// nodes, where busbw overstates the NIC's rate (it can exceed line rate: nccl-tests issue 22,
// https://github.com/NVIDIA/nccl-tests/issues/22); a 2-node double binary tree moves S bytes
// per NIC per direction, so its NIC rate is algbw.
//
// p4d.24xlarge (400 Gbps = 50 GB/s), 1 GiB all-reduce, NCCL 2.9.9, GPUDirect RDMA on
// (https://github.com/NVIDIA/nccl/issues/527, 2022-07-25): 2 nodes algbw 30.49 GB/s (tree) ->
// 0.610; 3 nodes busbw 31.77 -> 0.635; 4 nodes busbw 29.61 -> 0.592 (taken as ring; read as
// trees, 3 and 4 nodes would be 16.57 and 15.28 GB/s -> 0.33 and 0.31).
// p3dn.24xlarge (100 Gbps), 2019 EFA + aws-ofi-nccl: "50-60Gb/s (6-8 GB/s) when using 8 to 32
// nodes" (https://github.com/NVIDIA/nccl/issues/235, moved to
// https://github.com/aws/aws-ofi-nccl/issues/19): 60 Gb/s at 8 nodes -> 0.60, 50 Gb/s at 32 ->
// 0.50. The same comment's 80 Gb/s at 2 nodes is left out: it does not say whether the
// figure is a tree's busbw.
// Point to point over EFA: fi_rdm_tagged_bw between two 100 Gbps EFA instances peaks at
// 6,899.89 MB/s = 55.2 Gb/s -> 0.552 (https://github.com/ofiwg/libfabric/issues/5694); taken
// for each of p4d's four EFA devices and for p3dn's one (an assumption: same EFA generation).
// No GPUDirect RDMA on p3dn: NCCL's EFA traffic goes through host memory
// (https://github.com/aws/aws-ofi-nccl/issues/104); p4d has it (NCCL_DEBUG shows
// "NET/AWS Libfabric/0/GDRDMA" in NCCL issue 527).
// DGX A100 / H100 (InfiniBand, GPUDirect RDMA): no measurement used; factors 1 (line rate).
// Compute efficiency (hardware FLOP rate / dense peak, recomputed forward counted as work, as
// the iteration model runs it):
//   A100: 116.06 TFLOPS/GPU for a 52B model, seq 512, batch 16/GPU on 8 p4d, excluding the
//   layer-wise recomputation ("multiply by 4/3") -> 116.06 x 4/3 / 312 = 0.496
//   (https://github.com/microsoft/DeepSpeed/pull/1453; 108 TFLOPS on 32 p4d). It is an
//   end-to-end rate, so it also folds in any communication the run did not hide.
//   V100: ZeRO-Infinity, 25 PFLOPS on 512 V100 = 49 TFLOPS/GPU, "40% of peak" (Rajbhandari et
//   al., SC '21, https://arxiv.org/abs/2104.07857; DeepSpeed ZeRO-3 Offload post 2021-03-08),
//   counted with Megatron's formula, which includes recomputation (factor 4 instead of 3) -> 0.40.
//   H100: no ZeRO-3 measurement used; 0.5 as without a preset.
const std::vector<EfficiencyPoint> kP4dCollective = {{2, 30.49 / 50}, {3, 31.77 / 50}, {4, 29.61 / 50}};
const std::vector<EfficiencyPoint> kP3dnCollective = {{8, 60.0 / 100}, {32, 50.0 / 100}};
constexpr double kEfaP2p = 55.2 / 100;
constexpr double kA100Zero3 = 116.06 * 4 / 3 / 312;
constexpr double kV100Zero3 = 0.40;

std::vector<InstancePreset> make_instances() {
  std::vector<InstancePreset> out;
  // Each row ends with the bandwidth factors, GPUDirect RDMA and ZeRO-3 compute efficiency
  // above; an instance without measurements has line rate, true and 0.5.
  // GPU memory (HBM) bandwidth, last field, from the data sheets (docs/references.md):
  //   A100 40GB SXM 1,555 GB/s, A100 80GB SXM 2,039 GB/s
  //     https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf
  //   V100 SXM2 900 GB/s  https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf
  //   H100 SXM 3.35 TB/s  https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet

  // AWS p4d.24xlarge — GEMINI §6 testbed: 8 x A100-40GB over NVSwitch, 1152 GB CPU memory,
  // 400 Gbps network (4 x 100 Gbps EFA). AWS lists the memory as 1152 GiB.
  // A100 figures from the NVIDIA A100 Tensor Core GPU data sheet: 40 GB HBM2 (40 GiB of
  // stacks), 312 TFLOPS dense BF16/FP16 tensor, NVLink/NVSwitch 600 GB/s (both directions ->
  // 300 GB/s each way), PCIe gen4 x16: 32 GB/s raw per direction, ~25 GB/s effective.
  out.push_back({"p4d.24xlarge", "AWS, 8 x A100-40GB, 1152 GiB CPU memory, 400 Gbps (GEMINI testbed)", 8,
                 40 * kGiB, 1152 * kGiB, 400 * kGbps, 25 * kGB, 300 * kGB, 312 * kTflops, 1555 * kGB,
                 kP4dCollective, kEfaP2p, true, kA100Zero3});

  // AWS p3dn.24xlarge — GEMINI §6 second testbed: 8 x V100-32GB, 768 GB CPU memory (AWS: 768
  // GiB), 100 Gbps network. NVIDIA V100 data sheet (SXM2): 125 TFLOPS tensor (FP16 mixed
  // precision), NVLink 300 GB/s (both directions -> 150 GB/s each way); PCIe gen3 x16: 16 GB/s
  // raw, ~12 GB/s effective.
  out.push_back({"p3dn.24xlarge", "AWS, 8 x V100-32GB, 768 GiB CPU memory, 100 Gbps (GEMINI testbed)", 8,
                 32 * kGiB, 768 * kGiB, 100 * kGbps, 12 * kGB, 150 * kGB, 125 * kTflops, 900 * kGB,
                 kP3dnCollective, kEfaP2p, false, kV100Zero3});

  // NVIDIA DGX A100 (DGX A100 data sheet): 8 x A100-80GB, 2 TB system memory (the larger
  // configuration; GEMINI Table 1 lists 2 TB), compute fabric 8 x 200 Gb/s HDR InfiniBand
  // = 1.6 Tbps. GPU figures as for p4d (A100 data sheet).
  out.push_back({"dgx-a100", "NVIDIA DGX A100, 8 x A100-80GB, 2 TiB CPU memory, 8 x 200 Gb/s HDR", 8, 80 * kGiB,
                 2 * kTiB, 1600 * kGbps, 25 * kGB, 300 * kGB, 312 * kTflops, 2039 * kGB,
                 {}, 1.0, true, kA100Zero3});

  // NVIDIA DGX H100 (DGX H100 data sheet): 8 x H100-80GB SXM, 2 TB system memory, compute
  // fabric 8 x 400 Gb/s NDR = 3.2 Tbps. H100 SXM data sheet: 989 TFLOPS dense BF16 (1979 with
  // sparsity), NVLink 900 GB/s (both directions -> 450 GB/s each way); PCIe gen5 x16: 64 GB/s
  // raw per direction, ~50 GB/s effective.
  out.push_back({"dgx-h100", "NVIDIA DGX H100, 8 x H100-80GB SXM, 2 TiB CPU memory, 8 x 400 Gb/s NDR", 8, 80 * kGiB,
                 2 * kTiB, 3200 * kGbps, 50 * kGB, 450 * kGB, 989 * kTflops, 3350 * kGB,
                 {}, 1.0, true, 0.5});
  return out;
}

std::vector<ModelPreset> make_models() {
  std::vector<ModelPreset> out;
  // GEMINI §6, Table 2: hidden / FFN / layers / heads; vocabulary 50265 for every model.
  // Note: the 10B shape as given (2560 / 10240 / 46 / 40) counts ~3.75e9 parameters with
  // transformer_parameters(); the reference notes list it so, and it is kept as listed.
  constexpr int kPaperVocabulary = 50265;
  struct Shape {
    const char* suffix;
    int hidden, ffn, layers, heads;
  };
  constexpr Shape k10b{"10b", 2560, 10240, 46, 40};
  constexpr Shape k20b{"20b", 5120, 20480, 64, 40};
  constexpr Shape k40b{"40b", 5120, 20480, 128, 40};
  constexpr Shape k100b{"100b", 8192, 32768, 124, 64};
  auto paper = [&](const std::string& family, const std::string& title, const Shape& s) {
    std::string size = s.suffix;
    for (char& c : size) c = static_cast<char>(c == 'b' ? 'B' : c);
    out.push_back({family + "-" + s.suffix, title + " " + size + " (GEMINI Table 2)", s.layers, s.hidden, s.ffn,
                   s.heads, kPaperVocabulary, std::nullopt});
  };
  for (const Shape& s : {k10b, k20b, k40b, k100b}) paper("gpt2", "GPT-2", s);
  for (const Shape& s : {k40b, k100b}) paper("roberta", "RoBERTa", s);
  for (const Shape& s : {k40b, k100b}) paper("bert", "BERT", s);

  // GPT-3 175B (Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1):
  // 96 layers, d_model 12288, 96 heads, d_ff = 4 d_model = 49152; GPT-2 BPE vocabulary 50257.
  out.push_back({"gpt3-175b", "GPT-3 175B (Brown et al. 2020)", 96, 12288, 49152, 96, 50257, std::nullopt});

  // Llama 2 70B (Touvron et al. 2023, "Llama 2"; released config): 80 layers, hidden 8192,
  // SwiGLU FFN 28672, 64 heads with 8 key/value heads (GQA), vocabulary 32000, untied
  // embeddings, no biases. Counted by hand:
  //   attention 2·8192^2 + 2·8192·1024 = 150,994,944; FFN 3·8192·28672 = 704,643,072;
  //   RMSNorms 2·8192 = 16,384 -> 855,654,400 per layer x 80 = 68,452,352,000;
  //   embeddings in and out 2·32000·8192 = 524,288,000; final norm 8192 -> 68,976,648,192.
  out.push_back({"llama2-70b", "Llama 2 70B (Touvron et al. 2023; GQA, SwiGLU)", 80, 8192, 28672, 64, 32000,
                 68'976'648'192.0});

  // Llama 3.1 405B (Dubey et al. 2024, "The Llama 3 Herd of Models", Table 3): 126 layers,
  // hidden 16384, FFN 53248, 128 heads with 8 key/value heads, vocabulary 128256, untied.
  //   attention 2·16384^2 + 2·16384·1024 = 570,425,344; FFN 3·16384·53248 = 2,617,245,696;
  //   norms 32,768 -> 3,187,703,808 per layer x 126 = 401,650,679,808;
  //   embeddings 2·128256·16384 = 4,202,692,608; final norm 16384 -> 405,853,388,800.
  out.push_back({"llama3-405b", "Llama 3 405B (Dubey et al. 2024; GQA, SwiGLU)", 126, 16384, 53248, 128, 128256,
                 405'853'388'800.0});
  return out;
}

template <typename T>
const T* find_by_name(const std::vector<T>& items, std::string_view name) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& p) { return p.name == name; });
  return it == items.end() ? nullptr : &*it;
}

template <typename T>
std::vector<std::string> names_of(const std::vector<T>& items) {
  std::vector<std::string> out;
  for (const auto& p : items) out.push_back(p.name);
  return out;
}

}  // namespace

double collective_efficiency_at(const std::vector<EfficiencyPoint>& points, int machines) {
  if (points.empty()) return 1.0;
  if (machines <= points.front().machines) return points.front().efficiency;
  if (machines >= points.back().machines) return points.back().efficiency;
  std::size_t i = 0;
  while (points[i + 1].machines < machines) ++i;
  const EfficiencyPoint& a = points[i];
  const EfficiencyPoint& b = points[i + 1];
  const double x = std::log2(static_cast<double>(machines));
  const double xa = std::log2(static_cast<double>(a.machines));
  const double xb = std::log2(static_cast<double>(b.machines));
  return a.efficiency + (b.efficiency - a.efficiency) * (x - xa) / (xb - xa);
}

const std::vector<InstancePreset>& instance_presets() {
  static const std::vector<InstancePreset> presets = make_instances();
  return presets;
}

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> presets = make_models();
  return presets;
}

const InstancePreset* find_instance_preset(std::string_view name) { return find_by_name(instance_presets(), name); }
const ModelPreset* find_model_preset(std::string_view name) { return find_by_name(model_presets(), name); }

std::vector<std::string> instance_preset_names() { return names_of(instance_presets()); }
std::vector<std::string> model_preset_names() { return names_of(model_presets()); }

double transformer_parameters(int layers, int hidden, int ffn, int vocabulary) {
  const double h = hidden;
  const double f = ffn;
  const double per_layer = 4 * h * h + 2 * h * f + 9 * h + f;
  return layers * per_layer + vocabulary * h + 2 * h;
}

double preset_parameters(const ModelPreset& preset) {
  if (preset.published_parameters) return *preset.published_parameters;
  return transformer_parameters(preset.layers, preset.hidden, preset.ffn, preset.vocabulary);
}

}  // namespace ckptsim
