// The task-graph runner: streams as dependencies, flows sharing links, anchors
// (workload/task_graph.hpp).
#include <doctest/doctest.h>

#include <stdexcept>

#include "ckptsim/workload/task_graph.hpp"

using namespace ckptsim;

namespace {

Task compute(SimTime d, std::vector<int> deps = {}) {
  Task t;
  t.kind = TaskKind::compute;
  t.category = TaskCategory::forward;
  t.duration = d;
  t.deps = std::move(deps);
  return t;
}

Task transfer(int uses, double bytes, SimTime latency, std::vector<int> deps = {}) {
  Task t;
  t.kind = TaskKind::transfer;
  t.category = TaskCategory::all_gather;
  t.uses = uses;
  t.bytes = bytes;
  t.latency = latency;
  t.deps = std::move(deps);
  return t;
}

}  // namespace

TEST_CASE("compute chain and two transfers sharing a link") {
  // Link of 100 B/s. A: compute 1 s. B: transfer 100 B after A, latency 0.5 s.
  // C: transfer 100 B from time 0, no latency, alone at 100 B/s -> ends at 1.0 s.
  // B: ready at 1 s, its flow starts at 1.5 s, alone -> ends at 2.5 s.
  // D: compute 2 s after B and C -> ends at 4.5 s.
  TaskGraph g;
  const int link = g.add_uses({{0, 1.0}});
  const int a = g.add(compute(seconds(1.0)));
  const int b = g.add(transfer(link, 100, milliseconds(500), {a}));
  const int c = g.add(transfer(link, 100, SimTime::zero()));
  const int d = g.add(compute(seconds(2.0), {b, c}));
  const GraphRun r = run_task_graph(g, {100.0});
  CHECK(r.timing[static_cast<std::size_t>(c)].end == seconds(1.0));
  CHECK(r.timing[static_cast<std::size_t>(b)].ready == seconds(1.0));
  CHECK(r.timing[static_cast<std::size_t>(b)].start == seconds(1.5));
  CHECK(r.timing[static_cast<std::size_t>(b)].end == seconds(2.5));
  CHECK(r.timing[static_cast<std::size_t>(d)].end == seconds(4.5));
  CHECK(r.makespan == seconds(4.5));
}

TEST_CASE("overlapping transfers share the link: work is conserved") {
  // Link of 10 B/s; X = 40 B from 0; Y = 20 B from 1 s (anchor on a 1 s compute, delay 0).
  // 0-1 s: X alone, 10 B moved (30 left). From 1 s: 5 B/s each; Y ends after 20/5 = 4 s (t = 5 s),
  // X has 30 - 20 = 10 B left, alone: ends at 6 s = (40 + 20) / 10, the link never idle.
  TaskGraph g;
  const int link = g.add_uses({{0, 1.0}});
  const int x = g.add(transfer(link, 40, SimTime::zero()));
  const int w = g.add(compute(seconds(1.0)));
  Task y = transfer(link, 20, SimTime::zero());
  y.anchor = w;
  const int yi = g.add(std::move(y));
  const GraphRun r = run_task_graph(g, {10.0});
  CHECK(r.timing[static_cast<std::size_t>(yi)].end == seconds(5.0));
  CHECK(r.timing[static_cast<std::size_t>(x)].end == seconds(6.0));
}

TEST_CASE("anchor delays and not-before times") {
  // Anchor ends at 2 s; delay 0.25 s -> start 2.25 s; compute 1 s -> 3.25 s.
  // A task with not_before 5 s and no deps starts at 5 s.
  TaskGraph g;
  const int a = g.add(compute(seconds(2.0)));
  Task t = compute(seconds(1.0));
  t.anchor = a;
  t.anchor_delay = milliseconds(250);
  const int ti = g.add(std::move(t));
  Task late = compute(seconds(0.5));
  late.not_before = seconds(5.0);
  const int li = g.add(std::move(late));
  const GraphRun r = run_task_graph(g, {});
  CHECK(r.timing[static_cast<std::size_t>(ti)].start == seconds(2.25));
  CHECK(r.timing[static_cast<std::size_t>(ti)].end == seconds(3.25));
  CHECK(r.timing[static_cast<std::size_t>(li)].start == seconds(5.0));
}

TEST_CASE("a dependency cycle is reported") {
  TaskGraph g;
  const int a = g.add(compute(seconds(1.0)));
  const int b = g.add(compute(seconds(1.0), {a}));
  g.add_dependency(a, b);
  CHECK_THROWS_AS(run_task_graph(g, {}), std::logic_error);
}
