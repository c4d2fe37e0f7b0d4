// Steps of a PyTorch profiler trace on the GPU's clock (issue 40): a kernel belongs to the step
// that launched it, a step's window runs from its first GPU event to the next step's, so a host
// running ahead of the GPU moves nothing; ROCm traces (hip launches, ac2g flows, RCCL and
// Tensile kernel names); steps with different numbers of idle spans matched by overlap
// (calibration/torch_profiler.hpp).
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/gzip_input.hpp"
#include "ckptsim/calibration/kernel_classes.hpp"
#include "ckptsim/calibration/torch_profiler.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

std::string what_of(const auto& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Four training steps on the GPU, period P = 100 ms, step k (1..4) starting at k P. Per step,
// times in ms from its start: GEMM [0, 30), all-reduce [30, 50), GEMM [60, 80), all-reduce
// [80, 90), optimizer [92, 95). The host's ProfilerStep#k annotation and the kernels' launches:
//   in step (lag 0): annotation [k P - 1, (k+1) P - 1), each launch 0.5 ms before its kernel;
//   ahead (lag > 0): the host runs a 40 ms period from 0, so annotation k is [40 k, 40 (k+1)),
//                    its five launches at 40 k + 1, + 2, ... + 5: step 1's first kernel starts 59 ms
//                    after its launch, step 4's 239 ms after (the host runs more than 2 steps ahead).
json synthetic_trace(bool ahead) {
  json ev = json::array();
  struct K {
    const char* name;
    double from, to;
  };
  const K kernels[] = {{"sm90_xmma_gemm_bf16", 0, 30}, {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 30, 50},
                       {"sm90_xmma_gemm_bf16", 60, 80}, {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 80, 90},
                       {"void multi_tensor_apply_kernel<AdamFunctor>", 92, 95}};
  int correlation = 1;
  for (int k = 1; k <= 4; ++k) {
    const double step_us = k * 100e3;
    const double host_us = ahead ? k * 40e3 : step_us - 1e3;
    ev.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#" + std::to_string(k)}, {"ts", host_us}, {"dur", ahead ? 40e3 : 100e3}});
    for (int j = 0; j < 5; ++j) {
      const double start = step_us + kernels[j].from * 1e3, dur = (kernels[j].to - kernels[j].from) * 1e3;
      const double launch = ahead ? host_us + (j + 1) * 1e3 : start - 500;
      ev.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"ts", launch}, {"dur", 5}, {"args", {{"correlation", correlation}}}});
      ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", kernels[j].name}, {"pid", 0}, {"tid", 7}, {"ts", start}, {"dur", dur},
                    {"args", {{"correlation", correlation}}}});
      ++correlation;
    }
  }
  return {{"traceEvents", ev}};
}

void check_spans(const ProfiledStep& s, const std::vector<std::pair<double, double>>& expected) {
  REQUIRE(s.idle_spans.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(s.idle_spans[i].first == doctest::Approx(expected[i].first).epsilon(1e-9));
    CHECK(s.idle_spans[i].second == doctest::Approx(expected[i].second).epsilon(1e-9));
  }
}

}  // namespace

TEST_CASE("torch profiler: a host running two steps ahead of the GPU gives the same steps and idle spans") {
  const ProfiledRank in_step = parse_torch_profiler(synthetic_trace(false), "a.json", 0, {});
  const ProfiledRank ahead = parse_torch_profiler(synthetic_trace(true), "b.json", 0, {});
  for (const ProfiledRank* r : {&in_step, &ahead}) {
    CHECK_FALSE(r->host_windows);
    REQUIRE(r->steps.size() == 4);
    for (int k = 0; k < 4; ++k) {
      const ProfiledStep& s = r->steps[static_cast<std::size_t>(k)];
      CHECK(s.step == k + 1);
      // Steps 1-3 run from their first kernel to the next step's (100 ms); step 4, the last,
      // to its optimizer's end (95 ms).
      const double t = k < 3 ? 0.100 : 0.095;
      CHECK(s.iteration_time_s == doctest::Approx(t).epsilon(1e-9));
      CHECK(s.gpu_start_s == doctest::Approx((k + 1) * 0.1).epsilon(1e-9));
      // Idle: the gaps between the all-reduces [30, 50) and [80, 90): [0, 30), [50, 80), [90, T).
      check_spans(s, {{0, 0.030}, {0.050, 0.030}, {0.090, t - 0.090}});
      // Busy 30 ms; every kernel of the step counted in its classes: 2 GEMMs of 20 and 30 ms.
      CHECK(s.network_busy_s == doctest::Approx(0.030).epsilon(1e-9));
      CHECK(s.classes.at("gemm").count == 2);
      CHECK(s.classes.at("gemm").seconds == doctest::Approx(0.050).epsilon(1e-9));
      REQUIRE(s.collectives.size() == 2);
      CHECK(s.collectives[0].collective == "allreduce");
    }
    // The last step's end is not in the trace: said, not silently assumed.
    bool noted = false;
    for (const std::string& n : r->notes) noted = noted || n.find("ProfilerStep#4, the last with GPU work") != std::string::npos;
    CHECK(noted);
  }
}

TEST_CASE("torch profiler: without any launch link, steps fall back to the host's annotations, with a note") {
  json trace = synthetic_trace(false);
  for (json& e : trace["traceEvents"]) e.erase("args");
  const ProfiledRank r = parse_torch_profiler(trace, "t.json", 0, {});
  CHECK(r.host_windows);
  REQUIRE(r.steps.size() == 4);
  // Host windows: [g0, g0 + 100 ms), g0 the first kernel by its own start: every step 100 ms
  // with the spans [0, 30), [50, 80), [90, 100) ms.
  check_spans(r.steps[3], {{0, 0.030}, {0.050, 0.030}, {0.090, 0.010}});
  REQUIRE_FALSE(r.notes.empty());
  CHECK(r.notes.front().find("cut on the host's ProfilerStep annotations") != std::string::npos);
}

TEST_CASE("torch profiler: a ROCm trace (hip launches, ac2g flows, RCCL and Tensile kernels) is read") {
  // HTA's MI250 trace shape (tests/fixtures/torch-profiler/README.md): hipLaunchKernel without a
  // correlation arg, linked to its kernel by an ac2g flow ("s" at the launch, "f" where the
  // kernel starts); one kernel with args.correlation, one without (linked by the flow's end).
  // Step [0, 1000) us: Tensile GEMM [100, 300), RCCL all-reduce [300, 400) (collective from
  // its arg), RCCL generic kernel [500, 550) without a collective name.
  json ev = json::array({
      {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#3"}, {"pid", 1}, {"tid", 1}, {"ts", 0}, {"dur", 1000}},
      {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "hipExtModuleLaunchKernel"}, {"pid", 1}, {"tid", 1}, {"ts", 10}, {"dur", 5}},
      {{"ph", "s"}, {"cat", "ac2g"}, {"name", "ac2g"}, {"id", 21}, {"pid", 1}, {"tid", 1}, {"ts", 10}},
      {{"ph", "X"}, {"cat", "kernel"}, {"name", "Cijk_Alik_Bljk_SB_MT64x16x32_MI16x16x1_SN"}, {"pid", 2}, {"tid", 0}, {"ts", 100}, {"dur", 200},
       {"args", {{"correlation", 21}}}},
      {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "hipLaunchKernel"}, {"pid", 1}, {"tid", 1}, {"ts", 20}, {"dur", 5}},
      {{"ph", "s"}, {"cat", "ac2g"}, {"name", "ac2g"}, {"id", 22}, {"pid", 1}, {"tid", 1}, {"ts", 20}},
      {{"ph", "X"}, {"cat", "kernel"}, {"name", "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"}, {"pid", 2}, {"tid", 1}, {"ts", 300},
       {"dur", 100}, {"args", {{"correlation", 22}, {"Collective name", "allreduce"}}}},
      {{"ph", "s"}, {"cat", "ac2g"}, {"name", "ac2g"}, {"id", 23}, {"pid", 1}, {"tid", 1}, {"ts", 30}},
      {{"ph", "f"}, {"cat", "ac2g"}, {"name", "ac2g"}, {"id", 23}, {"pid", 2}, {"tid", 1}, {"ts", 500}, {"bp", "e"}},
      {{"ph", "X"}, {"cat", "kernel"}, {"name", "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"}, {"pid", 2}, {"tid", 1}, {"ts", 500},
       {"dur", 50}},
  });
  const ProfiledRank r = parse_torch_profiler(json{{"traceEvents", ev}}, "mi.json", 0, {});
  CHECK_FALSE(r.host_windows);
  CHECK(r.notes.size() == 1);  // only the last step's end
  REQUIRE(r.steps.size() == 1);
  const ProfiledStep& s = r.steps[0];
  // Window [100, 550) us: 450 us; idle [0, 200) and [300, 400) us, busy 150 us.
  CHECK(s.iteration_time_s == doctest::Approx(450e-6).epsilon(1e-9));
  check_spans(s, {{0, 200e-6}, {300e-6, 100e-6}});
  CHECK(s.classes.at("gemm").count == 1);
  CHECK(s.classes.at("nccl").count == 2);
  REQUIRE(s.collectives.size() == 2);
  CHECK(s.collectives[0].collective == "allreduce");
  CHECK(s.collectives[1].collective == "");  // "Generic" names no collective
  // The names, one by one (kernel_classes.hpp).
  CHECK(kernel_class("ncclKernel_AllReduce_RING_LL_Sum_float") == "nccl");
  CHECK(kernel_class("mscclKernel_Sum_float_LL") == "nccl");
  CHECK(nccl_collective("ncclDevKernel_Generic", "") == "");
  CHECK(nccl_collective("ncclKernel_ReduceScatter_RING_SIMPLE_Sum_half", "") == "reducescatter");
  CHECK(nccl_collective("mscclKernel_Sum_float_LL", "") == "");
}

TEST_CASE("torch profiler: kernels without any collective, or no GPU work at all, are refused with the reason") {
  json ev = json::array({
      {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#1"}, {"ts", 0}, {"dur", 1000}},
      {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#2"}, {"ts", 1000}, {"dur", 50}},
      {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "hipLaunchKernel"}, {"ts", 10}, {"dur", 5}, {"args", {{"correlation", 5}}}},
      {{"ph", "X"}, {"cat", "kernel"}, {"name", "Cijk_Ailk_Bjlk_SB"}, {"ts", 100}, {"dur", 200}, {"args", {{"correlation", 5}}}},
  });
  // Step 2 launched nothing (the MI250 trace's last step): left out with a note; then no
  // collective: refused naming the kernels found, not as a CPU-only trace.
  const std::string why = what_of([&] { (void)parse_torch_profiler(json{{"traceEvents", ev}}, "t.json", 0, {}); });
  CHECK(why.find("1 kernels and no collective among them (gemm 1)") != std::string::npos);
  CHECK(why.find("CPU-only") == std::string::npos);
  json cpu = json::array({ev[0], ev[2]});
  CHECK(what_of([&] { (void)parse_torch_profiler(json{{"traceEvents", cpu}}, "t.json", 0, {}); }).find("no GPU event") != std::string::npos);
}

TEST_CASE("torch profiler: steps with different numbers of idle spans are matched by overlap") {
  ProfiledRank r;
  r.file = "t.json";
  ProfiledStep a, b;
  a.step = 1, b.step = 2;
  a.iteration_time_s = b.iteration_time_s = 0.1;
  // Step 1 (3 spans, the fewest: the reference): [0, 30), [50, 80), [90, 100) ms. Step 2 has a
  // fourth, 0.1 ms gap at [40, 40.1) overlapping none of step 1's: dropped; its other spans
  // overlap step 1's in order and are kept.
  a.idle_spans = {{0, 0.030}, {0.050, 0.030}, {0.090, 0.010}};
  b.idle_spans = {{0, 0.031}, {0.040, 0.0001}, {0.051, 0.029}, {0.090, 0.010}};
  r.steps = {a, b};
  std::vector<std::string> notes;
  const json p = idle_span_profile({r}, "t", &notes);
  REQUIRE(p["iterations"].size() == 2);
  CHECK(p["iterations"][0]["spans"] == json::array({{0, 0.030}, {0.050, 0.030}, {0.090, 0.010}}));
  CHECK(p["iterations"][1]["spans"] == json::array({{0, 0.031}, {0.051, 0.029}, {0.090, 0.010}}));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("3 kept in every step") != std::string::npos);
  CHECK(notes[0].find("rank 0 step 2: 1 of 4 (0.100 ms)") != std::string::npos);
  // A reference span without a partner in some step is dropped from every step: step 3 has no
  // gap overlapping [50, 80), so only 2 spans remain, in each of the three steps.
  ProfiledStep c = b;
  c.step = 3;
  c.idle_spans = {{0, 0.030}, {0.040, 0.001}, {0.085, 0.002}, {0.090, 0.010}};
  r.steps = {a, b, c};
  notes.clear();
  const json q = idle_span_profile({r}, "t", &notes);
  CHECK(q["iterations"][0]["spans"] == json::array({{0, 0.030}, {0.090, 0.010}}));
  CHECK(q["iterations"][2]["spans"] == json::array({{0, 0.030}, {0.090, 0.010}}));
  // No span common to all: refused, listing the counts.
  ProfiledStep d = a;
  d.step = 4;
  d.idle_spans = {{0.031, 0.018}};
  r.steps = {a, d};
  CHECK(what_of([&] { (void)idle_span_profile({r}, "t"); }).find("rank 0 step 1: 3, rank 0 step 4: 1") != std::string::npos);
}

TEST_CASE("kernel classes: PyTorch's {lambda()#1} is no LAMB optimizer") {
  // The optimizer rule once matched "lamb" inside "lambda": 288 of the 1,154 kernels of
  // hta-sampled-rank-0 were counted as optimizer.
  CHECK(kernel_class("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>({lambda()#1})") == "elementwise");
  CHECK(kernel_class("void at::native::unrolled_elementwise_kernel<direct_copy_kernel_cuda::{lambda()#2}>") == "elementwise");
  CHECK(kernel_class("lamb_cuda_kernel_part1") == "optimizer");
  CHECK(kernel_class("void multi_tensor_apply_kernel<LAMBStage1Functor<float>>") == "optimizer");
}

TEST_CASE("torch profiler: HTA's MI250 trace (ROCm 6.2, no collective) is read and refused for its lack of collectives") {
  // tests/fixtures/torch-profiler/README.md: 14 kernels linked to hipLaunchKernel /
  // hipExtModuleLaunchKernel by ac2g flows only; 2 Tensile GEMMs (Cijk_*), 1 multi_tensor_apply
  // optimizer kernel, 11 elementwise and reduce kernels; ProfilerStep#2 launches nothing.
  const std::string path = std::string(CKPTSIM_SOURCE_ROOT) + "/tests/fixtures/torch-profiler/hta-mi250-rocm62.json.gz";
  const std::string why = what_of([&] { (void)parse_torch_profiler(parse_json_strict(read_maybe_gzip_file(path, "trace", 1 << 28), path), path, 0, {}); });
  CHECK(why.find("14 kernels and no collective among them (elementwise 11, gemm 2, optimizer 1)") != std::string::npos);
  CHECK(why.find("CPU-only") == std::string::npos);
}

TEST_CASE("torch profiler: events the importer does not read are dropped while parsing, with the same result") {
  const JsonArrayFilter filter{"traceEvents", torch_profiler_reads};
  for (const char* name : {"hta-sampled-rank-0", "hta-nccl-data-rank-0"}) {
    const std::string path = std::string(CKPTSIM_SOURCE_ROOT) + "/tests/fixtures/torch-profiler/" + name + ".json.gz";
    const std::string text = read_maybe_gzip_file(path, "trace", 1 << 28);
    const json whole = parse_json_strict(text, path), lean = parse_json_strict(text, path, filter);
    // Same indices (pointers), fewer events held: hta-sampled-rank-0's 2,329 cpu_op events go.
    REQUIRE(lean["traceEvents"].size() == whole["traceEvents"].size());
    std::size_t dropped = 0;
    for (const json& e : lean["traceEvents"]) dropped += e.is_null();
    CHECK(dropped > 0);
    if (std::string(name) == "hta-sampled-rank-0") CHECK(dropped >= 2329);
    const ProfiledRank a = parse_torch_profiler(whole, path, 0, {}), b = parse_torch_profiler(lean, path, 0, {});
    REQUIRE(a.steps.size() == b.steps.size());
    for (std::size_t s = 0; s < a.steps.size(); ++s) {
      CHECK(a.steps[s].idle_spans == b.steps[s].idle_spans);
      CHECK(a.steps[s].iteration_time_s == b.steps[s].iteration_time_s);
      CHECK(a.steps[s].classes.size() == b.steps[s].classes.size());
    }
  }
  // A bad time after a dropped event is reported at its own index; a key written twice in a
  // dropped event is still refused.
  const std::string bad = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": -5}]})";
  CHECK(what_of([&] { (void)parse_torch_profiler(parse_json_strict(bad, "t.json", filter), "t.json", 0, {}); }).find("/traceEvents/1/dur") != std::string::npos);
  const std::string twice = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "cat": "cpu_op"}]})";
  CHECK(what_of([&] { (void)parse_json_strict(twice, "t.json", filter); }).find("/traceEvents/0/cat") != std::string::npos);
}
