// The PyTorch profiler importer against the simulated clock's range (docs/limits.md, "Clock
// range"): a duration of at most 100 years, an instant within +-2^63 ns. Beyond them an event is
// refused with the file, its pointer, what was expected and what was found; within them, what
// the importer writes (the kernel-class document) is read back by `ckptsim calibrate`.
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/torch_profiler.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"

using namespace ckptsim;

namespace {

/// One ProfilerStep#1 of [0, 100) us with a GEMM kernel (event 1) and an NCCL kernel (event 2)
/// launched inside it; `gemm_dur` is the GEMM's duration in microseconds.
nlohmann::json one_step_trace(double gemm_dur) {
  return {{"traceEvents", nlohmann::json::array({
               {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#1"}, {"ts", 0}, {"dur", 100}},
               {{"ph", "X"}, {"cat", "kernel"}, {"name", "sm80_gemm"}, {"ts", 10}, {"dur", gemm_dur}},
               {{"ph", "X"}, {"cat", "kernel"}, {"name", "ncclKernel_AllReduce_RING_LL_Sum_float"}, {"ts", 40}, {"dur", 10}},
           })}};
}

Problem problem_of(const nlohmann::json& trace) {
  try {
    (void)parse_torch_profiler(trace, "t.json", 0, {});
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    return e.problems().front();
  }
  FAIL("the trace was imported");
  return {};
}

}  // namespace

TEST_CASE("torch profiler: a kernel of 1e300 us is refused at its duration") {
  // 1e300 us is about 3e286 years, beyond the 100 years any duration may take.
  const Problem p = problem_of(one_step_trace(1e300));
  CHECK(p.file == "t.json");
  CHECK(p.pointer == "/traceEvents/1/dur");
  CHECK(p.expected.find("at most 100 years") != std::string::npos);
  CHECK(p.found == "1e+300");
  // 101 years of microseconds (101 x 365.25 x 86400 x 1e6 = 3.187e15) is refused too.
  CHECK(problem_of(one_step_trace(101 * 365.25 * 86400 * 1e6)).pointer == "/traceEvents/1/dur");
}

TEST_CASE("torch profiler: an instant beyond the clock is refused at its ts") {
  // 2^63 ns = 9.223e15 us; 1e16 us lies beyond it.
  nlohmann::json trace = one_step_trace(20);
  trace["traceEvents"][2]["ts"] = 1e16;
  const Problem p = problem_of(trace);
  CHECK(p.pointer == "/traceEvents/2/ts");
  CHECK(p.expected.find("2^63 ns") != std::string::npos);
  // A Kineto time since the epoch (1.7e15 us, the year 2023) is an ordinary instant.
  trace["traceEvents"][2]["ts"] = 1.7e15;
  trace["traceEvents"][0]["ts"] = 1.7e15 - 40;
  trace["traceEvents"][1]["ts"] = 1.7e15 - 30;
  CHECK(parse_torch_profiler(trace, "t.json", 0, {}).steps.size() == 1);
}

TEST_CASE("torch profiler: kernel classes within the clock are read back; their sum per step must fit it too") {
  // A GEMM of 90 years (90 x 365.25 x 86400 x 1e6 us = 2.840184e15 us, an integer count of
  // microseconds, so 2,840,184,000 s in the document) is imported, and the kernel-class document
  // written from it is read back (calibrate's reader once refused anything above 1e6 s).
  const double ninety_years_us = 90 * 365.25 * 86400 * 1e6;
  const ProfiledRank r = parse_torch_profiler(one_step_trace(ninety_years_us), "t.json", 0, {});
  const std::vector<ProfiledRank> back = parse_kernel_classes_document(kernel_classes_document({r}), "kernels.json");
  REQUIRE(back.size() == 1);
  REQUIRE(back[0].steps.size() == 1);
  CHECK(back[0].steps[0].classes.at("gemm").seconds == doctest::Approx(2'840'184'000.0).epsilon(1e-12));
  // Two 60-year GEMMs in one step add up to 120 years of class time: refused, naming the class
  // and the step.
  nlohmann::json twice = one_step_trace(60 * 365.25 * 86400 * 1e6);
  twice["traceEvents"].push_back(twice["traceEvents"][1]);
  const Problem p = problem_of(twice);
  CHECK(p.pointer == "/traceEvents");
  CHECK(p.found.find("class gemm in ProfilerStep#1") != std::string::npos);
}

TEST_CASE("torch profiler: FSDP's hook ranges per step, by name, nested ranges not counted twice") {
  // Two steps: ProfilerStep#1 [0, 100) us and #2 [100, 200) us, a GEMM and an NCCL kernel in
  // each. Hook ranges (user_annotation), start and length in us:
  //   FSDP1 _pre_forward at 5 for 3, _post_backward_hook at 60 for 4     -> step 1
  //   FSDP2 "FSDP::pre_forward (layers.0)" at 110 for 2, and nested in it
  //   "FSDP::all_gather (layers.0)" at 110.5 for 1 (not a hook), "FSDP::post_backward (layers.0)"
  //   at 150 for 5 and "FSDP::post_backward_reduce (layers.0)" inside it (not a hook) -> step 2
  //   a "FullyShardedDataParallel._pre_forward" at 250, after the last step   -> no step
  // Step 1: 2 calls, 3 + 4 = 7 us; step 2: 2 calls, 2 + 5 = 7 us.
  nlohmann::json ev = nlohmann::json::array();
  const auto range = [&](const char* name, double ts, double dur) {
    ev.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", name}, {"ts", ts}, {"dur", dur}});
  };
  for (int k = 0; k < 2; ++k) {
    range(k == 0 ? "ProfilerStep#1" : "ProfilerStep#2", 100.0 * k, 100);
    ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "sm80_gemm"}, {"ts", 100.0 * k + 10}, {"dur", 20}});
    ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "ncclKernel_AllReduce_RING_LL_Sum_float"}, {"ts", 100.0 * k + 40}, {"dur", 10}});
  }
  range("FullyShardedDataParallel._pre_forward", 5, 3);
  range("FullyShardedDataParallel._post_backward_hook", 60, 4);
  range("FSDP::pre_forward (layers.0)", 110, 2);
  range("FSDP::all_gather (layers.0)", 110.5, 1);
  range("FSDP::post_backward (layers.0)", 150, 5);
  range("FSDP::post_backward_reduce (layers.0)", 151, 2);
  range("FullyShardedDataParallel._pre_forward", 250, 3);
  const ProfiledRank r = parse_torch_profiler({{"traceEvents", ev}}, "t.json", 0, {});
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0].hook_calls == 2);
  CHECK(r.steps[0].hook_host_s == doctest::Approx(7e-6));
  CHECK(r.steps[1].hook_calls == 2);
  CHECK(r.steps[1].hook_host_s == doctest::Approx(7e-6));
  // Over both steps: 4 calls, 14 us, 3.5 us per call, 2 calls per step.
  const HookHostTime h = hook_host_time({r});
  CHECK(h.calls == 4);
  CHECK(h.steps == 2);
  CHECK(h.per_call_s() == doctest::Approx(3.5e-6));
  CHECK(h.calls_per_step() == doctest::Approx(2.0));
  // The streaming reader keeps the hooks' ranges and drops the nested ones (torch_profiler_reads).
  CHECK(torch_profiler_reads({{"cat", "user_annotation"}, {"name", "FSDP::post_backward (x)"}}));
  CHECK_FALSE(torch_profiler_reads({{"cat", "user_annotation"}, {"name", "FSDP::post_backward_reduce (x)"}}));
  CHECK_FALSE(torch_profiler_reads({{"cat", "cpu_op"}, {"name", "FullyShardedDataParallel._pre_forward"}}));
  CHECK(engine_hook_range("FSDP::pre_forward"));
  CHECK_FALSE(engine_hook_range("FullyShardedDataParallel._pre_backward_prefetch"));
}
