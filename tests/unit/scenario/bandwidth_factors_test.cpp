// Bandwidth factors and host staging per instance preset
// (scenario/presets.hpp; sources in presets.cpp and docs/references.md, "Bandwidth factors").
#include <doctest/doctest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "../common/scenario_documents.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

const InstancePreset& preset(const char* name) {
  const InstancePreset* p = find_instance_preset(name);
  REQUIRE(p != nullptr);
  return *p;
}

/// The shared minimal document on `machines` of `instance`, training GPT-2 40B (which fits on
/// both testbeds).
json minimal(const char* instance, int machines) {
  json doc = test::minimal_scenario_document();
  doc["model"]["preset"] = "gpt2-40b";
  doc["cluster"] = {{"instance", instance}, {"machines", machines}};
  return doc;
}

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("bandwidth factors: p4d at and between the published node counts") {
  // NCCL issue 527, 1 GiB all-reduce on p4d (line rate 400 Gbps = 50 GB/s): 2 nodes algbw
  // 30.49 GB/s (tree: the NIC's rate), 3 nodes busbw 31.77, 4 nodes busbw 29.61.
  const auto& points = preset("p4d.24xlarge").collective_efficiency;
  CHECK(collective_efficiency_at(points, 2) == doctest::Approx(0.6098));
  CHECK(collective_efficiency_at(points, 3) == doctest::Approx(0.6354));
  CHECK(collective_efficiency_at(points, 4) == doctest::Approx(0.5922));
  // Clamped outside the measured range: 1 node takes the 2-node value, 16 the 4-node value.
  CHECK(collective_efficiency_at(points, 1) == doctest::Approx(0.6098));
  CHECK(collective_efficiency_at(points, 16) == doctest::Approx(0.5922));
  CHECK(collective_efficiency_at(points, 1024) == doctest::Approx(0.5922));
}

TEST_CASE("bandwidth factors: p3dn interpolates linearly in log2(nodes)") {
  // NCCL issue 235: 60 Gb/s at 8 nodes, 50 Gb/s at 32, of 100 Gb/s.
  const auto& points = preset("p3dn.24xlarge").collective_efficiency;
  CHECK(collective_efficiency_at(points, 8) == doctest::Approx(0.60));
  CHECK(collective_efficiency_at(points, 32) == doctest::Approx(0.50));
  // 16 nodes: log2 16 = 4 is halfway between 3 and 5 -> 0.60 + (0.50 - 0.60) / 2 = 0.55.
  CHECK(collective_efficiency_at(points, 16) == doctest::Approx(0.55));
  // 12 nodes: (log2 12 - 3) / 2 = 0.2925 of the way -> 0.60 - 0.1 x 0.2925 = 0.57075.
  CHECK(collective_efficiency_at(points, 12) == doctest::Approx(0.60 - 0.1 * (std::log2(12.0) - 3) / 2));
  CHECK(collective_efficiency_at(points, 2) == doctest::Approx(0.60));   // clamped below
  CHECK(collective_efficiency_at(points, 64) == doctest::Approx(0.50));  // clamped above
  CHECK(collective_efficiency_at({}, 16) == 1.0);                        // no measurement: line rate
}

TEST_CASE("bandwidth factors: point to point and GPUDirect RDMA per preset; p4d and p3dn measured, HGX H100's taken") {
  // libfabric issue 5694: fi_rdm_tagged_bw 6,899.89 MB/s over 100 Gbps EFA = 55.2%.
  CHECK(preset("p4d.24xlarge").p2p_efficiency == doctest::Approx(0.552));
  CHECK(preset("p3dn.24xlarge").p2p_efficiency == doctest::Approx(0.552));
  CHECK(preset("p4d.24xlarge").gpudirect_rdma);
  CHECK_FALSE(preset("p3dn.24xlarge").gpudirect_rdma);  // aws-ofi-nccl issue 104
  // nccl-tests issue 309, 8 GiB all-reduce on HGX H100 with eight 400 Gb/s NDR NICs (400 GB/s):
  // 2 machines algbw 248.92 (a tree) -> 0.6223; 8 machines busbw 320.70 (a ring) -> 0.80175;
  // taken for the DGX H100 and ND H100 v5 (the same NICs), and said to be taken.
  for (const char* name : {"dgx-h100", "nd-h100-v5"}) {
    CAPTURE(name);
    CHECK(collective_efficiency_at(preset(name).collective_efficiency, 2) == doctest::Approx(248.92 / 400));
    CHECK(collective_efficiency_at(preset(name).collective_efficiency, 128) == doctest::Approx(320.70 / 400));
    CHECK(preset(name).bandwidth_factors.rfind("assumed from an HGX H100", 0) == 0);
    CHECK(preset(name).p2p_efficiency == 1.0);
  }
  // Every other instance has no measurement: line rate, and it says so.
  for (const InstancePreset& p : instance_presets()) {
    const bool measured = p.name == "p4d.24xlarge" || p.name == "p3dn.24xlarge";
    const bool taken = p.name == "dgx-h100" || p.name == "nd-h100-v5";
    CAPTURE(p.name);
    CHECK(p.measured_factors() == (measured || taken));
    if (taken) continue;
    CHECK(p.bandwidth_factors.rfind(measured ? "measured: " : "line rate", 0) == 0);
    if (!measured) {
      CHECK(p.p2p_efficiency == 1.0);
      CHECK(p.collective_efficiency.empty());
    }
  }
}

TEST_CASE("loader: factors from the preset at the machine count, overridable") {
  Scenario s = load_scenario_json(minimal("p3dn.24xlarge", 16), "p3dn.json", ".");
  CHECK(s.cluster.network.collective_efficiency == doctest::Approx(0.55));
  CHECK(s.cluster.network.p2p_efficiency == doctest::Approx(0.552));
  CHECK_FALSE(s.cluster.gpudirect_rdma);
  CHECK_FALSE(s.training.compute_efficiency.has_value());  // no preset default: the kernel model

  s = load_scenario_json(minimal("p3dn.24xlarge", 32), "p3dn.json", ".");
  CHECK(s.cluster.network.collective_efficiency == doctest::Approx(0.50));

  json doc = minimal("p3dn.24xlarge", 16);
  doc["cluster"]["gpudirect_rdma"] = true;
  doc["cluster"]["network"] = {{"collective_efficiency", 0.9}, {"p2p_efficiency", 0.8}};
  doc["training"]["compute_efficiency"] = 0.3;
  s = load_scenario_json(doc, "override.json", ".");
  CHECK(s.cluster.network.collective_efficiency == 0.9);
  CHECK(s.cluster.network.p2p_efficiency == 0.8);
  CHECK(s.cluster.gpudirect_rdma);
  CHECK(s.training.compute_efficiency == 0.3);  // the explicit override

  doc["cluster"]["network"]["collective_efficiency"] = 1.5;  // above line rate: refused
  CHECK_THROWS(load_scenario_json(doc, "bad.json", "."));
}

TEST_CASE("loader: without an instance the factors are 1, no GPU type and no compute efficiency") {
  json doc = minimal("p4d.24xlarge", 16);
  doc["cluster"] = json::parse(R"({"machines": 16, "gpus_per_machine": 8, "gpu_memory": "40GiB",
    "cpu_memory": "1152GiB", "network_bandwidth": "400Gbps", "gpu_cpu_bandwidth": "25GB/s",
    "nvlink_bandwidth": "300GB/s", "gpu_peak_flops": "312TFLOPS", "gpu_memory_bandwidth": "1555GB/s"})");
  const Scenario s = load_scenario_json(doc, "explicit.json", ".");
  CHECK(s.cluster.network.collective_efficiency == 1.0);
  CHECK(s.cluster.network.p2p_efficiency == 1.0);
  CHECK(s.cluster.gpudirect_rdma);
  CHECK_FALSE(s.training.compute_efficiency.has_value());
  CHECK(s.cluster.gpu.empty());
  CHECK(s.cluster.kernels.sms == 0);  // unknown: the kernel model refuses (kernel_time_test.cpp)
}

TEST_SUITE_END();
