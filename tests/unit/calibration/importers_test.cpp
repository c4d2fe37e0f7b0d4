// The importers of external formats on published outputs (tests/fixtures/, each file's
// provenance in its header): nccl-tests logs and PyTorch profiler traces. Expected values come
// from the files' own numbers (sizes, times, the busbw nccl-tests printed), from the bus-bandwidth
// factors of nccl-tests' doc/PERFORMANCE.md worked by hand, and for the traces from
// tests/fixtures/torch-profiler/expected_values.py, an independent reading of the same events.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <doctest/doctest.h>

#include "ckptsim/calibration/calibrate.hpp"
#include "ckptsim/calibration/gzip_input.hpp"
#include "ckptsim/calibration/nccl_tests.hpp"
#include "ckptsim/calibration/torch_profiler.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/scenario/units.hpp"
#include "../common/error_text.hpp"

using namespace ckptsim;

namespace {

const std::string kFixtures = CKPTSIM_SOURCE_ROOT "/tests/fixtures/";

std::vector<NcclTestsRun> nccl(const std::string& name, NcclTestsOptions o = {}) {
  const std::string path = kFixtures + "nccl-tests/" + name;
  return parse_nccl_tests(read_input_file(path, "nccl-tests output"), path, o);
}

MeasurementSet set_of(const std::vector<NcclTestsRun>& runs) {
  MeasurementSet s;
  for (const NcclTestsRun& r : runs) s.samples.insert(s.samples.end(), r.samples.begin(), r.samples.end());
  return s;
}

using test::what_of;

}  // namespace

TEST_CASE("nccl-tests: reduce-scatter on one 8-GPU machine fits NVLink at the printed bus bandwidth") {
  NcclTestsOptions o;
  o.ranks = 8;
  o.machines = 1;
  const auto runs = nccl("reduce_scatter_perf-nccl-1047-h100x8.txt", o);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].kind == SampleKind::reduce_scatter);  // from the file name
  // 6 rows x (out-of-place, in-place). x = S (n-1)/n: the 128 MiB row moves 134217728 x 7/8.
  REQUIRE(runs[0].samples.size() == 12);
  CHECK(runs[0].samples[0].x == doctest::Approx(134217728.0 * 7 / 8));
  CHECK(runs[0].samples[0].seconds == doctest::Approx(377.2e-6));
  CHECK(runs[0].samples[1].origin.find("(in-place)") != std::string::npos);
  const Calibration c = calibrate(set_of(runs), {});
  // Latency is negligible at 4 GiB (10.5 ms), so the fitted rate is nccl-tests' busbw there,
  // 357.76 GB/s (out-of-place) and 359.56 (in-place), within 2%.
  const GroupFit& nv = c.fits.back();
  // Inside one machine: NVLink's bandwidth and its own step latency, never the network's, and
  // the measured curve itself (the model times in-machine collectives by it).
  CHECK(nv.writes == std::vector<std::string>{"/cluster/nvlink_bandwidth", "/cluster/nvlink_latency",
                                              "/cluster/nvlink_ring_curve", "/cluster/nvlink_curve_gpus"});
  CHECK(c.fields["cluster"].contains("nvlink_latency"));
  CHECK_FALSE(c.fields["cluster"].contains("network"));
  CHECK(nv.fit.rate == doctest::Approx(358.7e9).epsilon(0.02));
  REQUIRE(nv.fit.rate_se);
  CHECK(*nv.fit.rate_se < 0.01 * nv.fit.rate);
  // The curve: one point per size, the median busbw of the out-of-place and in-place rows as
  // nccl-tests printed them: 128 MiB (311.34 + 315.80) / 2 = 313.57 GB/s; 4 GiB (357.76 +
  // 359.56) / 2 = 358.66 GB/s (x / t recomputes busbw from size and time: within 0.1 %). No
  // all-reduce log: no all-reduce curve. 8 ranks.
  const nlohmann::json& curve = c.fields["cluster"]["nvlink_ring_curve"];
  REQUIRE(curve.size() == 6);
  CHECK(curve[0]["size"].get<double>() == 134217728.0);
  CHECK(parse_bandwidth(curve[0]["bus_bandwidth"].get<std::string>()) == doctest::Approx(313.57e9).epsilon(0.001));
  CHECK(parse_bandwidth(curve[5]["bus_bandwidth"].get<std::string>()) == doctest::Approx(358.66e9).epsilon(0.001));
  CHECK_FALSE(c.fields["cluster"].contains("nvlink_all_reduce_curve"));
  CHECK(c.fields["cluster"]["nvlink_curve_gpus"] == 8);
}

TEST_CASE("nccl-tests: all-gather of one process on 2 GPUs, and Rank lines that are missing") {
  // The paste has no Rank lines: without --ranks/--machines the run's size is unknown.
  CHECK(what_of([] { (void)nccl("all_gather_perf-nccl-1435-2gpu.txt"); }).find("Rank lines") != std::string::npos);
  NcclTestsOptions o;
  o.ranks = 2;
  o.machines = 1;
  const auto runs = nccl("all_gather_perf-nccl-1435-2gpu.txt", o);
  REQUIRE(runs[0].samples.size() == 14);
  CHECK(runs[0].kind == SampleKind::all_gather);
  CHECK(runs[0].samples[0].x == doctest::Approx(16777216.0 / 2));  // S (n-1)/n, n = 2
  // Two-point slopes between the 16 MiB and 112 MiB rows: (117440512 - 16777216)/2 bytes in
  // (490.8 - 108.8) us = 131.8 GB/s out-of-place, in (418.7 - 98.19) us = 157.0 GB/s in-place;
  // the weighted fit of all rows lies between.
  const Calibration c = calibrate(set_of(runs), {});
  CHECK(c.fits.back().fit.rate > 131e9);
  CHECK(c.fits.back().fit.rate < 158e9);
}

TEST_CASE("nccl-tests: all-reduce between two machines writes the network latency and efficiency") {
  const auto runs = nccl("all_reduce_perf-dgx-spark-103-gb10-2x1.txt");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].test == "all_reduce_perf");  // the "Collective test starting" line
  CHECK(runs[0].ranks == 2);
  CHECK(runs[0].machines == 2);  // hosts spark-d708 and spark-dbf4
  CHECK(runs[0].devices == std::vector<std::string>{"NVIDIA GB10"});
  // All-reduce over n = 2: x = 2 (n-1)/n S = S; 2 (n-1) = 2 latency steps.
  CHECK(runs[0].samples[0].x == doctest::Approx(8192));
  const Calibration c = calibrate(set_of(runs), {});
  const GroupFit& net = c.fits.back();
  CHECK(net.writes == std::vector<std::string>{"/cluster/network/latency", "/cluster/network/collective_efficiency"});
  REQUIRE(c.fields.contains("cluster"));
  // No base scenario: the fitted rate is written as the line rate, efficiency 1.
  CHECK(c.fields["cluster"]["network"]["collective_efficiency"] == 1.0);
  // A base that says the machines have 200 Gbps (25 GB/s) gives efficiency R / 25e9.
  CalibrationBase base;
  base.network_bandwidth = 25e9;
  const Calibration b = calibrate(set_of(runs), base);
  CHECK(b.fields["cluster"]["network"]["collective_efficiency"].get<double>() == doctest::Approx(net.fit.rate / 25e9).epsilon(1e-5));
  // A base whose line rate is far below what was measured: refused, not clamped.
  base.network_bandwidth = 1e8;
  CHECK(what_of([&] { (void)calibrate(set_of(runs), base); }).find("above the") != std::string::npos);
}

TEST_CASE("nccl-tests: latency-only or noisy rows are refused with their samples") {
  // sendrecv 256 B .. 4 KiB: the times fall from 34 to 31 us as the size grows.
  const std::string flat = what_of([] { (void)calibrate(set_of(nccl("sendrecv_perf-nccl-tests-214-a40-2x1.txt")), {}); });
  CHECK(flat.find("does not grow") != std::string::npos);
  CHECK(flat.find("line 15") != std::string::npos);
  // Three all-reduce sizes whose first time is an outlier (1035 us for 1 MiB, 671 us for 2 MiB):
  // the rate is undetermined.
  NcclTestsOptions o;
  o.ranks = 16;
  o.machines = 2;
  const std::string noisy = what_of([&] { (void)calibrate(set_of(nccl("all_reduce_perf-aws-ofi-nccl-33-p3dn-2x8.txt", o)), {}); });
  CHECK(noisy.find("do not determine the rate") != std::string::npos);
}

TEST_CASE("nccl-tests: all-to-all is fitted and reported, not written") {
  const auto runs = nccl("alltoall_perf-nccl-tests-314-h20x8.txt");
  CHECK(runs[0].ranks == 8);
  CHECK(runs[0].machines == 1);
  // The in-place #wrong is N/A (alltoall has no in-place check): both times are samples.
  CHECK(runs[0].samples.size() == 6);
  const Calibration c = calibrate(set_of(runs), {});
  CHECK(c.fields.empty());
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0].find("all-to-all") != std::string::npos);
}

TEST_CASE("nccl-tests: format errors name the line") {
  const NcclTestsOptions named{SampleKind::all_reduce, 2, 1, std::nullopt};
  auto err = [&](const std::string& text) { return what_of([&] { (void)parse_nccl_tests(text, "log.txt", named); }); };
  const std::string header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  CHECK(err("   1024   256 float sum -1 10.0 0.1 0.1 0 10.0 0.1 0.1 0\n").find("after a column header") != std::string::npos);
  CHECK(err(header + "   1024   256 float sum -1 10.0 0.1 0.1 0\n").find("line 2") != std::string::npos);
  CHECK(err(header + "   1024   256 float sum -1 10.0 0.1 0.1 3 10.0 0.1 0.1 0\n").find("#wrong 0") != std::string::npos);
  CHECK(err(header + "   1024   256 float sum -1 -1 0.1 0.1 0 10.0 0.1 0.1 0\n").find("positive out-of-place time") != std::string::npos);
  CHECK(err("no results at all\n").find("no result row") != std::string::npos);
  // A Rank line whose rank does not fit an int (found by the import fuzzer: std::stoi threw
  // std::out_of_range), or names more than a million ranks, is refused at its line.
  const std::string rank = "#  Rank 88888888888888888888 Group  0 Pid 173504 on  node0 device  0 [0x16] NVIDIA H100\n";
  CHECK(err(rank).find("line 1") != std::string::npos);
  CHECK(err(rank).find("a rank of at most 1000000") != std::string::npos);
  CHECK(err("#  Rank 1000001 Pid 1 on node0 device 0 [0x16] NVIDIA H100\n").find("a rank of at most 1000000") != std::string::npos);
  // A file that names no test, parsed without --collective.
  CHECK(what_of([&] { (void)parse_nccl_tests(header + "   1024 256 float sum -1 10 0.1 0.1 0 10 0.1 0.1 0\n", "log.txt", {std::nullopt, 2, 1, std::nullopt}); })
            .find("a run of a known test") != std::string::npos);
}

TEST_CASE("nccl-tests: runs concatenated in one file stay apart") {
  // Two logs one after the other (what `cat a b > log` makes): two runs, each with its own
  // collective, rank count and rows.
  const std::string a = read_input_file(kFixtures + "nccl-tests/all_reduce_perf-dgx-spark-103-gb10-2x1.txt", "x");
  const std::string b = read_input_file(kFixtures + "nccl-tests/alltoall_perf-nccl-tests-314-h20x8.txt", "x");
  const auto runs = parse_nccl_tests("# Collective test starting: all_reduce_perf\n" + a + "# Avg bus bandwidth    : 0.5\n# Collective test starting: alltoall_perf\n" + b,
                                     "both.txt", {});
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].kind == SampleKind::all_reduce);
  CHECK(runs[0].ranks == 2);
  CHECK(runs[0].samples.size() == 8);
  CHECK(runs[1].kind == SampleKind::all_to_all);
  CHECK(runs[1].ranks == 8);
  CHECK(runs[1].samples.size() == 6);
}

TEST_CASE("torch profiler: idle spans and steps of two ranks' traces") {
  std::vector<ProfiledRank> ranks;
  for (int r = 0; r < 2; ++r) {
    const std::string path = kFixtures + "torch-profiler/hta-sampled-rank-" + std::to_string(r) + ".json.gz";
    ranks.push_back(parse_torch_profiler(parse_json_strict(read_maybe_gzip_file(path, "trace", 1 << 28), path), path, r, {}));
  }
  // expected_values.py (steps on the GPU's clock): rank 0 ProfilerStep#551 runs from its first
  // GPU event to step 552's, 607.246 ms, 6 gaps, the first (0, 12.149 ms), the last (545.589,
  // 61.657) ms, 411.919 ms idle in all; rank 1 step 552 (the last: to its last GPU event) has 6
  // gaps and 412.260 ms idle.
  REQUIRE(ranks[0].steps.size() == 2);
  CHECK(ranks[0].world_size == 128);
  CHECK(ranks[0].steps[0].step == 551);
  CHECK(ranks[0].steps[0].iteration_time_s == doctest::Approx(0.607246));
  REQUIRE(ranks[0].steps[0].idle_spans.size() == 6);
  CHECK(ranks[0].steps[0].idle_spans[0].first == doctest::Approx(0.0).epsilon(1e-9));
  CHECK(ranks[0].steps[0].idle_spans[0].second == doctest::Approx(0.012149).epsilon(1e-4));
  CHECK(ranks[0].steps[0].idle_spans[5].first == doctest::Approx(0.545589).epsilon(1e-5));
  CHECK(ranks[0].steps[0].idle_spans[5].second == doctest::Approx(0.061657).epsilon(1e-4));
  double idle = 0;
  for (const auto& s : ranks[1].steps[1].idle_spans) idle += s.second;
  CHECK(idle == doctest::Approx(0.412260).epsilon(1e-5));
  // Idle plus NCCL-busy time covers the step exactly.
  CHECK(idle + ranks[1].steps[1].network_busy_s == doctest::Approx(ranks[1].steps[1].iteration_time_s).epsilon(1e-9));
  // The profile has one iteration per (rank, step), 6 spans each, and loads as a --profile.
  const nlohmann::json profile = idle_span_profile(ranks, "test");
  CHECK(profile["iterations"].size() == 4);
  // Dropping gaps under 1 ms leaves rank 0 step 551 with 5 (its 0.006 ms gap goes) but step 552
  // with 6 (expected_values.py, ms): 551 [0, 12.149) [105.607, 213.434) [225.161, 266.268)
  // [313.92, 503.093) [545.589, 607.246); 552 [0, 51.622) [119.449, 165.21) [186.334, 441.592)
  // [453.711, 456.853) [493.011, 496.416) [560.06, 615.601). Matched to 551's (the fewest) by the
  // largest total overlap: 551's 4th with 552's 3rd (127.672 ms in common) beats 551's 3rd with
  // it (41.107) plus the 4th with a 3.4 ms gap, so 4 spans are kept: 551 drops [225.161,
  // 266.268) (41.107 ms), 552 its 3.142 and 3.405 ms gaps (6.547 ms).
  TorchProfilerOptions o;
  o.min_span_s = 1e-3;
  const std::string path = kFixtures + "torch-profiler/hta-sampled-rank-0.json.gz";
  const ProfiledRank r0 = parse_torch_profiler(parse_json_strict(read_maybe_gzip_file(path, "trace", 1 << 28), path), path, 0, o);
  CHECK(r0.steps[0].idle_spans.size() == 5);
  std::vector<std::string> notes;
  const nlohmann::json matched = idle_span_profile({r0}, "t", &notes);
  REQUIRE(matched["iterations"].size() == 2);
  const nlohmann::json& second = matched["iterations"][1]["spans"];
  REQUIRE(second.size() == 4);
  REQUIRE(matched["iterations"][0]["spans"].size() == 4);
  CHECK(second[2][0].get<double>() == doctest::Approx(0.186334).epsilon(1e-5));
  CHECK(second[3][0].get<double>() == doctest::Approx(0.560060).epsilon(1e-5));
  CHECK(matched["iterations"][0]["spans"][2][0].get<double>() == doctest::Approx(0.313920).epsilon(1e-5));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("rank 0 step 551: 1 of 5 (41.107 ms)") != std::string::npos);
  CHECK(notes[0].find("rank 0 step 552: 2 of 6 (6.547 ms)") != std::string::npos);
}

TEST_CASE("torch profiler: collectives with sizes, kernel classes, and the kernel document read back") {
  const std::string path = kFixtures + "torch-profiler/hta-nccl-data-rank-0.json.gz";
  TorchProfilerOptions o;
  o.gpus_per_machine = 8;
  const ProfiledRank r = parse_torch_profiler(parse_json_strict(read_maybe_gzip_file(path, "trace", 1 << 28), path), path, 0, o);
  // expected_values.py: ProfilerStep#4..6, 8 gaps each; step 4 is 222.054812 ms on the GPU's
  // clock with 210.065792 ms idle.
  REQUIRE(r.steps.size() == 3);
  CHECK(r.steps[0].step == 4);
  CHECK(r.steps[0].idle_spans.size() == 8);
  CHECK(r.steps[0].iteration_time_s == doctest::Approx(0.222054812).epsilon(1e-6));
  CHECK(r.steps[0].iteration_time_s - r.steps[0].network_busy_s == doctest::Approx(0.210065792).epsilon(1e-6));
  // The trace's 15 all-reduce kernels (and 6 broadcasts) fall into the three steps; a 6637568-
  // element Float all-reduce is 26550272 bytes over a group of 2 ranks, one machine (G = 8).
  std::size_t allreduce = 0;
  bool found = false;
  for (const ProfiledStep& s : r.steps) {
    for (const ProfiledCollective& c : s.collectives) {
      allreduce += c.collective == "allreduce";
      if (c.bytes == 26550272.0) found = c.group_size == 2 && c.machines == 1;
    }
  }
  CHECK(allreduce == 15);
  CHECK(found);
  CHECK(r.steps[0].classes.count("gemm") == 1);
  CHECK(r.steps[0].classes.count("nccl") == 1);
  // The kernel-class document reads back to the same steps.
  const auto back = parse_kernel_classes_document(kernel_classes_document({r}), "k.json");
  REQUIRE(back.size() == 1);
  CHECK(back[0].steps.size() == 3);
  CHECK(back[0].steps[2].collectives.size() == r.steps[2].collectives.size());
  CHECK(back[0].steps[1].classes.at("gemm").seconds == doctest::Approx(r.steps[1].classes.at("gemm").seconds));
}

TEST_CASE("torch profiler: traces without steps or NCCL kernels, and damaged gzip, are refused") {
  nlohmann::json no_steps = {{"traceEvents", nlohmann::json::array({{{"ph", "X"}, {"cat", "kernel"}, {"name", "gemm"}, {"ts", 1}, {"dur", 2}}})}};
  CHECK(what_of([&] { (void)parse_torch_profiler(no_steps, "t.json", 0, {}); }).find("ProfilerStep#N annotations") != std::string::npos);
  nlohmann::json no_nccl = {{"traceEvents", nlohmann::json::array({{{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#1"}, {"ts", 0}, {"dur", 100}},
                                                                    {{"ph", "X"}, {"cat", "kernel"}, {"name", "sm80_gemm"}, {"ts", 10}, {"dur", 20}}})}};
  CHECK(what_of([&] { (void)parse_torch_profiler(no_nccl, "t.json", 0, {}); }).find("NCCL kernels") != std::string::npos);
  nlohmann::json bad_time = no_nccl;
  bad_time["traceEvents"][1]["dur"] = -5;
  CHECK(what_of([&] { (void)parse_torch_profiler(bad_time, "t.json", 0, {}); }).find("/traceEvents/1/dur") != std::string::npos);
  CHECK(what_of([] { (void)parse_torch_profiler(nlohmann::json("x"), "t.json", 0, {}); }).find("Chrome trace-event") != std::string::npos);
  // A gzip stream cut in half.
  const std::string gz = read_input_file(kFixtures + "torch-profiler/hta-sampled-rank-1.json.gz", "x");
  CHECK(is_gzip(gz));
  const std::string cut = (std::filesystem::temp_directory_path() / "ckptsim-importers-cut.json.gz").string();
  std::ofstream(cut, std::ios::binary) << gz.substr(0, gz.size() / 2);
  CHECK_THROWS_WITH_AS(read_maybe_gzip_file(cut, "a trace", 1 << 28), doctest::Contains("truncated"), InputError);
  // More output than the limit allows (the 115 KiB file is within 256 KiB, its text is not).
  CHECK_THROWS_AS(read_maybe_gzip_file(kFixtures + "torch-profiler/hta-sampled-rank-1.json.gz", "a trace", 1 << 18), LimitError);
}

TEST_CASE("torch profiler: out-of-range correlation ids and group sizes name no launch and no group") {
  // One step [0, 200) us; a launch at ts 5 with correlation 7, and two NCCL kernels:
  //   - correlation 7 at ts 150, which belongs to the step through its launch at 5;
  //   - correlation 1e300 and group size -1e300 at ts 155: no launch matches (the kernel is placed
  //     by its own start, inside the step's window [150, 160) on the GPU's clock) and no group
  //     (0), instead of converting the doubles to integers, which is undefined behaviour (found
  //     by the import fuzzer).
  nlohmann::json trace = {{"traceEvents", nlohmann::json::array({
      {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#1"}, {"ts", 0}, {"dur", 200}},
      {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"ts", 5}, {"dur", 1}, {"args", {{"correlation", 7}}}},
      {{"ph", "X"}, {"cat", "kernel"}, {"name", "ncclKernel_AllReduce_RING_LL_Sum_float"}, {"ts", 150}, {"dur", 10},
       {"args", {{"correlation", 7}, {"Group size", 4}}}},
      {{"ph", "X"}, {"cat", "kernel"}, {"name", "ncclKernel_AllGather_RING_LL_Sum_float"}, {"ts", 155}, {"dur", 10},
       {"args", {{"correlation", 1e300}, {"Group size", -1e300}}}},
  })}};
  const ProfiledRank r = parse_torch_profiler(trace, "t.json", 0, {});
  CHECK_FALSE(r.host_windows);
  REQUIRE(r.steps.size() == 1);
  REQUIRE(r.steps[0].collectives.size() == 2);
  int grouped = 0, ungrouped = 0;
  for (const ProfiledCollective& c : r.steps[0].collectives) (c.group_size == 4 ? grouped : ungrouped) += c.group_size == 4 || c.group_size == 0;
  CHECK(grouped == 1);
  CHECK(ungrouped == 1);
  // A fractional or negative correlation is no correlation either (7.5 is not 7): nothing is
  // linked, so the step falls back to the host's annotation.
  trace["traceEvents"][2]["args"]["correlation"] = 7.5;
  trace["traceEvents"][1]["args"]["correlation"] = 7.5;
  const ProfiledRank h = parse_torch_profiler(trace, "t.json", 0, {});
  CHECK(h.host_windows);
  CHECK(h.steps[0].collectives.size() == 2);
}
