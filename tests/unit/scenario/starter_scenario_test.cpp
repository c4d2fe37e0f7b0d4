// A first scenario from the user's hardware (scenario/starter_scenario.hpp, `ckptsim init`).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/starter_scenario.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

StarterChoices p5_llama2_70b() {
  StarterChoices c;
  c.instance = "p5.48xlarge";
  c.model = "llama2-70b";
  c.machines = 64;
  return c;
}

const StarterField& starter_field(const StarterScenario& s, const std::string& pointer) {
  const auto it = std::find_if(s.fields.begin(), s.fields.end(), [&](const StarterField& f) { return f.pointer == pointer; });
  REQUIRE(it != s.fields.end());
  return *it;
}

/// The problems' pointers of starter_scenario(c), none when it succeeds.
std::vector<std::string> starter_problem_pointers(const StarterChoices& c) {
  std::vector<std::string> out;
  try {
    starter_scenario(c);
  } catch (const InputError& e) {
    for (const auto& p : e.problems()) out.push_back(p.pointer);
  }
  return out;
}

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("starter_scenario: the chosen fields and every deciding field written, with the defaults' sources") {
  const StarterScenario s = starter_scenario(p5_llama2_70b());
  const json doc = json::parse(s.text);
  CHECK(doc.at("/cluster/instance"_json_pointer) == "p5.48xlarge");
  CHECK(doc.at("/cluster/machines"_json_pointer) == 64);
  CHECK(doc.at("/model/preset"_json_pointer) == "llama2-70b");
  CHECK(doc.at("/training/parallelism"_json_pointer) == "zero3");
  CHECK(doc.at("/strategy/kind"_json_pointer) == "gemini");
  // The deciding fields, each a published figure of GEMINI's testbed (docs/references.md,
  // "GEMINI"): 1.5 %/machine/day from the OPT-175B log, detection 15 s, replacement 4-7 min
  // (5 min our choice inside), warm-up 253 s, storage 20 Gbps, serialization 930 MB/s
  // (100.28e9 x 12 B / 16 machines / 81 s); hardware share 0.5 and no spares: our assumption and
  // the table's default.
  CHECK(doc.at("/failures/rate"_json_pointer) == "1.5%/machine/day");
  CHECK(doc.at("/failures/hardware_fraction"_json_pointer) == 0.5);
  CHECK(doc.at("/failures/detection"_json_pointer) == "15s");
  CHECK(doc.at("/failures/replacement"_json_pointer) == "5min");
  CHECK(doc.at("/failures/restart_phases/warmup"_json_pointer) == "253s");
  CHECK(doc.at("/storage/bandwidth"_json_pointer) == "20Gbps");
  CHECK(doc.at("/training/serialization_bandwidth"_json_pointer) == "930MB/s");
  CHECK(doc.at("/cluster/standby_machines"_json_pointer) == 0);
  // Minimal: the objects the scenario format has, nothing else written in them beyond the above
  // (cluster: instance, machines, standby_machines).
  CHECK(doc.at("cluster").size() == 3);
  CHECK(doc.size() == 7);
  // Each default names its origin and the option that replaces it.
  CHECK(starter_field(s, "/failures/rate").source.find("OPT-175B") != std::string::npos);
  CHECK(starter_field(s, "/failures/rate").source.find("--failure-rate") != std::string::npos);
  CHECK(starter_field(s, "/failures/replacement").source.find("4-7 min") != std::string::npos);
  CHECK(starter_field(s, "/failures/replacement").deciding);
  CHECK(starter_field(s, "/cluster/machines").source == "--machines");
  CHECK_FALSE(starter_field(s, "/cluster/machines").deciding);
  // The loaded scenario: 64 x 8 GPUs (p5.48xlarge: 8 x H100), 1.5 % per day = 0.015 / 86400 s.
  CHECK(s.scenario.cluster.gpus_per_machine == 8);
  CHECK(s.scenario.failures.rate == doctest::Approx(0.015 / 86400.0));
  CHECK(s.scenario.failures.replacement.fixed == minutes(5));
}

TEST_CASE("starter_scenario: the restart is the phases' sum at the job's ranks, listed after the warm-up") {
  const StarterScenario s = starter_scenario(p5_llama2_70b());
  // 512 ranks with the phase defaults (docs/references.md, "Restart phases"): warm-up 253 s +
  // process start 5 s + rendezvous 512 x 1.017 ms = 0.520704 s + communicator init
  // 0.66 s + 3 x 511 x 0.896 ms = 2.033568 s + first iteration 0 = 260.554272 s.
  CHECK(starter_field(s, "/failures/restart").value == "260.554s");
  CHECK(starter_field(s, "/failures/restart").deciding);
  const auto warmup = std::find_if(s.fields.begin(), s.fields.end(),
                                   [](const StarterField& f) { return f.pointer == "/failures/restart_phases/warmup"; });
  REQUIRE(warmup + 1 != s.fields.end());
  CHECK((warmup + 1)->pointer == "/failures/restart");
  // Not written: a restart computed from the phases keeps scaling when the machines change.
  CHECK_FALSE(json::parse(s.text).at("failures").contains("restart"));
  // Chosen fields come before the deciding ones.
  const auto first_deciding = std::find_if(s.fields.begin(), s.fields.end(), [](const StarterField& f) { return f.deciding; });
  CHECK(std::none_of(first_deciding, s.fields.end(), [](const StarterField& f) { return !f.deciding; }));
}

TEST_CASE("starter_scenario: an option replaces a default, and its source is the option") {
  StarterChoices c = p5_llama2_70b();
  c.failure_rate = "0.4%/machine/day";
  c.replacement = "2h";
  c.spares = 3;
  c.hardware_fraction = "0.25";
  const StarterScenario s = starter_scenario(c);
  const json doc = json::parse(s.text);
  CHECK(doc.at("/failures/rate"_json_pointer) == "0.4%/machine/day");
  CHECK(doc.at("/failures/replacement"_json_pointer) == "2h");
  CHECK(doc.at("/cluster/standby_machines"_json_pointer) == 3);
  CHECK(doc.at("/failures/hardware_fraction"_json_pointer) == 0.25);
  CHECK(starter_field(s, "/failures/rate").source == "--failure-rate");
  CHECK(starter_field(s, "/cluster/standby_machines").source == "--spares");
  CHECK(s.scenario.failures.replacement.fixed == hours(2));
  CHECK(s.scenario.cluster.standby_machines == 3);
}

TEST_CASE("starter_scenario: megatron layout options choose megatron, and dp follows from the GPUs") {
  StarterChoices c;
  c.instance = "dgx-h100";
  c.model = "llama2-70b";
  c.machines = 64;
  c.tp = 8;
  c.pp = 4;
  const StarterScenario s = starter_scenario(c);
  const json doc = json::parse(s.text);
  CHECK(doc.at("/training/parallelism"_json_pointer) == "megatron");
  CHECK(doc.at("/training/megatron/tp"_json_pointer) == 8);
  CHECK_FALSE(doc.at("/training/megatron"_json_pointer).contains("dp"));
  // 64 machines x 8 GPUs / (tp 8 x pp 4) = 16.
  REQUIRE(s.scenario.training.megatron.dp.has_value());
  CHECK(*s.scenario.training.megatron.dp == 16);
}

TEST_CASE("starter_scenario: every bad choice at once, each under its option") {
  StarterChoices c;
  c.instance = "p5.48xlarg";
  c.model = "llama-70b";
  c.machines = 0;
  c.spares = -1;
  c.strategy = "gemni";
  c.failure_rate = "2/day";
  CHECK(starter_problem_pointers(c) == std::vector<std::string>{"--instance", "--model", "--machines", "--spares",
                                                                "--strategy", "--failure-rate"});
  try {
    starter_scenario(c);
  } catch (const InputError& e) {
    CHECK(e.problems()[0].file == "<command line>");
    CHECK(e.problems()[0].found == "\"p5.48xlarg\" (did you mean \"p5.48xlarge\"?)");
    CHECK(e.problems()[0].expected.find("\"p5.48xlarge\"") != std::string::npos);
  }
  CHECK(starter_problem_pointers(StarterChoices{}) == std::vector<std::string>{"--instance", "--model", "--machines"});
}

TEST_CASE("starter_scenario: the layout must cover the GPUs, named by its options") {
  StarterChoices c = p5_llama2_70b();  // 64 x 8 = 512 GPUs
  c.tp = 3;
  CHECK(starter_problem_pointers(c) == std::vector<std::string>{"--tp x --pp x --cp"});
  c.tp = 8;
  c.dp = 8;  // 8 x 1 x 1 x 8 = 64, not 512
  CHECK(starter_problem_pointers(c) == std::vector<std::string>{"--tp x --pp x --cp x --dp"});
  c.dp.reset();
  c.parallelism = "zero3";
  CHECK(starter_problem_pointers(c) == std::vector<std::string>{"--tp"});
  c = p5_llama2_70b();
  c.tp = 0;
  CHECK(starter_problem_pointers(c) == std::vector<std::string>{"--tp"});
  c = p5_llama2_70b();
  c.parallelism = "megatron";
  c.engine = "fsdp";
  CHECK(starter_problem_pointers(c) == std::vector<std::string>{"--engine"});
}

TEST_CASE("starter_scenario: the loader's problems name the option that wrote the field") {
  StarterChoices c;
  c.instance = "dgx-h100";
  c.model = "llama2-70b";
  c.machines = 4;  // 32 GPUs = tp 16 x dp 2: covered, but a tensor group of 16 spans two machines of 8 GPUs
  c.tp = 16;
  c.dp = 2;
  CHECK(starter_problem_pointers(c) == std::vector<std::string>{"/training/megatron/tp (--tp)"});
}

TEST_CASE("starter_scenario: a GPU type alone needs the machine's figures, and writes them") {
  StarterChoices c;
  c.gpu = "h100-sxm5-80gb";
  c.model = "llama2-70b";
  c.machines = 16;
  CHECK(starter_problem_pointers(c) ==
        std::vector<std::string>{"--gpus-per-machine", "--cpu-memory", "--network-bandwidth", "--gpu-cpu-bandwidth"});
  c.gpus_per_machine = 8;
  c.cpu_memory = "1TiB";
  c.network_bandwidth = "400Gbps";
  c.gpu_cpu_bandwidth = "25GB/s";
  const StarterScenario s = starter_scenario(c);
  const json doc = json::parse(s.text);
  CHECK(doc.at("/cluster/gpu"_json_pointer) == "h100-sxm5-80gb");
  CHECK(doc.at("/cluster/cpu_memory"_json_pointer) == "1TiB");
  CHECK_FALSE(doc.at("cluster").contains("instance"));
  // 400 Gbps = 50e9 bytes/s.
  CHECK(s.scenario.cluster.network_bandwidth == doctest::Approx(50e9));
  c.cpu_memory = "lots";
  CHECK(starter_problem_pointers(c) == std::vector<std::string>{"--cpu-memory"});
}

TEST_SUITE_END();
