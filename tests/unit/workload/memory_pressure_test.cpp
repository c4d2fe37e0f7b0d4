// The caching allocator's synchronize-on-pressure as the engines meet it
// (workload/memory_pressure.hpp), on a sequence worked by hand.
#include <doctest/doctest.h>

#include "ckptsim/workload/memory_pressure.hpp"

using namespace ckptsim;

TEST_CASE("over the budget the host waits for the earliest known free, not for frees it has not written") {
  // Budget 10. A (6) allocated, freed at operation f_a; B (3) allocated: 9 <= 10, no wait. C (4):
  // 13 > 10: the host waits for f_a (the only known free), 7 left, C fits. D (8): 15 > 10; B's
  // free is not written yet, nothing to wait for: D goes over the budget without a wait.
  StreamProgram p;
  MemoryPressure pressure(10);
  const int a = pressure.allocate(p, 6);
  const int f_a = p.compute({ComputePass::memory_bound, ComputePart::none, 1}, TaskCategory::forward, {});
  pressure.frees_at(a, f_a);
  pressure.allocate(p, 3);
  CHECK(p.size() == 1);
  pressure.allocate(p, 4);
  REQUIRE(p.size() == 2);
  CHECK(p.op(1).kind == ProgramOp::Kind::host_wait);
  CHECK(p.op(1).after == std::vector<int>{f_a});
  CHECK(p.op(1).cause == Cause::host_sync);
  pressure.allocate(p, 8);
  CHECK(p.size() == 2);
}

TEST_CASE("frees are waited for in program order, whatever order they were registered in") {
  // Two buffers of 5 under a budget of 10, their frees registered last-first; a third of 5 needs
  // one of them freed: the earlier operation (f_1) is waited for.
  StreamProgram p;
  MemoryPressure pressure(10);
  const int b0 = pressure.allocate(p, 5);
  const int b1 = pressure.allocate(p, 5);
  const int f_1 = p.marker(Stream::compute, {});
  const int f_2 = p.marker(Stream::compute, {});
  pressure.frees_at(b1, f_2);
  pressure.frees_at(b0, f_1);
  pressure.allocate(p, 5);
  REQUIRE(p.size() == 3);
  CHECK(p.op(2).after == std::vector<int>{f_1});
}
