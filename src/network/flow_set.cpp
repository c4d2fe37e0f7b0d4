#include "ckptsim/network/flow_set.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>

namespace ckptsim {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

FlowSet::FlowSet(std::vector<double> capacities)
    : capacities_(std::move(capacities)),
      members_(capacities_.size()),
      wide_refs_(capacities_.size(), 0),
      resource_visit_(capacities_.size(), 0),
      used_(capacities_.size(), 0.0),
      weight_(capacities_.size(), 0.0),
      unfrozen_(capacities_.size(), 0),
      level_key_(capacities_.size(), 0.0) {}

void FlowSet::add(std::span<const ResourceUse> uses, double bytes, std::int64_t tag, double rate_cap) {
  int f = 0;
  if (!free_.empty()) {
    f = free_.back();
    free_.pop_back();
  } else {
    f = static_cast<int>(flows_.size());
    flows_.emplace_back();
    hot_.emplace_back();
    new_rate_.push_back(0.0);
    heap_pos_.push_back(-1);
  }
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  HotFlow& hot = hot_[static_cast<std::size_t>(f)];
  hot.uses = uses;
  hot.alive = true;
  hot.capped = std::isfinite(rate_cap);
  flow.remaining = bytes;
  flow.rate = 0.0;
  flow.rate_cap = rate_cap;
  flow.finish = kInf;
  flow.since = now_;
  flow.tag = tag;
  flow.seq = next_seq_++;
  heap_pos_[static_cast<std::size_t>(f)] = -1;
  flow.is_new = true;
  hot.wide = uses.size() >= kWideUses;
  if (hot.wide) {
    add_wide(f);
  } else {
    add_members(f);
  }
  dirty_flows_.push_back(f);  // the walk from the new flow reaches all its resources
  ++alive_;
}

void FlowSet::add_members(int f) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  const std::span<const ResourceUse> uses = hot_[static_cast<std::size_t>(f)].uses;
  flow.member_pos.resize(uses.size());
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const int r = uses[i].resource;
    assert(r >= 0 && static_cast<std::size_t>(r) < capacities_.size());
    assert(uses[i].weight > 0.0);
    auto& list = members_[static_cast<std::size_t>(r)];
    flow.member_pos[i] = static_cast<std::uint32_t>(list.size());
    list.push_back(Member{f, static_cast<std::uint32_t>(i)});
  }
}

// The row stays all zero while the slot is free (remove_wide clears what add_wide set).
void FlowSet::add_wide(int f) {
  if (wide_rows_.size() <= static_cast<std::size_t>(f)) wide_rows_.resize(static_cast<std::size_t>(f) + 1);
  std::vector<std::uint8_t>& row = wide_rows_[static_cast<std::size_t>(f)];
  row.resize(capacities_.size(), 0);
  for (const ResourceUse& u : hot_[static_cast<std::size_t>(f)].uses) {
    assert(u.resource >= 0 && static_cast<std::size_t>(u.resource) < capacities_.size());
    assert(u.weight > 0.0);
    row[static_cast<std::size_t>(u.resource)] = 1;
    ++wide_refs_[static_cast<std::size_t>(u.resource)];
  }
  wide_alive_.push_back(f);
}

// Calls visit(slot) for every alive flow crossing `resource`: its member list, then the wide
// flows whose row marks it.
template <typename Visit>
void FlowSet::for_each_flow_on(int resource, Visit&& visit) const {
  const auto r = static_cast<std::size_t>(resource);
  for (const Member& m : members_[r]) visit(m.flow);
  if (wide_alive_.empty() || wide_refs_[r] == 0) return;
  for (const int f : wide_alive_) {
    if (wide_rows_[static_cast<std::size_t>(f)][r] != 0) visit(f);
  }
}

double FlowSet::remaining_at(const Flow& f, SimTime t) const {
  if (t == f.since) return f.remaining;
  if (std::isinf(f.rate)) return 0.0;
  return f.remaining - f.rate * (t - f.since).seconds();
}

void FlowSet::resolve() {
  if (dirty_spans_.empty() && dirty_flows_.empty()) return;
  ++solves_;
  collect_components();
  fill_component();
  apply_rates();
  dirty_spans_.clear();
  dirty_flows_.clear();
}

// The flows to re-solve: the components of the dirty resources and new flows, found by a
// breadth-first walk of the resource <-> flow graph. When the last walk found one component
// holding every alive flow (as with many flows on few links), the walk is skipped and every
// alive flow is taken: the whole set is always a union of whole components, so the allocation
// is the same, and listing it costs O(slots + resources) instead of O(2 x uses). Every
// kWalkEvery-th re-solve walks anyway, to notice when completions have split the component.
void FlowSet::collect_components() {
  if (last_walk_reached_all_ && solves_ % kWalkEvery != 0) {
    comp_flows_.clear();
    comp_resources_.clear();
    for (std::size_t f = 0; f < hot_.size(); ++f) {
      if (hot_[f].alive) comp_flows_.push_back(static_cast<int>(f));
    }
    for (std::size_t r = 0; r < members_.size(); ++r) {
      if (!members_[r].empty() || wide_refs_[r] > 0) comp_resources_.push_back(static_cast<int>(r));
    }
    return;
  }
  const std::size_t components = walk_components();
  last_walk_reached_all_ = components == 1 && comp_flows_.size() == alive_;
}

// Walks from each dirty resource (one crossed by a removed flow) and new flow in turn; counts
// the components found.
std::size_t FlowSet::walk_components() {
  if (++stamp_ == 0) {  // wrapped: forget every old stamp
    std::fill(resource_visit_.begin(), resource_visit_.end(), 0U);
    for (HotFlow& f : hot_) f.visit = 0;
    stamp_ = 1;
  }
  comp_flows_.clear();
  comp_resources_.clear();
  auto visit_resource = [&](int r) {
    if (resource_visit_[static_cast<std::size_t>(r)] == stamp_) return;
    resource_visit_[static_cast<std::size_t>(r)] = stamp_;
    comp_resources_.push_back(r);
  };
  auto visit_flow = [&](int f) {
    HotFlow& flow = hot_[static_cast<std::size_t>(f)];
    if (!flow.alive || flow.visit == stamp_) return;
    flow.visit = stamp_;
    comp_flows_.push_back(f);
  };
  std::size_t next_resource = 0;
  std::size_t next_flow = 0;
  std::size_t components = 0;
  auto drain = [&] {
    const std::size_t before = next_flow;
    while (next_resource < comp_resources_.size() || next_flow < comp_flows_.size()) {
      while (next_resource < comp_resources_.size()) {
        const int r = comp_resources_[next_resource++];
        for_each_flow_on(r, visit_flow);
      }
      while (next_flow < comp_flows_.size()) {
        const int f = comp_flows_[next_flow++];
        for (const ResourceUse& u : hot_[static_cast<std::size_t>(f)].uses) visit_resource(u.resource);
      }
    }
    if (next_flow > before) ++components;
  };
  for (const std::span<const ResourceUse> uses : dirty_spans_) {
    for (const ResourceUse& u : uses) {
      visit_resource(u.resource);
      drain();
    }
  }
  for (int f : dirty_flows_) {
    visit_flow(f);
    drain();
  }
  return components;
}

void FlowSet::freeze(int f, double rate) {
  HotFlow& flow = hot_[static_cast<std::size_t>(f)];
  flow.frozen = true;
  new_rate_[static_cast<std::size_t>(f)] = rate;
  for (const ResourceUse& u : flow.uses) {
    const auto r = static_cast<std::size_t>(u.resource);
    used_[r] += u.weight * rate;
    weight_[r] -= u.weight;
    --unfrozen_[r];
  }
  round_frozen_.push_back(f);
}

// Level at which resource r saturates if every unfrozen flow on it keeps rising together.
double FlowSet::saturation_level(int r) const {
  const auto i = static_cast<std::size_t>(r);
  return std::max(capacities_[i] - used_[i], 0.0) / weight_[i];
}

// Freezes the next bottleneck: the capped flow at `next_cap` when its cap is at most the
// resource level `key` (of resource `r`), else every unfrozen flow on r. Returns the count.
std::size_t FlowSet::freeze_next(double key, int r, std::size_t& next_cap, double& level) {
  round_frozen_.clear();
  while (next_cap < capped_.size() && hot_[static_cast<std::size_t>(capped_[next_cap].second)].frozen) ++next_cap;
  if (next_cap < capped_.size() && (r < 0 || capped_[next_cap].first <= key)) {
    level = std::max(level, capped_[next_cap].first);
    freeze(capped_[next_cap++].second, level);
    return 1;
  }
  assert(r >= 0);
  level = std::max(level, key);  // rounding may put a key a hair below the level reached
  for_each_flow_on(r, [&](int f) {
    if (!hot_[static_cast<std::size_t>(f)].frozen) freeze(f, level);
  });
  return round_frozen_.size();
}

// Progressive filling over the collected flows, bottleneck by bottleneck (header comment).
void FlowSet::fill_component() {
  for (int r : comp_resources_) {
    const auto i = static_cast<std::size_t>(r);
    used_[i] = 0.0;
    weight_[i] = 0.0;
    unfrozen_[i] = 0;
  }
  capped_.clear();
  std::size_t unfrozen_flows = 0;
  std::size_t uses_in_component = 0;
  for (int f : comp_flows_) {
    HotFlow& flow = hot_[static_cast<std::size_t>(f)];
    flow.frozen = false;
    if (flow.uses.empty()) {  // crosses nothing: its cap, or unconstrained
      flow.frozen = true;
      new_rate_[static_cast<std::size_t>(f)] = flows_[static_cast<std::size_t>(f)].rate_cap;
      continue;
    }
    ++unfrozen_flows;
    uses_in_component += flow.uses.size();
    for (const ResourceUse& u : flow.uses) {
      weight_[static_cast<std::size_t>(u.resource)] += u.weight;
      ++unfrozen_[static_cast<std::size_t>(u.resource)];
    }
    if (flow.capped) capped_.emplace_back(flows_[static_cast<std::size_t>(f)].rate_cap, f);
  }
  std::sort(capped_.begin(), capped_.end());
  // Scanning costs (rounds x resources), rounds <= min(flows, resources); the heap costs about
  // (uses x log uses): scan when that bound is within a few passes over the uses.
  const std::size_t resources = comp_resources_.size();
  const std::size_t rounds_bound = std::min(unfrozen_flows + capped_.size(), resources);
  if (resources <= kScanResources || rounds_bound * resources <= kScanPasses * uses_in_component) {
    fill_by_scan(unfrozen_flows);
  } else {
    fill_by_heap(unfrozen_flows);
  }
}

// Few resources or few rounds: each round scans the resources still carrying unfrozen flows for the lowest
// saturation level, O(rounds x resources) with no heap traffic.
void FlowSet::fill_by_scan(std::size_t unfrozen_flows) {
  active_.clear();
  for (int r : comp_resources_) {
    if (unfrozen_[static_cast<std::size_t>(r)] > 0) active_.push_back(r);
  }
  double level = 0.0;
  std::size_t next_cap = 0;
  while (unfrozen_flows > 0) {
    double best = kInf;
    int best_r = -1;
    std::size_t kept = 0;
    for (const int r : active_) {
      if (unfrozen_[static_cast<std::size_t>(r)] == 0) continue;
      active_[kept++] = r;
      const double key = saturation_level(r);
      if (key < best || (key == best && r < best_r)) {
        best = key;
        best_r = r;
      }
    }
    active_.resize(kept);
    unfrozen_flows -= freeze_next(best, best_r, next_cap, level);
  }
}

// Many resources: a lazy min-heap of (level, resource); after each round only the resources
// crossed by the flows just frozen are re-keyed, O(uses x log uses) in all.
void FlowSet::fill_by_heap(std::size_t unfrozen_flows) {
  using Entry = std::pair<double, int>;  // ties broken by resource index
  const auto later = std::greater<Entry>();
  level_heap_.clear();
  for (int r : comp_resources_) {
    const auto i = static_cast<std::size_t>(r);
    if (unfrozen_[i] == 0) continue;
    level_key_[i] = saturation_level(r);
    level_heap_.emplace_back(level_key_[i], r);
  }
  std::make_heap(level_heap_.begin(), level_heap_.end(), later);
  double level = 0.0;
  std::size_t next_cap = 0;
  while (unfrozen_flows > 0) {
    while (!level_heap_.empty()) {  // drop stale keys
      const auto [key, r] = level_heap_.front();
      if (unfrozen_[static_cast<std::size_t>(r)] > 0 && key == level_key_[static_cast<std::size_t>(r)]) break;
      std::pop_heap(level_heap_.begin(), level_heap_.end(), later);
      level_heap_.pop_back();
    }
    const Entry top = level_heap_.empty() ? Entry{kInf, -1} : level_heap_.front();
    unfrozen_flows -= freeze_next(top.first, top.second, next_cap, level);
    for (const int f : round_frozen_) {
      for (const ResourceUse& u : hot_[static_cast<std::size_t>(f)].uses) {
        const auto i = static_cast<std::size_t>(u.resource);
        if (unfrozen_[i] == 0) continue;
        const double key = saturation_level(u.resource);
        if (key == level_key_[i]) continue;
        level_key_[i] = key;
        level_heap_.emplace_back(key, u.resource);
        std::push_heap(level_heap_.begin(), level_heap_.end(), later);
      }
    }
  }
}

// Re-bases the flows whose rate changed (remaining bytes at now) and re-keys their finish.
void FlowSet::apply_rates() {
  changed_.clear();
  const double now_s = now_.seconds();
  for (int f : comp_flows_) {
    Flow& flow = flows_[static_cast<std::size_t>(f)];
    const double x = new_rate_[static_cast<std::size_t>(f)];
    ++flows_resolved_;
    if (!flow.is_new && x == flow.rate) continue;
    if (!flow.is_new) flow.remaining = remaining_at(flow, now_);
    flow.is_new = false;
    flow.since = now_;
    flow.rate = x;
    if (flow.remaining <= 0 || std::isinf(x)) {
      flow.finish = now_s;
    } else {
      flow.finish = x > 0 ? now_s + flow.remaining / x : kInf;
    }
    changed_.push_back(f);
  }
  if (changed_.size() * 2 > alive_) {
    heap_rebuild();
    return;
  }
  for (int f : changed_) {
    if (heap_pos_[static_cast<std::size_t>(f)] < 0) {
      heap_push(f);
    } else {
      heap_update(f);
    }
  }
}

const std::vector<double>& FlowSet::rates() {
  resolve();
  std::vector<std::pair<std::uint64_t, double>> by_seq;
  for (std::size_t s = 0; s < flows_.size(); ++s) {
    if (hot_[s].alive) by_seq.emplace_back(flows_[s].seq, flows_[s].rate);
  }
  std::sort(by_seq.begin(), by_seq.end());
  rates_out_.clear();
  for (const auto& [seq, rate] : by_seq) rates_out_.push_back(rate);
  return rates_out_;
}

std::optional<SimTime> FlowSet::next_completion() {
  if (alive_ == 0) return std::nullopt;
  resolve();
  const Flow& flow = flows_[static_cast<std::size_t>(heap_.front().slot)];
  const double left = remaining_at(flow, now_);
  const double seconds = left <= 0 || std::isinf(flow.rate) ? 0.0 : left / flow.rate;
  assert(std::isfinite(seconds));  // every alive flow crosses a finite-capacity resource
  return now_ + SimTime::from_ns(static_cast<std::int64_t>(std::ceil(seconds * 1e9)));
}

std::vector<std::int64_t> FlowSet::advance_to(SimTime t) {
  assert(t >= now_);
  std::vector<std::int64_t> done;
  if (alive_ == 0) {
    now_ = t;
    return done;
  }
  resolve();
  // Candidates: projected finish within a nanosecond of t (plus rounding slack); each is then
  // tested exactly: done when less than one nanosecond of work is left at its rate.
  const double t_s = t.seconds();
  const double horizon = t_s + 2e-9 + 1e-15 * std::abs(t_s);
  std::vector<int> finished;
  std::vector<int> kept;
  while (!heap_.empty() && heap_.front().finish <= horizon) {
    const int f = heap_.front().slot;
    heap_erase(f);
    const Flow& flow = flows_[static_cast<std::size_t>(f)];
    const double left = remaining_at(flow, t);
    if (left <= flow.rate * 1e-9 || left <= 0) {
      finished.push_back(f);
    } else {
      kept.push_back(f);
    }
  }
  for (int f : kept) heap_push(f);
  std::sort(finished.begin(), finished.end(), [&](int a, int b) {
    return flows_[static_cast<std::size_t>(a)].seq < flows_[static_cast<std::size_t>(b)].seq;
  });
  done.reserve(finished.size());
  for (int f : finished) {
    done.push_back(flows_[static_cast<std::size_t>(f)].tag);
    remove(f);
  }
  now_ = t;
  return done;
}

void FlowSet::remove_wide(int f) {
  std::vector<std::uint8_t>& row = wide_rows_[static_cast<std::size_t>(f)];
  for (const ResourceUse& u : hot_[static_cast<std::size_t>(f)].uses) {
    row[static_cast<std::size_t>(u.resource)] = 0;
    --wide_refs_[static_cast<std::size_t>(u.resource)];
  }
  wide_alive_.erase(std::find(wide_alive_.begin(), wide_alive_.end(), f));
}

void FlowSet::remove_members(int f) {
  const Flow& flow = flows_[static_cast<std::size_t>(f)];
  const std::span<const ResourceUse> uses = hot_[static_cast<std::size_t>(f)].uses;
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const int r = uses[i].resource;
    auto& list = members_[static_cast<std::size_t>(r)];
    const std::uint32_t pos = flow.member_pos[i];
    const Member last = list.back();
    list[pos] = last;
    flows_[static_cast<std::size_t>(last.flow)].member_pos[last.use] = pos;
    list.pop_back();
  }
}

void FlowSet::remove(int f) {
  HotFlow& hot = hot_[static_cast<std::size_t>(f)];
  if (hot.wide) {
    remove_wide(f);
  } else {
    remove_members(f);
  }
  dirty_spans_.push_back(hot.uses);  // the resources it crossed
  if (heap_pos_[static_cast<std::size_t>(f)] >= 0) heap_erase(f);
  hot.alive = false;
  free_.push_back(f);
  --alive_;
}

}  // namespace ckptsim
