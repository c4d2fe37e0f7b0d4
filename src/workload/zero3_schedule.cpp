#include "ckptsim/workload/zero3_schedule.hpp"

#include <algorithm>
#include <numeric>

namespace ckptsim {

double SubModule::fetched(double threshold) const {
  double sum = 0;
  for (double t : tensors) {
    if (t >= threshold) sum += t;  // persistent: ds_numel < threshold (parameter_offload.py line 319)
  }
  return sum;
}

double SubModule::total() const { return std::accumulate(tensors.begin(), tensors.end(), 0.0); }

namespace {

// Step 3: module(j) stays gathered when it is met again before the elements of the uses
// passed reach max_reuse_distance, i.e. when its next use n exists and the uses strictly
// between j and n hold fewer than max_reuse_distance elements. With prefix sums of the uses'
// elements and each use's next use of the same module, that is O(1) per use.
struct ReuseIndex {
  std::vector<double> prefix;      // prefix[i] = elements of uses 0..i-1
  std::vector<std::size_t> next;   // next use of the same module, or uses.size()
  [[nodiscard]] bool reused_soon(std::size_t j, double max_reuse) const {
    const std::size_t n = next[j];
    return n < next.size() && prefix[n] - prefix[j + 1] < max_reuse;
  }
};

ReuseIndex make_reuse_index(const std::vector<SubModule>& modules, const std::vector<ModuleUse>& uses) {
  ReuseIndex r;
  r.prefix.assign(uses.size() + 1, 0.0);
  r.next.assign(uses.size(), uses.size());
  std::vector<std::size_t> last(modules.size(), uses.size());
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const auto m = static_cast<std::size_t>(uses[i].module);
    r.prefix[i + 1] = r.prefix[i] + modules[m].total();
    if (last[m] < uses.size()) r.next[last[m]] = i;
    last[m] = i;
  }
  return r;
}

}  // namespace

Zero3Schedule plan_zero3(const std::vector<SubModule>& modules, const std::vector<ModuleUse>& uses, const Zero3Knobs& knobs) {
  Zero3Schedule s;
  const double threshold = knobs.param_persistence_threshold;
  std::vector<double> fetched(modules.size());
  for (std::size_t m = 0; m < modules.size(); ++m) fetched[m] = modules[m].fetched(threshold);
  std::vector<char> gathered(modules.size(), 0);
  std::vector<char> in_flight(modules.size(), 0);
  std::vector<int> group_of(modules.size(), -1);
  // The latest later use the prefetcher passed while the module was gathered (C 337-339); a
  // module is not released before it (C 431-440).
  std::vector<std::size_t> skipped_until(modules.size(), 0);
  s.waits_on.assign(uses.size(), -1);
  s.first_wait.assign(uses.size(), 0);
  s.releases.assign(uses.size(), 0);
  double live = 0;
  std::size_t queue = 0;  // next trace entry the prefetcher looks at
  const ReuseIndex reuse = make_reuse_index(modules, uses);
  auto gather = [&](GatherGroup& g, int m) {
    const auto mm = static_cast<std::size_t>(m);
    gathered[mm] = 1;
    in_flight[mm] = 1;
    group_of[mm] = static_cast<int>(s.gathers.size());
    g.modules.push_back(m);
    g.elements += fetched[mm];
  };
  for (std::size_t j = 0; j < uses.size(); ++j) {
    const int m = uses[j].module;
    const auto mm = static_cast<std::size_t>(m);
    const int step = static_cast<int>(j);
    if (fetched[mm] > 0) {
      if (!gathered[mm]) {  // 1. fetch on demand
        GatherGroup own{step, true, 0, {}};
        gather(own, m);
        live += own.elements;
        s.gathers.push_back(std::move(own));
      }
      s.waits_on[j] = group_of[mm];
      s.first_wait[j] = in_flight[mm];  // 2. wait
      in_flight[mm] = 0;
    }
    queue = std::max(queue, j + 1);
    if (knobs.complete_trace && knobs.prefetch_bucket_size > 0) {  // 3. prefetch
      const double limit = std::min(knobs.max_live_parameters - live, knobs.prefetch_bucket_size);
      GatherGroup ahead{step, false, 0, {}};
      while (queue < uses.size() && ahead.elements < limit) {
        const auto next = static_cast<std::size_t>(uses[queue].module);
        if (fetched[next] > 0 && !gathered[next]) {
          gather(ahead, static_cast<int>(next));
        } else if (fetched[next] > 0) {
          skipped_until[next] = std::max(skipped_until[next], queue);
        }
        ++queue;
      }
      if (ahead.elements > 0) {
        live += ahead.elements;
        s.gathers.push_back(std::move(ahead));
      }
    }
    s.peak_live = std::max(s.peak_live, live);
    const bool keep = knobs.complete_trace && (reuse.reused_soon(j, knobs.max_reuse_distance) || skipped_until[mm] > j);
    if (fetched[mm] > 0 && !keep) {  // 4. release
      gathered[mm] = 0;
      live -= fetched[mm];
      s.releases[j] = 1;
    }
  }
  return s;
}

}  // namespace ckptsim
