// Event queue throughput (issue: at least 10 million schedule+pop pairs per second).
// Steady state: the queue holds `range(0)` pending events; each iteration pops the earliest and
// schedules a new one a pseudo-random delay later, as a simulation loop does.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "ckptsim/core/event_queue.hpp"
#include "ckptsim/core/random.hpp"

namespace {

void BM_EventQueueSchedulePop(benchmark::State& state) {
  using ckptsim::SimTime;
  ckptsim::EventQueue<std::uint32_t> queue;
  const auto pending = static_cast<std::uint32_t>(state.range(0));
  std::uint64_t x = 12345;
  auto next_delay = [&x] {
    x = ckptsim::mix64(x);
    return static_cast<std::int64_t>(x % 1'000'000);
  };
  for (std::uint32_t i = 0; i < pending; ++i) queue.schedule(SimTime::from_ns(next_delay()), i);
  for (auto _ : state) {
    auto event = queue.pop();
    queue.schedule(event.time + SimTime::from_ns(next_delay()), event.payload);
    benchmark::DoNotOptimize(event);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueSchedulePop)->Arg(16)->Arg(1024)->Arg(65536);

}  // namespace
