#include "rank_loop.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <thread>
#include <chrono>
#include <vector>

#include "pattern.hpp"
#include "token_bucket.hpp"

namespace ckptsim::replay {

namespace {

constexpr int kCreditTag = 2;
using Progress = Backend::Progress;

// Byte range [begin, end) of each chunk within its copy's shard (fractional plan sizes are
// cut at floor of the running sum, so the ranges tile the shard exactly).
std::vector<std::pair<std::size_t, std::size_t>> chunk_ranges(const PlanRank& pr, int copies, std::size_t shard) {
  std::vector<double> cum(static_cast<std::size_t>(copies), 0.0);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const PlanChunk& c : pr.chunks) {
    double& sum = cum[static_cast<std::size_t>(c.copy)];
    const auto begin = std::min(shard, static_cast<std::size_t>(std::floor(sum)));
    sum += c.bytes;
    const auto end = std::min(shard, static_cast<std::size_t>(std::floor(sum + 1e-6)));
    out.emplace_back(begin, std::max(begin, end));
  }
  // The last chunk of each copy ends at the shard's end (absorbs rounding).
  for (int c = 0; c < copies; ++c) {
    for (std::size_t k = pr.chunks.size(); k-- > 0;) {
      if (pr.chunks[k].copy == c) {
        out[k].second = shard;
        break;
      }
    }
  }
  return out;
}

// A chunk moved as segments: the backend's operations, polled until all completed.
struct Segmented {
  std::vector<Backend::Handle> handles;
  std::size_t completed = 0;  // handles[0 .. completed) are done
  std::size_t next = 0;       // next byte to post
  double released = 0;        // when the reserved segment has passed the token bucket
  bool reserved = false;      // tokens taken for the next segment, not yet posted
  Span span;
};

struct InFlight {  // one chunk to this rank: being received, then being copied into CPU memory
  int index = 0;
  Segmented receive;
  bool copying = false;
  Backend::Handle copy = 0;
  CopyRecord record;
};

struct Incoming {  // one sender's chunks to this rank
  int sender = 0;
  int slot = 0;             // the backend's replica and sub-buffers of this sender
  std::vector<int> chunks;  // indices in the sender's plan
  std::size_t next_post = 0;
  std::deque<InFlight> in_flight;
  std::vector<MPI_Request> credits;
};

// Polls the segments in order; true once all completed (span end: the last one's end).
bool poll_all(Backend& backend, Segmented& s, bool& progressed) {
  Span m;
  while (s.completed < s.handles.size()) {
    const Progress p = backend.poll(s.handles[s.completed], m);
    if (p != Progress::waiting) progressed = true;
    if (p != Progress::done) return false;
    s.span.end_s = std::max(s.span.end_s, m.end_s);
    ++s.completed;
  }
  return true;
}

class RankLoop {
 public:
  RankLoop(const ReplayPlan& plan, const EngineOptions& options, Backend& backend, MPI_Comm world);
  ~RankLoop() { MPI_Comm_free(&ctrl_comm_); }
  RankLoop(const RankLoop&) = delete;
  RankLoop& operator=(const RankLoop&) = delete;
  IterationRecord run(int iteration);
  IntegrityFailure verify(int iteration) const;

 private:
  double now() const { return backend_.now(); }
  bool deps_done(const PlanOp& op) const;
  bool op_may_start(const PlanOp& op) const;
  bool step_compute();
  bool step_collective(OpKind kind, std::size_t& cursor, Backend::Handle& handle, bool& active, double& release);
  bool step_markers();
  bool step_credits();
  bool step_sends();
  bool start_chunk_allowed(std::size_t k) const;
  bool post_receives(Incoming& in);
  bool step_receives();
  bool step_local_copy();
  bool finished();
  void reset(int iteration);

  const ReplayPlan& plan_;
  const EngineOptions& opt_;
  Backend& backend_;
  int rank_ = 0;
  int n_ = 1;
  MPI_Comm ctrl_comm_{};  // credits
  std::size_t shard_ = 0;
  int p_ = 1;
  std::vector<std::pair<std::size_t, std::size_t>> my_ranges_;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> ranges_of_;  // per rank
  std::vector<int> compute_ops_, ag_ops_, rs_ops_, marker_ops_;
  std::vector<Incoming> incoming_;
  // Per-iteration state.
  int iteration_ = 0;
  std::unique_ptr<TokenBucket> bucket_;
  IterationRecord rec_;
  std::vector<char> done_;
  std::size_t compute_cursor_ = 0, ag_cursor_ = 0, rs_cursor_ = 0;
  Backend::Handle compute_h_ = 0, ag_h_ = 0, rs_h_ = 0, local_h_ = 0;
  bool compute_active_ = false, ag_active_ = false, rs_active_ = false, local_active_ = false;
  double ag_release_ = 0, rs_release_ = 0;
  std::size_t send_cursor_ = 0;
  bool send_active_ = false;
  Segmented send_;
  std::vector<char> credited_;
  std::size_t credits_seen_ = 0;
};

RankLoop::RankLoop(const ReplayPlan& plan, const EngineOptions& options, Backend& backend, MPI_Comm world)
    : plan_(plan), opt_(options), backend_(backend) {
  MPI_Comm_rank(world, &rank_);
  MPI_Comm_size(world, &n_);
  MPI_Comm_dup(world, &ctrl_comm_);
  shard_ = static_cast<std::size_t>(std::floor(plan.shard_bytes));
  p_ = std::max(1, plan.sub_buffers);
  for (const PlanRank& pr : plan.rank_plans) ranges_of_.push_back(chunk_ranges(pr, plan.copies, shard_));
  my_ranges_ = ranges_of_[static_cast<std::size_t>(rank_)];
  double coll_max = 0;
  for (const PlanOp& op : plan.ops) {
    switch (op.kind) {
      case OpKind::compute: compute_ops_.push_back(op.id); break;
      case OpKind::all_gather: ag_ops_.push_back(op.id); coll_max = std::max(coll_max, op.bytes); break;
      case OpKind::reduce_scatter:
      case OpKind::all_reduce: rs_ops_.push_back(op.id); coll_max = std::max(coll_max, op.bytes); break;
      case OpKind::marker: marker_ops_.push_back(op.id); break;
    }
  }
  BufferLayout layout;
  layout.shard = shard_;
  // A ring collective's per-rank block is bytes / (n-1), in whole floats.
  layout.collective_block = n_ > 1 ? static_cast<std::size_t>(coll_max / (n_ - 1)) / 4 * 4 + 4 : 4;
  layout.sub_buffer = static_cast<std::size_t>(std::ceil(plan.chunk_limit_bytes)) + 1;
  layout.sub_buffers = p_;
  for (const PlanRank& pr : plan.rank_plans) {
    Incoming in;
    in.sender = pr.rank;
    for (const PlanChunk& c : pr.chunks) {
      if (c.peer == rank_) in.chunks.push_back(c.index);
    }
    if (in.chunks.empty()) continue;
    in.slot = static_cast<int>(incoming_.size());
    layout.senders.push_back(pr.rank);
    incoming_.push_back(std::move(in));
  }
  backend_.allocate(layout);
}

bool RankLoop::deps_done(const PlanOp& op) const {
  return std::all_of(op.deps.begin(), op.deps.end(), [&](int d) { return done_[static_cast<std::size_t>(d)] != 0; });
}

bool RankLoop::op_may_start(const PlanOp& op) const {
  if (!deps_done(op)) return false;
  const std::size_t chunks = my_ranges_.size();
  const bool all_sent = send_cursor_ >= chunks;
  if (plan_.blocks_training && op.deps.empty() && !all_sent) return false;
  if (op.id == plan_.optimizer_op && (!all_sent || rec_.local_copy.end_s < 0)) return false;
  return true;
}

bool RankLoop::step_compute() {
  if (compute_cursor_ >= compute_ops_.size()) return false;
  const PlanOp& op = plan_.ops[static_cast<std::size_t>(compute_ops_[compute_cursor_])];
  if (!compute_active_) {
    if (!op_may_start(op)) return false;
    compute_h_ = backend_.compute(op.flops);
    compute_active_ = true;
  }
  Span m;
  const Progress p = backend_.poll(compute_h_, m);
  if (p != Progress::done) return p == Progress::working;
  rec_.ops[static_cast<std::size_t>(op.id)] = m;
  done_[static_cast<std::size_t>(op.id)] = 1;
  compute_active_ = false;
  ++compute_cursor_;
  return true;
}

bool RankLoop::step_collective(OpKind kind, std::size_t& cursor, Backend::Handle& handle, bool& active, double& release) {
  const std::vector<int>& ops = kind == OpKind::all_gather ? ag_ops_ : rs_ops_;
  if (cursor >= ops.size()) return false;
  const PlanOp& op = plan_.ops[static_cast<std::size_t>(ops[cursor])];
  if (!active) {
    if (!op_may_start(op)) return false;
    release = bucket_->take(op.bytes, now());
    handle = backend_.collective(op.kind, op.bytes);
    active = true;
    return true;
  }
  Span m;
  if (backend_.poll(handle, m) != Progress::done || now() < release) return false;
  m.end_s = std::max(m.end_s, release);  // the emulated link has carried the op's bytes
  rec_.ops[static_cast<std::size_t>(op.id)] = m;
  done_[static_cast<std::size_t>(op.id)] = 1;
  active = false;
  ++cursor;
  return true;
}

bool RankLoop::step_markers() {
  bool progressed = false;
  for (int id : marker_ops_) {
    Span& s = rec_.ops[static_cast<std::size_t>(id)];
    if (s.end_s >= 0 || !op_may_start(plan_.ops[static_cast<std::size_t>(id)])) continue;
    s.start_s = s.end_s = now();
    done_[static_cast<std::size_t>(id)] = 1;
    progressed = true;
  }
  return progressed;
}

bool RankLoop::start_chunk_allowed(std::size_t k) const {
  const PlanChunk& c = plan_.rank_plans[static_cast<std::size_t>(rank_)].chunks[k];
  if (k >= static_cast<std::size_t>(p_) && !credited_[k - static_cast<std::size_t>(p_)]) return false;
  const int d = static_cast<int>(plan_.spans.size());
  double earliest = c.planned_start_s;
  if (c.span < 0) {
    earliest = c.offset_s;
  } else if (d > 0) {
    const PlanSpan& span = plan_.spans[static_cast<std::size_t>(std::min(c.span, d - 1))];
    if (span.after_op >= 0) {
      if (!done_[static_cast<std::size_t>(span.after_op)]) return false;
      earliest = rec_.ops[static_cast<std::size_t>(span.after_op)].end_s + (c.span >= d ? span.length_s : 0.0) + c.offset_s;
    }
  }
  return now() >= earliest;
}

// Credits: a receiver copied one of this rank's chunks out of its sub-buffer.
bool RankLoop::step_credits() {
  bool progressed = false;
  int flag = 1;
  while (flag) {
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kCreditTag, ctrl_comm_, &flag, &st);
    if (!flag) break;
    int index = 0;
    MPI_Recv(&index, 1, MPI_INT, st.MPI_SOURCE, kCreditTag, ctrl_comm_, MPI_STATUS_IGNORE);
    credited_[static_cast<std::size_t>(index)] = 1;
    ++credits_seen_;
    progressed = true;
  }
  return progressed;
}

bool RankLoop::step_sends() {
  bool progressed = step_credits();
  const auto& chunks = plan_.rank_plans[static_cast<std::size_t>(rank_)].chunks;
  if (send_cursor_ >= chunks.size()) return progressed;
  if (!send_active_) {
    if (!start_chunk_allowed(send_cursor_)) return progressed;
    send_ = Segmented{};
    send_.span.start_s = now();
    send_active_ = true;
  }
  const PlanChunk& c = chunks[send_cursor_];
  const auto [begin, end] = my_ranges_[send_cursor_];
  const std::size_t len = end - begin;
  const auto seg = static_cast<std::size_t>(opt_.segment_bytes);
  // Each segment pays its tokens first and is handed to the backend when the emulated link has
  // carried it, so the receiver sees it no earlier than a link of that rate would deliver it.
  while (send_.next < len) {
    const std::size_t n = std::min(seg, len - send_.next);
    if (!send_.reserved) {
      send_.released = bucket_->take(static_cast<double>(n), now());
      send_.reserved = true;
    }
    if (now() < send_.released) break;
    send_.handles.push_back(backend_.send(begin + send_.next, n, c.peer));
    send_.reserved = false;
    send_.next += n;
    progressed = true;
  }
  if (send_.next < len || !poll_all(backend_, send_, progressed)) return progressed;
  rec_.sends.push_back({c.index, c.copy, c.peer, static_cast<double>(len), send_.span});
  send_active_ = false;
  ++send_cursor_;
  return true;
}

// Posts receives into free sub-buffers, in chunk order (a sub-buffer is busy until the copy of
// the chunk it holds completed).
bool RankLoop::post_receives(Incoming& in) {
  bool progressed = false;
  const auto& plan_chunks = plan_.rank_plans[static_cast<std::size_t>(in.sender)].chunks;
  const auto& ranges = ranges_of_[static_cast<std::size_t>(in.sender)];
  const auto seg = static_cast<std::size_t>(opt_.segment_bytes);
  while (in.next_post < in.chunks.size()) {
    const int index = in.chunks[in.next_post];
    const int sb = plan_chunks[static_cast<std::size_t>(index)].sub_buffer;
    const bool busy = std::any_of(in.in_flight.begin(), in.in_flight.end(), [&](const InFlight& f) {
      return plan_chunks[static_cast<std::size_t>(f.index)].sub_buffer == sb;
    });
    if (busy) break;
    InFlight f;
    f.index = index;
    f.receive.span.start_s = now();
    const std::size_t len = ranges[static_cast<std::size_t>(index)].second - ranges[static_cast<std::size_t>(index)].first;
    for (std::size_t off = 0; off < len; off += seg) f.receive.handles.push_back(backend_.receive(in.slot, sb, off, std::min(seg, len - off)));
    in.in_flight.push_back(std::move(f));
    ++in.next_post;
    progressed = true;
  }
  return progressed;
}

bool RankLoop::step_receives() {
  bool progressed = false;
  for (Incoming& in : incoming_) {
    progressed |= post_receives(in);
    if (in.in_flight.empty()) continue;
    InFlight& f = in.in_flight.front();
    const auto& plan_chunks = plan_.rank_plans[static_cast<std::size_t>(in.sender)].chunks;
    const int sb = plan_chunks[static_cast<std::size_t>(f.index)].sub_buffer;
    const auto [begin, end] = ranges_of_[static_cast<std::size_t>(in.sender)][static_cast<std::size_t>(f.index)];
    if (!f.copying) {
      if (!poll_all(backend_, f.receive, progressed)) continue;
      if (iteration_ == opt_.corrupt_iteration && in.sender == opt_.corrupt_rank && f.index == opt_.corrupt_chunk && end > begin) {
        backend_.corrupt(in.slot, sb, (end - begin) / 2);  // --inject-corruption: one bit of one byte, in flight
      }
      f.record = CopyRecord{in.sender, f.index, static_cast<double>(end - begin), f.receive.span, {}};
      f.copy = backend_.copy_to_host(in.slot, sb, end - begin, begin);
      f.copying = true;
      progressed = true;
    }
    const Progress p = backend_.poll(f.copy, f.record.copy);
    if (p != Progress::waiting) progressed = true;
    if (p != Progress::done) continue;
    rec_.copies.push_back(f.record);
    in.credits.emplace_back();
    MPI_Isend(&plan_chunks[static_cast<std::size_t>(f.index)].index, 1, MPI_INT, in.sender, kCreditTag, ctrl_comm_, &in.credits.back());
    in.in_flight.pop_front();
  }
  return progressed;
}

bool RankLoop::step_local_copy() {
  if (rec_.local_copy.end_s >= 0) return false;
  if (!local_active_) {
    if (now() < plan_.rank_plans[static_cast<std::size_t>(rank_)].local_copy_start_s) return false;
    local_h_ = backend_.local_copy(0, shard_);
    local_active_ = true;
  }
  Span m;
  const Progress p = backend_.poll(local_h_, m);
  if (p == Progress::done) rec_.local_copy = m;
  return p != Progress::waiting;
}

bool RankLoop::finished() {
  if (compute_cursor_ < compute_ops_.size() || ag_cursor_ < ag_ops_.size() || rs_cursor_ < rs_ops_.size()) return false;
  if (!done_[static_cast<std::size_t>(plan_.optimizer_op)] || rec_.local_copy.end_s < 0) return false;
  for (int id : marker_ops_) {
    if (!done_[static_cast<std::size_t>(id)]) return false;
  }
  if (send_cursor_ < my_ranges_.size() || credits_seen_ < my_ranges_.size()) return false;
  for (Incoming& in : incoming_) {
    if (in.next_post < in.chunks.size() || !in.in_flight.empty()) return false;
    int all = 0;
    MPI_Testall(static_cast<int>(in.credits.size()), in.credits.data(), &all, MPI_STATUSES_IGNORE);
    if (!all) return false;
  }
  return true;
}

void RankLoop::reset(int iteration) {
  iteration_ = iteration;
  rec_ = IterationRecord{};
  rec_.iteration = iteration;
  rec_.ops.assign(plan_.ops.size(), Span{});
  done_.assign(plan_.ops.size(), 0);
  compute_cursor_ = ag_cursor_ = rs_cursor_ = 0;
  compute_active_ = ag_active_ = rs_active_ = local_active_ = false;
  send_cursor_ = 0;
  send_active_ = false;
  credited_.assign(my_ranges_.size(), 0);
  credits_seen_ = 0;
  for (Incoming& in : incoming_) {
    in.next_post = 0;
    in.credits.clear();
    in.credits.reserve(in.chunks.size());  // requests must not move while pending
  }
}

IterationRecord RankLoop::run(int iteration) {
  reset(iteration);
  backend_.begin_iteration(iteration);  // pattern into the shard, barrier, time zero
  // Depth one segment: a rank that polled late may catch up by one segment, never burst more.
  bucket_ = std::make_unique<TokenBucket>(opt_.bandwidth, opt_.segment_bytes, 0.0);
  const int sleep_us = opt_.idle_sleep_us >= 0 ? opt_.idle_sleep_us : backend_.idle_sleep_us();
  while (!finished()) {
    bool progressed = step_receives();
    progressed |= step_sends();
    progressed |= step_collective(OpKind::all_gather, ag_cursor_, ag_h_, ag_active_, ag_release_);
    progressed |= step_collective(OpKind::reduce_scatter, rs_cursor_, rs_h_, rs_active_, rs_release_);
    progressed |= step_markers();
    progressed |= step_local_copy();
    progressed |= step_compute();
    // Nothing to do: give the core to the other ranks (they may share it).
    if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  }
  rec_.iteration_time_s = rec_.ops[static_cast<std::size_t>(plan_.optimizer_op)].end_s;
  rec_.checkpoint_time_s = rec_.local_copy.end_s;
  for (const CopyRecord& c : rec_.copies) rec_.checkpoint_time_s = std::max(rec_.checkpoint_time_s, c.copy.end_s);
  return rec_;
}

// Checksums of what landed in CPU memory against the senders' known patterns.
IntegrityFailure RankLoop::verify(int iteration) const {
  std::vector<unsigned char> expected;
  for (const Incoming& in : incoming_) {
    const auto& ranges = ranges_of_[static_cast<std::size_t>(in.sender)];
    const unsigned char* replica = backend_.replica(in.slot);
    for (int index : in.chunks) {
      const auto [begin, end] = ranges[static_cast<std::size_t>(index)];
      expected.resize(end - begin);
      fill_pattern(expected.data(), begin, end - begin, in.sender, iteration);
      if (checksum(expected.data(), expected.size()) != checksum(replica + begin, end - begin)) {
        return {true, in.sender, rank_, index, iteration};
      }
    }
  }
  std::vector<unsigned char> own(shard_);
  fill_pattern(own.data(), 0, shard_, rank_, iteration);
  if (checksum(own.data(), shard_) != checksum(backend_.local_replica(), shard_)) return {true, rank_, rank_, -1, iteration};
  return {};
}

}  // namespace

RankRecord replay_rank(const ReplayPlan& plan, const EngineOptions& options, Backend& backend, MPI_Comm world,
                       IntegrityFailure& failure) {
  RankRecord record;
  MPI_Comm_rank(world, &record.rank);
  RankLoop loop(plan, options, backend, world);
  for (int it = 0; it < options.warmup + options.iterations; ++it) {
    IterationRecord r = loop.run(it);
    const IntegrityFailure f = loop.verify(it);
    if (f.failed && !failure.failed) failure = f;
    int local_bad = f.failed ? 1 : 0;
    int any_bad = 0;
    MPI_Allreduce(&local_bad, &any_bad, 1, MPI_INT, MPI_MAX, world);
    if (it >= options.warmup) record.iterations.push_back(std::move(r));
    if (any_bad) break;
  }
  return record;
}

}  // namespace ckptsim::replay
