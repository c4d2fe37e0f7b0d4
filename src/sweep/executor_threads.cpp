// Thread executor (executor.hpp).
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "ckptsim/sweep/executor.hpp"

namespace ckptsim::sweep {

void execute_threads(const SweepSpec& spec, const std::vector<std::int64_t>& todo, int jobs, CostCache& cache,
                     const RecordSink& done) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr error;
  auto worker = [&] {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      try {
        PointRecord record = evaluate_point(spec, todo[k], cache);
        std::lock_guard lock(mutex);
        if (!error) done(std::move(record));
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        next.store(todo.size());
        return;
      }
    }
  };
  const auto threads_wanted = static_cast<std::size_t>(std::max(1, jobs));
  const std::size_t count = std::min(threads_wanted, std::max<std::size_t>(1, todo.size()));
  if (count == 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (std::size_t j = 0; j < count; ++j) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace ckptsim::sweep
