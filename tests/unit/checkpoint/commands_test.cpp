// `ckptsim iteration` and `ckptsim schedule` end to end on the paper scenario
// (src/cli/command_iteration.cpp, command_schedule.cpp).
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ckptsim/cli/commands.hpp"

namespace {

const std::string kPaper = CKPTSIM_SOURCE_ROOT "/scenarios/paper/gpt2-100b-16xp4d.json";

int run(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::ostringstream o, e;
  const int rc = ckptsim::cli::dispatch(args, o, e);
  out = o.str();
  err = e.str();
  return rc;
}

}  // namespace

TEST_CASE("ckptsim iteration --json: every scheduler with the documented keys") {
  std::string out, err;
  REQUIRE(run({"iteration", kPaper, "--json"}, out, err) == 0);
  const auto doc = nlohmann::json::parse(out);
  for (const char* name : {"blocking", "naive", "single-buffer", "gemini"}) {
    CAPTURE(name);
    const auto& s = doc.at("schedulers").at(name);
    for (const char* key : {"iteration_time_s", "iteration_time_with_checkpoint_s", "idle_time_s", "checkpoint_time_s",
                            "gpu_buffer_bytes", "oom"}) {
      CHECK(s.contains(key));
    }
    CHECK(s.at("iteration_time_with_checkpoint_s").get<double>() >= s.at("iteration_time_s").get<double>());
  }
  // gemini: R = 128 MiB = 134,217,728 bytes reserved per GPU.
  CHECK(doc["schedulers"]["gemini"]["gpu_buffer_bytes"].get<double>() == doctest::Approx(134217728.0));
}

TEST_CASE("ckptsim iteration --trace writes Chrome trace events") {
  const std::string path = "ckptsim_iteration_trace_test.json";
  std::string out, err;
  REQUIRE(run({"iteration", kPaper, "--scheduler", "gemini", "--trace", path, "--trace-machines", "2"}, out, err) == 0);
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  std::remove(path.c_str());
  std::set<std::string> categories;
  std::set<int> machines;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    categories.insert(e.at("cat").get<std::string>());
    machines.insert(e.at("pid").get<int>());
  }
  CHECK(machines == std::set<int>{0, 1});
  for (const char* c : {"forward", "backward", "all-gather", "reduce-scatter", "checkpoint-chunk", "gpu-to-cpu-copy", "local-copy"}) {
    CHECK(categories.count(c) == 1);
  }
}

TEST_CASE("ckptsim schedule -o: per-rank chunk plan") {
  const std::string path = "ckptsim_schedule_test.json";
  std::string out, err;
  REQUIRE(run({"schedule", kPaper, "-o", path}, out, err) == 0);
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  std::remove(path.c_str());
  CHECK(doc.at("format") == "ckptsim-plan/1");
  // 16 machines x 8 GPUs.
  REQUIRE(doc.at("ranks").size() == 128);
  // Group placement, m = 2: machine 0 pairs with machine 1, so rank 3 (machine 0, GPU 3) sends
  // to rank 1·8 + 3 = 11.
  CHECK(doc["ranks"][3]["peers"] == nlohmann::json::array({11}));
  double sent = 0;
  for (const auto& c : doc["ranks"][3]["chunks"]) {
    sent += c.at("bytes").get<double>();
    CHECK(c.at("bytes").get<double>() <= 32.0 * 1024 * 1024);  // R/p
  }
  CHECK(sent == doctest::Approx(doc["parameters"]["shard_bytes"].get<double>()));
  CHECK(!doc["iteration"]["operations"].empty());
}

TEST_CASE("bad usage exits with code 2") {
  std::string out, err;
  CHECK(run({"iteration", kPaper, "--scheduler", "fastest"}, out, err) == 2);
  CHECK(err.find("gemini") != std::string::npos);
  CHECK(run({"schedule", kPaper}, out, err) == 2);
  CHECK(run({"iteration"}, out, err) == 2);
}
