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
    new_rate_.push_back(0.0);
  }
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  flow.uses = uses;
  flow.member_pos.resize(uses.size());
  flow.remaining = bytes;
  flow.rate = 0.0;
  flow.rate_cap = rate_cap;
  flow.finish = kInf;
  flow.since = now_;
  flow.tag = tag;
  flow.seq = next_seq_++;
  flow.heap_pos = -1;
  flow.alive = true;
  flow.is_new = true;
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const int r = uses[i].resource;
    assert(r >= 0 && static_cast<std::size_t>(r) < capacities_.size());
    assert(uses[i].weight > 0.0);
    auto& list = members_[static_cast<std::size_t>(r)];
    flow.member_pos[i] = static_cast<std::uint32_t>(list.size());
    list.push_back(Member{f, static_cast<std::uint32_t>(i)});
    mark_dirty(r);
  }
  dirty_flows_.push_back(f);
  ++alive_;
}

void FlowSet::mark_dirty(int resource) { dirty_resources_.push_back(resource); }

double FlowSet::remaining_at(const Flow& f, SimTime t) const {
  if (t == f.since) return f.remaining;
  if (std::isinf(f.rate)) return 0.0;
  return f.remaining - f.rate * (t - f.since).seconds();
}

void FlowSet::resolve() {
  if (dirty_resources_.empty() && dirty_flows_.empty()) return;
  ++solves_;
  collect_components();
  fill_component();
  apply_rates();
  dirty_resources_.clear();
  dirty_flows_.clear();
}

// Breadth-first walk of the resource <-> flow graph from the dirty resources and new flows.
void FlowSet::collect_components() {
  if (++stamp_ == 0) {  // wrapped: forget every old stamp
    std::fill(resource_visit_.begin(), resource_visit_.end(), 0U);
    for (Flow& f : flows_) f.visit = 0;
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
    Flow& flow = flows_[static_cast<std::size_t>(f)];
    if (!flow.alive || flow.visit == stamp_) return;
    flow.visit = stamp_;
    comp_flows_.push_back(f);
  };
  for (int r : dirty_resources_) visit_resource(r);
  for (int f : dirty_flows_) visit_flow(f);
  std::size_t next_resource = 0;
  std::size_t next_flow = 0;
  while (next_resource < comp_resources_.size() || next_flow < comp_flows_.size()) {
    while (next_resource < comp_resources_.size()) {
      const int r = comp_resources_[next_resource++];
      for (const Member& m : members_[static_cast<std::size_t>(r)]) visit_flow(m.flow);
    }
    while (next_flow < comp_flows_.size()) {
      const int f = comp_flows_[next_flow++];
      for (const ResourceUse& u : flows_[static_cast<std::size_t>(f)].uses) visit_resource(u.resource);
    }
  }
}

void FlowSet::freeze(int f, double rate) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  flow.frozen = true;
  new_rate_[static_cast<std::size_t>(f)] = rate;
  for (const ResourceUse& u : flow.uses) {
    const auto r = static_cast<std::size_t>(u.resource);
    used_[r] += u.weight * rate;
    weight_[r] -= u.weight;
    --unfrozen_[r];
    touched_.push_back(u.resource);
  }
}

// Progressive filling over the collected flows, bottleneck by bottleneck (header comment).
void FlowSet::fill_component() {
  using Entry = std::pair<double, int>;  // (L_r, r) or (cap, slot): ties broken by index
  const auto later = std::greater<Entry>();
  level_heap_.clear();
  capped_.clear();
  for (int r : comp_resources_) {
    const auto i = static_cast<std::size_t>(r);
    used_[i] = 0.0;
    weight_[i] = 0.0;
    unfrozen_[i] = 0;
  }
  std::size_t unfrozen_flows = 0;
  for (int f : comp_flows_) {
    Flow& flow = flows_[static_cast<std::size_t>(f)];
    flow.frozen = false;
    if (flow.uses.empty()) {  // crosses nothing: its cap, or unconstrained
      flow.frozen = true;
      new_rate_[static_cast<std::size_t>(f)] = flow.rate_cap;
      continue;
    }
    ++unfrozen_flows;
    for (const ResourceUse& u : flow.uses) {
      weight_[static_cast<std::size_t>(u.resource)] += u.weight;
      ++unfrozen_[static_cast<std::size_t>(u.resource)];
    }
    if (std::isfinite(flow.rate_cap)) capped_.emplace_back(flow.rate_cap, f);
  }
  std::sort(capped_.begin(), capped_.end());
  for (int r : comp_resources_) {
    const auto i = static_cast<std::size_t>(r);
    if (unfrozen_[i] == 0) continue;
    level_key_[i] = capacities_[i] / weight_[i];
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
    while (next_cap < capped_.size() && flows_[static_cast<std::size_t>(capped_[next_cap].second)].frozen) ++next_cap;
    touched_.clear();
    if (next_cap < capped_.size() && (level_heap_.empty() || capped_[next_cap].first <= level_heap_.front().first)) {
      level = std::max(level, capped_[next_cap].first);
      freeze(capped_[next_cap++].second, level);
      --unfrozen_flows;
    } else {
      assert(!level_heap_.empty());
      const auto [key, r] = level_heap_.front();
      std::pop_heap(level_heap_.begin(), level_heap_.end(), later);
      level_heap_.pop_back();
      level = std::max(level, key);  // rounding may put a key a hair below the level reached
      for (const Member& m : members_[static_cast<std::size_t>(r)]) {
        if (flows_[static_cast<std::size_t>(m.flow)].frozen) continue;
        freeze(m.flow, level);
        --unfrozen_flows;
      }
    }
    for (int r : touched_) {
      const auto i = static_cast<std::size_t>(r);
      if (unfrozen_[i] == 0) continue;
      const double key = std::max(capacities_[i] - used_[i], 0.0) / weight_[i];
      if (key == level_key_[i]) continue;
      level_key_[i] = key;
      level_heap_.emplace_back(key, r);
      std::push_heap(level_heap_.begin(), level_heap_.end(), later);
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
    if (flows_[static_cast<std::size_t>(f)].heap_pos < 0) {
      heap_push(f);
    } else {
      heap_update(f);
    }
  }
}

const std::vector<double>& FlowSet::rates() {
  resolve();
  std::vector<std::pair<std::uint64_t, double>> by_seq;
  for (const Flow& f : flows_) {
    if (f.alive) by_seq.emplace_back(f.seq, f.rate);
  }
  std::sort(by_seq.begin(), by_seq.end());
  rates_out_.clear();
  for (const auto& [seq, rate] : by_seq) rates_out_.push_back(rate);
  return rates_out_;
}

std::optional<SimTime> FlowSet::next_completion() {
  if (alive_ == 0) return std::nullopt;
  resolve();
  const Flow& flow = flows_[static_cast<std::size_t>(heap_.front())];
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
  while (!heap_.empty() && flows_[static_cast<std::size_t>(heap_.front())].finish <= horizon) {
    const int f = heap_.front();
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

void FlowSet::remove(int f) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  for (std::size_t i = 0; i < flow.uses.size(); ++i) {
    const int r = flow.uses[i].resource;
    auto& list = members_[static_cast<std::size_t>(r)];
    const std::uint32_t pos = flow.member_pos[i];
    const Member last = list.back();
    list[pos] = last;
    flows_[static_cast<std::size_t>(last.flow)].member_pos[last.use] = pos;
    list.pop_back();
    mark_dirty(r);
  }
  if (flow.heap_pos >= 0) heap_erase(f);
  flow.alive = false;
  free_.push_back(f);
  --alive_;
}

}  // namespace ckptsim
