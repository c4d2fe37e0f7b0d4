// The Chakra execution-trace importer (calibration/chakra_trace.hpp): traces written byte by byte
// here (protobuf's wire format: a key varint (field << 3 | wire type), then a varint or a length
// and bytes; messages framed by their length as a varint, as Chakra's protolib.py writes them),
// so that the reader is checked against the format rather than against the classes it uses;
// and the published traces of tests/fixtures/chakra/ (README.md there).
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/chakra_trace.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/workload/profile.hpp"

using namespace ckptsim;

namespace {

const std::string kChakraFixtures = CKPTSIM_SOURCE_ROOT "/tests/fixtures/chakra/";

std::string chakra_varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string chakra_key(int field, int wire) { return chakra_varint(static_cast<std::uint64_t>(field) << 3 | static_cast<unsigned>(wire)); }
std::string chakra_bytes(int field, const std::string& payload) { return chakra_key(field, 2) + chakra_varint(payload.size()) + payload; }
std::string chakra_uint(int field, std::uint64_t v) { return chakra_key(field, 0) + chakra_varint(v); }

/// AttributeProto {name = 1; int64_val = 9; bool_val = 27}.
std::string chakra_int_attr(const std::string& name, std::int64_t v) { return chakra_bytes(10, chakra_bytes(1, name) + chakra_uint(9, static_cast<std::uint64_t>(v))); }
std::string chakra_bool_attr(const std::string& name, bool v) { return chakra_bytes(10, chakra_bytes(1, name) + chakra_uint(27, v ? 1 : 0)); }

/// Node {id = 1; name = 2; type = 3; ctrl_deps = 4 (packed); data_deps = 5 (packed); duration_micros = 7; attr = 10}.
std::string chakra_node_bytes(std::uint64_t id, int type, const std::vector<std::uint64_t>& data_deps, std::uint64_t duration_us,
                 const std::string& attrs = {}, const std::vector<std::uint64_t>& ctrl_deps = {}) {
  std::string m = chakra_uint(1, id) + chakra_bytes(2, "n" + std::to_string(id)) + chakra_uint(3, static_cast<std::uint64_t>(type));
  auto packed = [](const std::vector<std::uint64_t>& v) {
    std::string s;
    for (std::uint64_t x : v) s += chakra_varint(x);
    return s;
  };
  if (!ctrl_deps.empty()) m += chakra_bytes(4, packed(ctrl_deps));
  if (!data_deps.empty()) m += chakra_bytes(5, packed(data_deps));
  if (duration_us > 0) m += chakra_uint(7, duration_us);
  return m + attrs;
}

/// GlobalMetadata {version = 1}, then the nodes, each framed by its length.
std::string chakra_trace_bytes(const std::vector<std::string>& nodes) {
  std::string out;
  const std::string meta = chakra_bytes(1, "0.0.4");
  out += chakra_varint(meta.size()) + meta;
  for (const std::string& n : nodes) out += chakra_varint(n.size()) + n;
  return out;
}

constexpr int kChakraComp = 4, kChakraSend = 5, kChakraRecv = 6, kChakraColl = 7;

Problem chakra_problem(const std::string& bytes, const ChakraTiming& timing = {}) {
  try {
    (void)schedule_chakra_trace(parse_chakra_trace(bytes, "t.et"), timing, 0);
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    return e.problems().front();
  }
  FAIL("the trace was imported");
  return {};
}

}  // namespace

TEST_CASE("chakra: a hand-written trace's schedule gives the hand-computed idle spans") {
  if (!chakra_reader_available()) return;  // built without protobuf: the refusal is checked in cli_test.sh
  // node 0 compute 100 us; 1 all-reduce 50 us after 0; 2 compute 80 us after 0; 3 all-gather
  // 30 us after 2; 4 compute 40 us after 3 and 1 (both data_deps).
  //   GPU compute: 0 [0,100], 2 [100,180], 4 [210,250];  communication: 1 [100,150], 3 [180,210]
  //   iteration 250 us; network busy 50 + 30 = 80 us;
  //   idle spans [0,100), [150,180), [210,250): (0, 100), (150, 30), (210, 40) us.
  const std::string bytes = chakra_trace_bytes({
      chakra_node_bytes(0, kChakraComp, {}, 100),
      chakra_node_bytes(1, kChakraColl, {0}, 50, chakra_int_attr("comm_type", 0) + chakra_int_attr("comm_size", 1 << 20)),
      chakra_node_bytes(2, kChakraComp, {0}, 80),
      chakra_node_bytes(3, kChakraColl, {2}, 30, chakra_int_attr("comm_type", 2) + chakra_int_attr("comm_size", 1 << 20)),
      chakra_node_bytes(4, kChakraComp, {3, 1}, 40),
  });
  const ChakraTrace trace = parse_chakra_trace(bytes, "t.et");
  REQUIRE(trace.nodes.size() == 5);
  CHECK(trace.schema == "0.0.4");
  CHECK(trace.nodes[4].data_deps == std::vector<std::uint64_t>{3, 1});
  const ChakraSchedule s = schedule_chakra_trace(trace, {}, 0);
  CHECK(s.iteration_time_s == doctest::Approx(250e-6));
  CHECK(s.network_busy_s == doctest::Approx(80e-6));
  REQUIRE(s.idle_spans.size() == 3);
  CHECK(s.idle_spans[0].first == doctest::Approx(0));
  CHECK(s.idle_spans[0].second == doctest::Approx(100e-6));
  CHECK(s.idle_spans[1].first == doctest::Approx(150e-6));
  CHECK(s.idle_spans[1].second == doctest::Approx(30e-6));
  CHECK(s.idle_spans[2].first == doctest::Approx(210e-6));
  CHECK(s.idle_spans[2].second == doctest::Approx(40e-6));
  CHECK(s.compute_nodes == 3);
  CHECK(s.comm_nodes == 2);
  // --min-span 35us leaves out the 30 us gap.
  CHECK(schedule_chakra_trace(trace, {}, 35e-6).idle_spans.size() == 2);
  // The profile written loads back: one iteration of 250 us with these spans.
  const nlohmann::json doc = chakra_idle_span_profile({s}, "test");
  const IterationProfile p = parse_profile(doc, "p.json", 1);
  CHECK(p.iteration_time.seconds() == doctest::Approx(250e-6));
  CHECK(p.machine_spans.front().size() == 3);
}

TEST_CASE("chakra: ctrl_deps order nodes only when asked") {
  if (!chakra_reader_available()) return;
  // 0 compute 100 us; 1 all-reduce 50 us after 0 (data); 2 send 20 us with ctrl_deps {1} and
  // ctrl_deps {77}, a node the trace does not hold (as Chakra's PyTorch converter writes parents).
  //   data_deps only: the send is ready at 0: [0,20]; the all-reduce [100,150]; iteration 150 us,
  //                   one span (20, 80) us.
  //   with ctrl_deps: 77 is missing: refused. Without it, the send waits for the all-reduce:
  //                   [150,170]; iteration 170 us, one span (0, 100) us.
  const std::string coll = chakra_int_attr("comm_type", 0) + chakra_int_attr("comm_size", 8);
  const std::string send = chakra_int_attr("comm_size", 8);
  const ChakraTrace with_missing = parse_chakra_trace(chakra_trace_bytes({
      chakra_node_bytes(0, kChakraComp, {}, 100), chakra_node_bytes(1, kChakraColl, {0}, 50, coll),
      chakra_node_bytes(2, kChakraSend, {}, 20, send, {1, 77})}), "t.et");
  CHECK(with_missing.nodes[2].ctrl_deps == std::vector<std::uint64_t>{1, 77});
  const ChakraSchedule data_only = schedule_chakra_trace(with_missing, {}, 0);
  CHECK(data_only.iteration_time_s == doctest::Approx(150e-6));
  REQUIRE(data_only.idle_spans.size() == 1);
  CHECK(data_only.idle_spans[0].first == doctest::Approx(20e-6));
  CHECK(data_only.idle_spans[0].second == doctest::Approx(80e-6));
  CHECK_THROWS_AS(schedule_chakra_trace(with_missing, {}, 0, true), InputError);
  const ChakraTrace ordered = parse_chakra_trace(chakra_trace_bytes({
      chakra_node_bytes(0, kChakraComp, {}, 100), chakra_node_bytes(1, kChakraColl, {0}, 50, coll),
      chakra_node_bytes(2, kChakraSend, {}, 20, send, {1})}), "t.et");
  const ChakraSchedule by_ctrl = schedule_chakra_trace(ordered, {}, 0, true);
  CHECK(by_ctrl.iteration_time_s == doctest::Approx(170e-6));
  REQUIRE(by_ctrl.idle_spans.size() == 1);
  CHECK(by_ctrl.idle_spans[0].first == 0);
  CHECK(by_ctrl.idle_spans[0].second == doctest::Approx(100e-6));
}

TEST_CASE("chakra: one node at a time per resource; CPU operators and receives beside the GPU's") {
  if (!chakra_reader_available()) return;
  // 0 and 1: GPU compute, 10 us each, both ready at 0: 0 runs [0,10], 1 [10,20] (ready time,
  // then id). 2: CPU operator 15 us, runs [0,15] beside them. 3: send 5 us after 1 and 2:
  // [20,25]. 4: receive 5 us after 0: no resource, [10,15]. 5: GPU compute 5 us after 3: [25,30].
  //   communication [10,15] and [20,25]: spans (0,10), (15,5), (25,5); iteration 30 us.
  const std::string bytes = chakra_trace_bytes({
      chakra_node_bytes(0, kChakraComp, {}, 10), chakra_node_bytes(1, kChakraComp, {}, 10), chakra_node_bytes(2, kChakraComp, {}, 15, chakra_bool_attr("is_cpu_op", true)),
      chakra_node_bytes(3, kChakraSend, {1, 2}, 5), chakra_node_bytes(4, kChakraRecv, {0}, 5), chakra_node_bytes(5, kChakraComp, {3}, 5),
  });
  const ChakraSchedule s = schedule_chakra_trace(parse_chakra_trace(bytes, "t.et"), {}, 0);
  CHECK(s.iteration_time_s == doctest::Approx(30e-6));
  REQUIRE(s.idle_spans.size() == 3);
  CHECK(s.idle_spans[0].second == doctest::Approx(10e-6));
  CHECK(s.idle_spans[1].first == doctest::Approx(15e-6));
  CHECK(s.idle_spans[1].second == doctest::Approx(5e-6));
  CHECK(s.idle_spans[2].first == doctest::Approx(25e-6));
}

TEST_CASE("chakra: nodes without duration_micros are timed from comm_size and num_ops") {
  ChakraTrace t;
  t.file = "t.et";
  ChakraNode ar;
  ar.id = 1, ar.type = ChakraNodeType::collective, ar.comm_type = 0, ar.comm_size = 1'000'000;
  ChakraNode ag = ar;
  ag.id = 2, ag.comm_type = 2;
  ChakraNode bc = ar;
  bc.id = 3, bc.comm_type = 5;
  ChakraNode send;
  send.id = 4, send.type = ChakraNodeType::send, send.comm_size = 500'000;
  ChakraNode comp;
  comp.id = 5, comp.type = ChakraNodeType::compute, comp.num_ops = 2'000'000'000'000;
  ChakraNode barrier = ar;
  barrier.id = 6, barrier.comm_type = 9;
  t.nodes = {ar, ag, bc, send, comp, barrier};
  const ChakraTiming timing{1e9, 4, 1e15};
  const std::vector<double> d = chakra_durations(t, timing);
  // nccl-tests' bus factors with n = 4, S = 1e6 B, B = 1e9 B/s:
  CHECK(d[0] == doctest::Approx(1e6 * 2 * 3 / 4 / 1e9));  // all-reduce 2(n-1)/n: 1.5 ms
  CHECK(d[1] == doctest::Approx(1e6 * 3 / 4 / 1e9));      // all-gather (n-1)/n: 0.75 ms
  CHECK(d[2] == doctest::Approx(1e6 / 1e9));              // broadcast 1: 1 ms
  CHECK(d[3] == doctest::Approx(5e5 / 1e9));              // send 1: 0.5 ms
  CHECK(d[4] == doctest::Approx(2e12 / 1e15));            // 2e12 FLOPs at 1e15 FLOP/s: 2 ms
  CHECK(d[5] == 0);                                       // barrier: no bytes
  // Without the timing they need, the nodes are refused by id.
  auto refused = [&](const ChakraTiming& tm) {
    try {
      (void)chakra_durations(t, tm);
    } catch (const InputError& e) {
      return e.problems().front();
    }
    FAIL("accepted");
    return Problem{};
  };
  CHECK(refused({std::nullopt, 4, 1e15}).expected.find("--bus-bandwidth") != std::string::npos);
  CHECK(refused({1e9, std::nullopt, 1e15}).expected.find("--group-size") != std::string::npos);
  CHECK(refused({1e9, std::nullopt, 1e15}).pointer == "node 1");
  t.nodes = {comp};
  CHECK(refused({1e9, 4, std::nullopt}).expected.find("--gpu-flops") != std::string::npos);
}

TEST_CASE("chakra: bad traces are refused with the file and the message or node") {
  if (!chakra_reader_available()) return;
  const std::string coll = chakra_int_attr("comm_type", 0) + chakra_int_attr("comm_size", 8);
  // A varint cut off by the end of the file (its continuation bit set on the last byte).
  Problem p = chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, coll)}) + "\x85");
  CHECK(p.file == "t.et");
  CHECK(p.pointer.find("message 2") == 0);
  CHECK(p.found.find("ends inside the varint") != std::string::npos);
  // A length beyond the end of the file.
  p = chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, coll)}) + chakra_varint(100) + "abc");
  CHECK(p.found == "100 bytes, 3 left in the file");
  // An unknown node type, a missing and a self dependency, a duplicate id, MEM_LOAD.
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, coll), chakra_node_bytes(7, 12, {}, 1)})).pointer == "node 7");
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, coll), chakra_node_bytes(7, 12, {}, 1)})).found == "12");
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {9}, 5, coll)})).found.find("node 9") != std::string::npos);
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {0}, 5, coll)})).found == "a dependency on itself");
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, coll), chakra_node_bytes(0, kChakraComp, {}, 5)})).found == "a second node with this id");
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, coll), chakra_node_bytes(1, 2, {}, 5)})).found == "MEM_LOAD_NODE");
  // A cycle 1 -> 2 -> 3 -> 1 after node 0: named with its nodes.
  p = chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, coll), chakra_node_bytes(1, kChakraComp, {0, 3}, 1), chakra_node_bytes(2, kChakraComp, {1}, 1), chakra_node_bytes(3, kChakraComp, {2}, 1)}));
  CHECK(p.expected == "dependencies without cycles");
  CHECK(p.found.find("a cycle") == 0);
  // A negative duration written as uint64 (2^64 - 1000) and one just beyond 100 years.
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 0xFFFFFFFFFFFFFC18ULL, coll)})).pointer == "node 0");
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 3'155'760'000'000'001ULL, coll)})).expected.find("100 years") != std::string::npos);
  // A negative comm_size, an unknown comm_type, no communication at all, bytes that are no Node.
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, chakra_int_attr("comm_size", -4))})).expected == "attr comm_size: a value >= 0");
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraColl, {}, 5, chakra_int_attr("comm_type", 10))})).found == "10");
  CHECK(chakra_problem(chakra_trace_bytes({chakra_node_bytes(0, kChakraComp, {}, 5)})).found == "none among 1 nodes");
  CHECK(chakra_problem(chakra_trace_bytes({"\x0a\x05"})).found == "bytes that do not parse as one");
  CHECK(chakra_problem("").found == "an empty file");
}

TEST_CASE("chakra: the traces of different ranks must have as many spans") {
  ChakraSchedule a, b;
  a.file = "a.et", b.file = "b.et";
  a.iteration_time_s = b.iteration_time_s = 1;
  a.idle_spans = {{0, 0.1}};
  b.idle_spans = {{0, 0.1}, {0.5, 0.1}};
  try {
    (void)chakra_idle_span_profile({a, b}, "x");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.problems().front().found == "a.et: 1, b.et: 2");
  }
}

TEST_CASE("chakra: ASTRA-sim's custom ring all-reduce trace (rank 0 of 8, 1 MB)") {
  if (!chakra_reader_available()) return;
  const std::string file = kChakraFixtures + "custom_allreduce.0.et";
  const ChakraTrace t = parse_chakra_trace(read_input_file(file, "trace"), file);
  // 35 nodes: 14 sends, 14 receives of 131072 B each (comm_size), 7 reductions of 7 us; a chain
  // send, receive, reduction seven times, then seven send-receive pairs.
  REQUIRE(t.nodes.size() == 35);
  CHECK(t.schema == "1.0.2-chakra.0.0.4");
  // At B = 131072 B / 10 us every send and receive takes 10 us (factor 1):
  //   iteration = 28 x 10 + 7 x 7 = 329 us; network busy 280 us;
  //   the idle spans are the seven reductions, 7 us each, the k-th starting at 20 + 27k us.
  const ChakraSchedule s = schedule_chakra_trace(t, {131072 / 10e-6, std::nullopt, std::nullopt}, 0);
  CHECK(s.iteration_time_s == doctest::Approx(329e-6));
  CHECK(s.network_busy_s == doctest::Approx(280e-6));
  REQUIRE(s.idle_spans.size() == 7);
  for (std::size_t k = 0; k < 7; ++k) {
    CHECK(s.idle_spans[k].first == doctest::Approx((20.0 + 27.0 * static_cast<double>(k)) * 1e-6));
    CHECK(s.idle_spans[k].second == doctest::Approx(7e-6));
  }
  CHECK(s.modelled_comm_nodes == 28);
}

TEST_CASE("chakra: the ASTRA-sim tutorial's model-parallel MLP trace (rank 0 of 32)") {
  if (!chakra_reader_available()) return;
  const std::string file = kChakraFixtures + "MLP_ModelParallel.0.et";
  const ChakraTrace t = parse_chakra_trace(read_input_file(file, "trace"), file);
  // 29 nodes: 18 compute nodes with duration_micros, 6 all-gathers (forward) and 5 all-reduces
  // (backward) with comm_size only. At B = 1 GB/s over n = 2 ranks (factors 1/2 and 1):
  //   all-gathers 37632, 65536 x 4, 147456 B: 18.816 + 4 x 32.768 + 73.728 = 223.616 us, each on
  //     the critical path (the next layer's forward waits for it);
  //   all-reduces 4 x 65536 + 147456 B = 409.6 us, each beside a longer weight-gradient node;
  //   compute (one GPU stream, every node in series): 195206 us.
  //   iteration = 195206 + 223.616 = 195429.616 us; busy = 633.216 us; idle = 194796.4 us in
  //   12 spans (before the first collective, between the 11, after the last), the first the
  //   first layer's forward, [0, 32291 us).
  const ChakraSchedule s = schedule_chakra_trace(t, {1e9, 2, std::nullopt}, 0);
  CHECK(s.compute_nodes == 18);
  CHECK(s.comm_nodes == 11);
  CHECK(s.iteration_time_s == doctest::Approx(195429.616e-6));
  CHECK(s.network_busy_s == doctest::Approx(633.216e-6));
  REQUIRE(s.idle_spans.size() == 12);
  CHECK(s.idle_spans[0].first == 0);
  CHECK(s.idle_spans[0].second == doctest::Approx(32291e-6));
  double idle = 0;
  for (const auto& sp : s.idle_spans) idle += sp.second;
  CHECK(idle == doctest::Approx(194796.4e-6));
}
