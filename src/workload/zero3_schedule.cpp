#include "ckptsim/workload/zero3_schedule.hpp"

#include <algorithm>
#include <numeric>

namespace ckptsim {

double SubModule::fetched(double threshold) const {
  double sum = 0;
  for (double t : tensors) {
    if (t > threshold) sum += t;
  }
  return sum;
}

double SubModule::total() const { return std::accumulate(tensors.begin(), tensors.end(), 0.0); }

namespace {

// Step 3: module(j) stays gathered when it is met again before the elements of the uses
// passed reach max_reuse_distance.
bool reused_soon(const std::vector<SubModule>& modules, const std::vector<ModuleUse>& uses, std::size_t j,
                 double max_reuse) {
  const int m = uses[j].module;
  double traversed = 0;
  for (std::size_t i = j + 1; i < uses.size(); ++i) {
    if (traversed >= max_reuse) return false;
    if (uses[i].module == m) return true;
    traversed += modules[static_cast<std::size_t>(uses[i].module)].total();
  }
  return false;
}

}  // namespace

Zero3Schedule plan_zero3(const std::vector<SubModule>& modules, const std::vector<ModuleUse>& uses, const Zero3Knobs& knobs) {
  Zero3Schedule s;
  const double threshold = knobs.param_persistence_threshold;
  std::vector<double> fetched(modules.size());
  for (std::size_t m = 0; m < modules.size(); ++m) fetched[m] = modules[m].fetched(threshold);
  std::vector<char> gathered(modules.size(), 0);
  std::vector<int> group_of(modules.size(), -1);
  s.waits_on.assign(uses.size(), -1);
  double live = 0;
  double bucket = 0;
  std::size_t queue = 0;  // next trace entry the prefetcher looks at
  auto gather = [&](GatherGroup& g, int m) {
    const auto mm = static_cast<std::size_t>(m);
    gathered[mm] = 1;
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
        GatherGroup own{step, 0, {}};
        gather(own, m);
        live += own.elements;
        s.gathers.push_back(std::move(own));
      }
      s.waits_on[j] = group_of[mm];
    }
    queue = std::max(queue, j + 1);
    if (knobs.prefetch_bucket_size > 0) {  // 2. prefetch
      const double limit = std::min(knobs.max_live_parameters - live, knobs.prefetch_bucket_size);
      GatherGroup ahead{step, 0, {}};
      while (queue < uses.size() && ahead.elements < limit) {
        const int next = uses[queue++].module;
        if (fetched[static_cast<std::size_t>(next)] > 0 && !gathered[static_cast<std::size_t>(next)]) gather(ahead, next);
      }
      if (ahead.elements > 0) {
        live += ahead.elements;
        s.gathers.push_back(std::move(ahead));
      }
    }
    s.peak_live = std::max(s.peak_live, live);
    if (fetched[mm] > 0 && !reused_soon(modules, uses, j, knobs.max_reuse_distance)) {  // 3. release
      gathered[mm] = 0;
      live -= fetched[mm];
    }
    const double g = uses[j].gradient;
    if (g > 0) {
      if (bucket > 0 && bucket + g > knobs.reduce_bucket_size) {
        s.buckets.push_back({step, bucket});
        bucket = 0;
      }
      bucket += g;
    }
  }
  if (bucket > 0) s.buckets.push_back({static_cast<int>(uses.size()) - 1, bucket});
  return s;
}

}  // namespace ckptsim
