// Instance and model presets, with the source of every figure.
//
// Units: bytes, bytes/s per direction, FLOP/s. Vendor bandwidth figures for NVLink count both
// directions; the presets store one direction (half the data-sheet number), matching the
// per-direction convention of every bandwidth in scenario.hpp.
#include "ckptsim/scenario/presets.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ckptsim/core/byte_units.hpp"
#include "ckptsim/scenario/parameter_count.hpp"

namespace ckptsim {
namespace {

constexpr double kTiB = 1024.0 * kGiB;
constexpr double kGbps = 1e9 / 8.0;  // bytes/s in one gigabit per second

// Bandwidth factors (docs/references.md, "Bandwidth factors"; docs/models.md, "Achieved
// bandwidth"). A factor is the fraction of the NIC's line rate a kind of traffic reaches. For
// ring collectives, nccl-tests' bus bandwidth (busbw) is the rate each NIC carries per
// direction, so factor = busbw / line rate. NCCL runs all-reduce as a tree on 2 nodes, where
// busbw overstates the NIC's rate (it can exceed line rate: nccl-tests issue 22,
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
// HGX H100 with eight 400 Gb/s ConnectX-7 NDR InfiniBand NICs (400 GB/s per machine): nccl-tests
// issue 309 (https://github.com/NVIDIA/nccl-tests/issues/309; fixture
// all_reduce_perf-nccl-tests-309-h100-2x8.txt), two Dell XE9680, NCCL 2.26.2; 8 GiB all-reduce:
// 2 machines algbw 248.92 GB/s (a tree: each NIC carries S) -> 0.622; 8 machines busbw 320.70
// (comment by gj-aion, 2025-06-18; a ring of 64 ranks, 2(n-1)/n S per NIC) -> 0.802. Taken for
// the DGX H100 and Azure ND H100 v5, which have the same eight 400 Gb/s NDR NICs (assumed); point
// to point has no measurement (1).
// Every other instance: no measurement used; its factors are 1 (line rate), and `ckptsim list`
// says so.
const std::vector<EfficiencyPoint> kHgxH100Collective = {{2, 248.92 / 400}, {8, 320.70 / 400}};
constexpr const char* kHgxH100Factors =
    "assumed from an HGX H100 cluster with the same eight 400 Gb/s NDR NICs: collectives nccl-tests issue 309 "
    "(https://github.com/NVIDIA/nccl-tests/issues/309); point to point: line rate, no measurement used";
const std::vector<EfficiencyPoint> kP4dCollective = {{2, 30.49 / 50}, {3, 31.77 / 50}, {4, 29.61 / 50}};
const std::vector<EfficiencyPoint> kP3dnCollective = {{8, 60.0 / 100}, {32, 50.0 / 100}};
constexpr double kEfaP2p = 55.2 / 100;
constexpr const char* kP4dFactors =
    "measured: collectives NCCL issue 527 (https://github.com/NVIDIA/nccl/issues/527), point to point libfabric issue "
    "5694 (https://github.com/ofiwg/libfabric/issues/5694)";
constexpr const char* kP3dnFactors =
    "measured: collectives NCCL issue 235 (https://github.com/NVIDIA/nccl/issues/235), point to point libfabric issue "
    "5694 (https://github.com/ofiwg/libfabric/issues/5694)";
constexpr const char* kLineRate = "line rate: no measurement used";

// The GPU's host link, per direction (effective):
//   PCIe gen3 x16: 12 GB/s, an estimate (75% of the 16 GB/s raw rate; no measurement used);
//   PCIe gen4 x16: 26.28 GB/s host to device, nvbandwidth on Azure ND A100 v4;
//   PCIe gen5 x16: 52 GB/s both ways, nvbandwidth on Azure ND H200 v5;
//   NVLink-C2C (GB200): 201 GB/s host to device (193 device to host), nvbandwidth on ND GB200 v6
//   (Azure AI benchmarking guide, https://github.com/Azure/AI-benchmarking-guide,
//   Azure_Results/ND_*_results.md, "NV Bandwidth").
constexpr double kPcie3 = 12 * kGB;
constexpr double kPcie4 = 26.28 * kGB;
constexpr double kPcie5 = 52 * kGB;
constexpr double kC2c = 201 * kGB;
constexpr const char* kPcie3Source = "estimate: 75% of PCIe gen3 x16's 16 GB/s (no measurement used)";
constexpr const char* kPcie4Source = "measured: PCIe gen4 host to device, nvbandwidth on Azure ND A100 v4 (https://github.com/Azure/AI-benchmarking-guide)";
constexpr const char* kPcie5Source = "measured: PCIe gen5, nvbandwidth on Azure ND H200 v5 (https://github.com/Azure/AI-benchmarking-guide)";
constexpr const char* kC2cSource = "measured: NVLink-C2C host to device, nvbandwidth on Azure ND GB200 v6 (https://github.com/Azure/AI-benchmarking-guide)";

struct HostLink {
  int generation;
  double bandwidth;
  const char* source;
};
constexpr HostLink kGen3{3, kPcie3, kPcie3Source};
constexpr HostLink kGen4{4, kPcie4, kPcie4Source};
constexpr HostLink kGen5{5, kPcie5, kPcie5Source};
constexpr HostLink kNvlinkC2c{0, kC2c, kC2cSource};

std::vector<InstancePreset> make_instances() {
  std::vector<InstancePreset> out;
  auto add = [&](std::string name, std::string description, std::string source, std::string gpu, int gpus,
                 double cpu_memory, double line_rate, std::string network, const HostLink& link, bool gdr) {
    InstancePreset p;
    p.name = std::move(name);
    p.description = std::move(description);
    p.source = std::move(source);
    p.gpu = std::move(gpu);
    p.gpus_per_machine = gpus;
    p.cpu_memory_bytes = cpu_memory;
    p.network_bandwidth = line_rate;
    p.network = std::move(network);
    p.pcie_generation = link.generation;
    p.gpu_cpu_bandwidth = link.bandwidth;
    p.gpu_cpu_source = link.source;
    p.bandwidth_factors = kLineRate;
    p.gpudirect_rdma = gdr;
    out.push_back(std::move(p));
    return &out.back();
  };
  const std::string aws_p4 = "https://aws.amazon.com/ec2/instance-types/p4/";
  const std::string aws_p5 = "https://aws.amazon.com/ec2/instance-types/p5/";
  const std::string gcp = "https://cloud.google.com/compute/docs/accelerator-optimized-machines";

  // AWS p4d.24xlarge — GEMINI §6 testbed: 8 x A100-40GB over NVSwitch, 1152 GiB CPU memory,
  // 400 Gbps network (4 x 100 Gbps EFA), PCIe gen4, GPUDirect RDMA.
  InstancePreset* p4d = add("p4d.24xlarge", "AWS, 8 x A100 40GB (GEMINI testbed)", aws_p4, "a100-sxm4-40gb", 8,
                            1152 * kGiB, 400 * kGbps, "4 x 100 Gbps EFA", kGen4, true);
  p4d->collective_efficiency = kP4dCollective;
  p4d->p2p_efficiency = kEfaP2p;
  p4d->bandwidth_factors = kP4dFactors;
  // AWS p4de.24xlarge: p4d with A100-80GB (same page: 1152 GiB, 400 Gbps EFA). p4d's
  // measurements are not carried over.
  add("p4de.24xlarge", "AWS, 8 x A100 80GB", aws_p4, "a100-sxm4-80gb", 8, 1152 * kGiB, 400 * kGbps,
      "4 x 100 Gbps EFA", kGen4, true);
  // AWS p3dn.24xlarge — GEMINI §6 second testbed: 8 x V100-32GB, 768 GiB CPU memory, 100 Gbps
  // network, PCIe gen3, no GPUDirect RDMA over EFA.
  InstancePreset* p3dn = add("p3dn.24xlarge", "AWS, 8 x V100 32GB (GEMINI testbed)",
                             "https://aws.amazon.com/ec2/instance-types/p3/", "v100-sxm2-32gb", 8, 768 * kGiB,
                             100 * kGbps, "1 x 100 Gbps EFA", kGen3, false);
  p3dn->collective_efficiency = kP3dnCollective;
  p3dn->p2p_efficiency = kEfaP2p;
  p3dn->bandwidth_factors = kP3dnFactors;
  // AWS p5.48xlarge: 8 x H100 80GB, 2 TiB, 3,200 Gbps EFAv2 (32 x 100 Gbps), GPUDirect RDMA.
  add("p5.48xlarge", "AWS, 8 x H100 80GB", aws_p5, "h100-sxm5-80gb", 8, 2048 * kGiB, 3200 * kGbps,
      "32 x 100 Gbps EFAv2", kGen5, true);
  // AWS p5e.48xlarge: 8 x H200 141GB, 2 TiB, 3,200 Gbps EFA.
  add("p5e.48xlarge", "AWS, 8 x H200 141GB", aws_p5, "h200-sxm-141gb", 8, 2048 * kGiB, 3200 * kGbps,
      "32 x 100 Gbps EFA", kGen5, true);
  // GCP A2 (A100): a2-highgpu-8g 8 x A100 40GB, 680 GB; a2-ultragpu-8g 8 x A100 80GB, 1,360 GB;
  // both up to 100 Gbps over gVNIC, without GPUDirect (traffic staged in host memory).
  add("a2-highgpu-8g", "GCP, 8 x A100 40GB", gcp, "a100-sxm4-40gb", 8, 680 * kGB, 100 * kGbps,
      "gVNIC, up to 100 Gbps", kGen4, false);
  add("a2-ultragpu-8g", "GCP, 8 x A100 80GB", gcp, "a100-sxm4-80gb", 8, 1360 * kGB, 100 * kGbps,
      "gVNIC, up to 100 Gbps", kGen4, false);
  // GCP A3 (H100 80GB, 1,872 GB): a3-highgpu-8g, 4 x 200 Gbps GPU NICs with GPUDirect-TCPX
  // (1,000 Gbps with the host NIC); a3-megagpu-8g, 8 x 200 Gbps GPU NICs with GPUDirect-TCPXO
  // (1,800 Gbps with the host NIC). The NICs write GPU memory directly (GPUDirect), so no host
  // staging; the line rate is the GPU NICs'.
  add("a3-highgpu-8g", "GCP, 8 x H100 80GB", gcp, "h100-sxm5-80gb", 8, 1872 * kGB, 800 * kGbps,
      "4 x 200 Gbps GPU NICs (GPUDirect-TCPX)", kGen5, true);
  add("a3-megagpu-8g", "GCP, 8 x H100 80GB", gcp, "h100-sxm5-80gb", 8, 1872 * kGB, 1600 * kGbps,
      "8 x 200 Gbps GPU NICs (GPUDirect-TCPXO)", kGen5, true);
  // Azure ND A100 v4 (Standard_ND96asr_v4): 8 x A100 40GB, 900 GiB, 8 x 200 Gb/s HDR
  // InfiniBand with GPUDirect RDMA.
  add("nd-a100-v4", "Azure Standard_ND96asr_v4, 8 x A100 40GB",
      "https://learn.microsoft.com/en-us/azure/virtual-machines/nda100-v4-series", "a100-sxm4-40gb", 8, 900 * kGiB,
      1600 * kGbps, "8 x 200 Gb/s HDR InfiniBand", kGen4, true);
  // Azure ND H100 v5 (Standard_ND96isr_H100_v5): 8 x H100 80GB, 1,900 GiB, 8 x 400 Gb/s NDR.
  InstancePreset* nd_h100 = add("nd-h100-v5", "Azure Standard_ND96isr_H100_v5, 8 x H100 80GB",
                                "https://learn.microsoft.com/en-us/azure/virtual-machines/nd-h100-v5-series",
                                "h100-sxm5-80gb", 8, 1900 * kGiB, 3200 * kGbps, "8 x 400 Gb/s NDR InfiniBand", kGen5, true);
  nd_h100->collective_efficiency = kHgxH100Collective;
  nd_h100->bandwidth_factors = kHgxH100Factors;
  // NVIDIA DGX A100 (data sheet): 8 x A100-80GB, 2 TB system memory (the larger configuration;
  // GEMINI Table 1 lists 2 TB), compute fabric 8 x 200 Gb/s HDR InfiniBand = 1.6 Tbps.
  add("dgx-a100", "NVIDIA DGX A100, 8 x A100 80GB", "https://www.nvidia.com/en-us/data-center/dgx-a100/",
      "a100-sxm4-80gb", 8, 2 * kTiB, 1600 * kGbps, "8 x 200 Gb/s HDR InfiniBand", kGen4, true);
  // NVIDIA DGX H100 (data sheet): 8 x H100-80GB SXM, 2 TB, 8 x 400 Gb/s NDR = 3.2 Tbps.
  InstancePreset* dgx_h100 = add("dgx-h100", "NVIDIA DGX H100, 8 x H100 80GB", "https://www.nvidia.com/en-us/data-center/dgx-h100/",
                                 "h100-sxm5-80gb", 8, 2 * kTiB, 3200 * kGbps, "8 x 400 Gb/s NDR InfiniBand", kGen5, true);
  dgx_h100->collective_efficiency = kHgxH100Collective;
  dgx_h100->bandwidth_factors = kHgxH100Factors;
  // NVIDIA DGX B200 (data sheet): 8 x B200, 2 TB system memory (up to 4 TB), 8 x 400 Gb/s
  // ConnectX-7 = 3.2 Tbps compute fabric.
  add("dgx-b200", "NVIDIA DGX B200, 8 x B200 180GB", "https://www.nvidia.com/en-us/data-center/dgx-b200/",
      "b200-180gb", 8, 2 * kTiB, 3200 * kGbps, "8 x 400 Gb/s ConnectX-7", kGen5, true);
  // NVIDIA GB200 NVL72: 72 Blackwell GPUs and 36 Grace CPUs in one NVLink domain (NVLink 5, 1.8
  // TB/s per GPU through the NVLink switch trays), 17 TB LPDDR5X (36 x 480 GB), one 400 Gb/s
  // ConnectX-7 per GPU. Modelled as ONE machine of 72 GPUs whose NVLink domain is the machine:
  // a rack fails, is replaced and holds checkpoints as a unit.
  add("gb200-nvl72", "NVIDIA GB200 NVL72 rack as one machine: 72 Blackwell GPUs in one NVLink domain",
      "https://www.nvidia.com/en-us/data-center/gb200-nvl72/", "gb200-186gb", 72, 36 * 480 * kGB,
      72 * 400 * kGbps, "72 x 400 Gb/s ConnectX-7", kNvlinkC2c, true);
  return out;
}

std::vector<ModelPreset> make_models() {
  std::vector<ModelPreset> out;
  // GEMINI §6, Table 2: hidden / FFN / layers / heads; vocabulary 50265 for every model.
  // Note: the 10B shape as given (2560 / 10240 / 46 / 40) counts ~3.75e9 parameters
  // (parameter_count.hpp); the reference notes list it so, and it is kept as listed.
  constexpr int kPaperVocabulary = 50265;
  struct Shape {
    const char* suffix;
    int hidden, ffn, layers, heads;
    const char* note = "";  ///< said in the listing after the source
  };
  constexpr Shape k10b{"10b", 2560, 10240, 46, 40,
                       "; that shape counts 3.7B parameters, not 10B: kept as the paper gives it, set model.parameters "
                       "or the shape for a 10B model"};
  constexpr Shape k20b{"20b", 5120, 20480, 64, 40};
  constexpr Shape k40b{"40b", 5120, 20480, 128, 40};
  constexpr Shape k100b{"100b", 8192, 32768, 124, 64};
  // GPT-2 is a decoder (causal attention); BERT and RoBERTa are encoders (each token attends to
  // the whole sequence).
  auto paper = [&](const std::string& family, const std::string& title, const Shape& s, bool causal) {
    std::string size = s.suffix;
    for (char& c : size) c = static_cast<char>(c == 'b' ? 'B' : c);
    out.push_back({family + "-" + s.suffix, title + " " + size + " (GEMINI Table 2" + s.note + ")", s.layers, s.hidden, s.ffn,
                   s.heads, kPaperVocabulary, std::nullopt, causal});
  };
  for (const Shape& s : {k10b, k20b, k40b, k100b}) paper("gpt2", "GPT-2", s, true);
  for (const Shape& s : {k40b, k100b}) paper("roberta", "RoBERTa", s, false);
  for (const Shape& s : {k40b, k100b}) paper("bert", "BERT", s, false);

  // GPT-3 175B (Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1):
  // 96 layers, d_model 12288, 96 heads, d_ff = 4 d_model = 49152; GPT-2 BPE vocabulary 50257.
  out.push_back({"gpt3-175b", "GPT-3 175B (Brown et al. 2020)", 96, 12288, 49152, 96, 50257, std::nullopt, true});

  // Llama trains without dropout: Meta's reference model (llama/model.py) has no dropout layer
  // and Hugging Face's LlamaConfig defaults attention_dropout to 0.0. The GPT-2, BERT, RoBERTa
  // and GPT-3 rows keep the 0.1 of Megatron-LM's --hidden-dropout and --attention-dropout.
  constexpr double kNoDropout = 0.0;
  // Llama 2 70B (Touvron et al. 2023, "Llama 2"; released config): 80 layers, hidden 8192,
  // SwiGLU FFN 28672, 64 heads with 8 key/value heads (GQA), vocabulary 32000, untied
  // embeddings, no biases. Counted by hand:
  //   attention 2·8192^2 + 2·8192·1024 = 150,994,944; FFN 3·8192·28672 = 704,643,072;
  //   RMSNorms 2·8192 = 16,384 -> 855,654,400 per layer x 80 = 68,452,352,000;
  //   embeddings in and out 2·32000·8192 = 524,288,000; final norm 8192 -> 68,976,648,192.
  constexpr bool kGated = true;
  constexpr bool kUntied = false;
  out.push_back({"llama2-70b", "Llama 2 70B (Touvron et al. 2023; GQA, SwiGLU)", 80, 8192, 28672, 64, 32000,
                 68'976'648'192.0, true, kNoDropout, 8, kGated, kUntied});

  // Llama 3.1 405B (Dubey et al. 2024, "The Llama 3 Herd of Models", Table 3): 126 layers,
  // hidden 16384, FFN 53248, 128 heads with 8 key/value heads, vocabulary 128256, untied.
  //   attention 2·16384^2 + 2·16384·1024 = 570,425,344; FFN 3·16384·53248 = 2,617,245,696;
  //   norms 32,768 -> 3,187,703,808 per layer x 126 = 401,650,679,808;
  //   embeddings 2·128256·16384 = 4,202,692,608; final norm 16384 -> 405,853,388,800.
  out.push_back({"llama3-405b", "Llama 3 405B (Dubey et al. 2024; GQA, SwiGLU)", 126, 16384, 53248, 128, 128256,
                 405'853'388'800.0, true, kNoDropout, 8, kGated, kUntied});

  // Mixtral 8x7B (Jiang et al. 2024, "Mixtral of Experts", Table 1; released config): 32 layers,
  // hidden 4096, 32 heads with 8 key/value heads, vocabulary 32000, untied, no biases; every
  // layer's FFN is 8 SwiGLU experts of 14336, each token routed to 2. Counted by hand:
  //   attention 2·4096^2 + 2·4096·1024 = 41,943,040; experts 8·3·4096·14336 = 1,409,286,144;
  //   router 4096·8 = 32,768; RMSNorms 8,192 -> 1,451,270,144 per layer x 32 = 46,440,644,608;
  //   embeddings 2·32000·4096 = 262,144,000; final norm 4096 -> 46,702,792,704 (the paper: 46.7B).
  out.push_back({"mixtral-8x7b", "Mixtral 8x7B (Jiang et al. 2024; 8 experts, top-2, GQA, SwiGLU)", 32, 4096, 14336, 32,
                 32000, 46'702'792'704.0, true, kNoDropout, 8, kGated, kUntied, 8, 2});
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

ModelSpec preset_model(const ModelPreset& preset) {
  ModelSpec m;
  m.preset = preset.name;
  m.layers = preset.layers;
  m.hidden = preset.hidden;
  m.ffn = preset.ffn;
  m.heads = preset.heads;
  m.vocabulary = preset.vocabulary;
  m.causal = preset.causal;
  m.dropout = preset.dropout;
  m.kv_heads = preset.kv_heads.value_or(preset.heads);
  m.gated_ffn = preset.gated_ffn;
  m.tied_embeddings = preset.tied_embeddings;
  m.experts = preset.experts;
  m.experts_per_token = preset.experts_per_token;
  if (preset.published_parameters) {
    m.parameters = *preset.published_parameters;
  } else if (const auto count = transformer_parameter_count(m)) {
    m.parameters = count->total();
  }
  return m;
}

double preset_parameters(const ModelPreset& preset) { return preset_model(preset).parameters; }

bool has_preset_architecture(const ModelSpec& model, const ModelPreset& preset) {
  const ModelSpec p = preset_model(preset);
  return model.layers == p.layers && model.hidden == p.hidden && model.ffn == p.ffn && model.heads == p.heads &&
         model.kv_heads == p.kv_heads && model.vocabulary == p.vocabulary && model.gated_ffn == p.gated_ffn &&
         model.tied_embeddings == p.tied_embeddings && model.experts == p.experts;
}

}  // namespace ckptsim
