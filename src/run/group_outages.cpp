// Replica groups out of the quorum (group_outages.hpp).
#include "ckptsim/run/group_outages.hpp"

#include <algorithm>
#include <cassert>

namespace ckptsim {

GroupOutages::GroupOutages(int groups, int min_groups) : groups_(std::max(1, groups)), min_groups_(std::max(1, min_groups)) {}

void GroupOutages::take_out(int group, SimTime from, SimTime until) {
  for (auto& o : outages_) {
    if (o.group != group) continue;
    if (from <= o.until) {  // still out (or rejoining at this instant): joined
      o.until = std::max(o.until, until);
      return;
    }
    o = Outage{group, from, until};
    return;
  }
  outages_.push_back(Outage{group, from, until});
}

void GroupOutages::drop_before(SimTime t) {
  std::erase_if(outages_, [t](const Outage& o) { return o.until <= t; });
}

int GroupOutages::out_at(SimTime t) const {
  int k = 0;
  for (const auto& o : outages_) k += (o.from <= t && t < o.until) ? 1 : 0;
  return k;
}

SimTime GroupOutages::work(SimTime from, SimTime to, const std::vector<std::pair<SimTime, SimTime>>& slow,
                           double slow_speed) {
  if (to <= from) return SimTime::zero();
  drop_before(from);
  if (outages_.empty() && slow.empty()) return to - from;
  // Piecewise constant speed between the edges of the outages and slow windows in [from, to).
  std::vector<SimTime> edges{from, to};
  const auto add_edge = [&](SimTime x) {
    if (x > from && x < to) edges.push_back(x);
  };
  for (const auto& o : outages_) {
    add_edge(o.from);
    add_edge(o.until);
  }
  for (const auto& [a, b] : slow) {
    add_edge(a);
    add_edge(b);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::int64_t work = 0;
  const std::int64_t g = groups_;
  std::size_t w = 0;
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    const int k = out_at(edges[i]);
    const std::int64_t up = g - k;
    if (up < min_groups_) continue;
    // len x up / G without overflow: (q G + r) up / G = q up + r up / G.
    const std::int64_t len = (edges[i + 1] - edges[i]).ns();
    std::int64_t part = (len / g) * up + (len % g) * up / g;
    while (w < slow.size() && slow[w].second <= edges[i]) ++w;
    if (w < slow.size() && slow[w].first <= edges[i])
      part = static_cast<std::int64_t>(static_cast<double>(part) * slow_speed);
    work += part;
  }
  assert(work <= (to - from).ns());
  return SimTime::from_ns(work);
}

}  // namespace ckptsim
