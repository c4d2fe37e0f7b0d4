#include "rank_loop.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <thread>
#include <chrono>
#include <vector>

#include "paced_link.hpp"
#include "pattern.hpp"

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
  std::vector<std::size_t> sizes;
  std::vector<double> deadlines;  // send: each segment's deadline on the paced link
  std::size_t next = 0;           // next segment to hand over
  std::size_t offset = 0;         // its first byte
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

// One NCCL call site in the plan's issue order (EngineOptions::plan_order): a collective (op
// id), this rank's send of one of its chunks, or its receive of a chunk from a sender.
struct IssueItem {
  enum Kind { collective, send, receive } kind = collective;
  int op = -1;      // collective: its id
  int sender = -1;  // receive: the sending rank
  int chunk = -1;   // send, receive: the chunk's index in the sender's plan
};

/// One stream of a rank's program (compute, all-gather, reduce-scatter): its ops in order and
/// the state of the one in flight. Ops on a stream run one at a time, as on a CUDA stream.
struct Stream {
  std::vector<int> ops;         // op ids, in plan order
  std::size_t cursor = 0;       // the next op (ops.size(): all done)
  Backend::Handle handle = 0;   // the op in flight
  bool active = false;          // an op is in flight
  double ready = 0;             // the simulator's ready time of the op in flight
  double free = 0;              // when the stream's last op ended
  [[nodiscard]] bool done() const { return cursor >= ops.size(); }
  void reset() {
    cursor = 0;
    active = false;
    free = 0;
  }
};

class RankLoop {
 public:
  RankLoop(const PlanFile& plan, const EngineOptions& options, Backend& backend, MPI_Comm world);
  ~RankLoop() { MPI_Comm_free(&ctrl_comm_); }
  RankLoop(const RankLoop&) = delete;
  RankLoop& operator=(const RankLoop&) = delete;
  IterationRecord run(int iteration);
  IntegrityFailure verify(int iteration) const;
  [[nodiscard]] const PacingReport& pacing() const { return link_.report(); }

 private:
  double now() const { return backend_.now(); }
  bool deps_done(const PlanOp& op) const;
  bool op_may_start(const PlanOp& op) const;
  bool step_compute();
  double ready_time(const PlanOp& op, double stream_free) const;
  bool step_collective(Stream& stream);
  bool poll_op(Stream& stream, const PlanOp& op);
  bool step_markers();
  bool step_credits();
  bool step_sends();
  std::optional<double> chunk_eligible(std::size_t k) const;
  bool post_receives(Incoming& in);
  void build_issue_order();
  bool may_issue(const IssueItem& item) const;
  void issued(const IssueItem& item);
  bool step_receives();
  bool step_local_copy();
  bool finished();
  void reset(int iteration);

  const PlanFile& plan_;
  const EngineOptions& opt_;
  Backend& backend_;
  int rank_ = 0;
  int n_ = 1;
  MPI_Comm ctrl_comm_{};  // credits
  std::size_t shard_ = 0;
  int p_ = 1;
  std::vector<std::pair<std::size_t, std::size_t>> my_ranges_;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> ranges_of_;  // per rank
  std::vector<int> marker_ops_;
  std::vector<Incoming> incoming_;
  PacedLink link_;  // this rank's sends (collectives and chunks); see paced_link.hpp
  // Per-iteration state.
  int iteration_ = 0;
  IterationRecord rec_;
  std::vector<char> done_;
  Stream compute_, all_gather_, reduce_scatter_;  // all-reduces go on the reduce-scatter stream
  Backend::Handle local_h_ = 0;
  bool local_active_ = false;
  std::size_t send_cursor_ = 0;
  bool send_active_ = false;
  Segmented send_;
  std::vector<double> credited_;  // when each chunk's credit arrived (< 0: not yet)
  std::vector<IssueItem> order_;  // plan_order: every NCCL call site of this rank, in issue order
  std::size_t order_next_ = 0;
  std::size_t credits_seen_ = 0;
};

RankLoop::RankLoop(const PlanFile& plan, const EngineOptions& options, Backend& backend, MPI_Comm world)
    : plan_(plan), opt_(options), backend_(backend), link_(options.bandwidth, options.segment_bytes) {
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
      case OpKind::compute: compute_.ops.push_back(op.id); break;
      case OpKind::all_gather: all_gather_.ops.push_back(op.id); coll_max = std::max(coll_max, op.bytes); break;
      case OpKind::reduce_scatter:
      case OpKind::all_reduce: reduce_scatter_.ops.push_back(op.id); coll_max = std::max(coll_max, op.bytes); break;
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
  if (opt_.plan_order) build_issue_order();
}

// The issue order of plan_order mode, the same on every rank for every pair of ranks that share
// communicators: the collectives in id order (every rank issues each one); a chunk's send (on
// its sender) and receive (on its receiver) right after the collectives with ids up to its
// span's anchor operation (span -1: before any collective; an anchorless span: after the
// collectives planned to start by the chunk's planned start), in chunk order.
void RankLoop::build_issue_order() {
  std::vector<std::pair<double, IssueItem>> keyed;  // (position, item); ties keep insertion order
  for (const PlanOp& op : plan_.ops) {
    if (is_collective(op.kind)) keyed.push_back({static_cast<double>(op.id), {IssueItem::collective, op.id, -1, -1}});
  }
  const int d = static_cast<int>(plan_.spans.size());
  auto position = [&](const PlanChunk& c) {
    if (c.span < 0) return -1.0;
    if (d > 0) {
      const PlanSpan& span = plan_.spans[static_cast<std::size_t>(std::min(c.span, d - 1))];
      if (span.after_op >= 0) return span.after_op + 0.5;
    }
    double last = -1;  // no anchor: after the collectives planned to start by the chunk's start
    for (const PlanOp& op : plan_.ops) {
      if (is_collective(op.kind) && op.planned && op.planned_start_s <= c.planned_start_s) last = op.id;
    }
    return last + 0.5;
  };
  for (const PlanRank& pr : plan_.rank_plans) {
    for (const PlanChunk& c : pr.chunks) {
      if (pr.rank == rank_) keyed.push_back({position(c), {IssueItem::send, -1, pr.rank, c.index}});
      else if (c.peer == rank_) keyed.push_back({position(c), {IssueItem::receive, -1, pr.rank, c.index}});
    }
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [pos, item] : keyed) order_.push_back(item);
}

bool RankLoop::may_issue(const IssueItem& item) const {
  if (!opt_.plan_order) return true;
  if (order_next_ >= order_.size()) return false;
  const IssueItem& next = order_[order_next_];
  return next.kind == item.kind && next.op == item.op && next.sender == item.sender && next.chunk == item.chunk;
}

void RankLoop::issued(const IssueItem& item) {
  if (opt_.plan_order && may_issue(item)) ++order_next_;
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

// The simulator's ready time of an op: its dependencies ended and its stream is free. Measured
// ends only, so it does not depend on when the loop noticed them.
double RankLoop::ready_time(const PlanOp& op, double stream_free) const {
  double t = stream_free;
  for (int d : op.deps) t = std::max(t, rec_.ops[static_cast<std::size_t>(d)].end_s);
  return t;
}

// The stream's operation in flight: when it has ended, its span is recorded (from when it was
// ready, or when it started if the backend started it earlier) and the stream moves to its next
// operation. True when something progressed.
bool RankLoop::poll_op(Stream& st, const PlanOp& op) {
  Span m;
  const Progress p = backend_.poll(st.handle, m);
  if (p != Progress::done) return p == Progress::working;
  rec_.ops[static_cast<std::size_t>(op.id)] = {std::min(st.ready, m.start_s), m.end_s};
  st.free = m.end_s;
  done_[static_cast<std::size_t>(op.id)] = 1;
  st.active = false;
  ++st.cursor;
  return true;
}

bool RankLoop::step_compute() {
  Stream& st = compute_;
  if (st.done()) return false;
  const PlanOp& op = plan_.ops[static_cast<std::size_t>(st.ops[st.cursor])];
  if (!st.active) {
    if (!op_may_start(op)) return false;
    st.ready = ready_time(op, st.free);
    st.handle = backend_.compute(op.flops);
    st.active = true;
  }
  return poll_op(st, op);
}

bool RankLoop::step_collective(Stream& st) {
  if (st.done()) return false;
  const PlanOp& op = plan_.ops[static_cast<std::size_t>(st.ops[st.cursor])];
  if (!st.active) {
    const IssueItem item{IssueItem::collective, op.id, -1, -1};
    if (!op_may_start(op) || !may_issue(item)) return false;
    st.ready = ready_time(op, st.free);
    st.handle = backend_.collective(op.kind, op.bytes, link_, st.ready);
    issued(item);
    st.active = true;
  }
  return poll_op(st, op);
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

// When chunk k may go (its span's anchor ended plus its offset, and the credit of chunk k - p
// arrived), once both are known and that time has come; none before.
std::optional<double> RankLoop::chunk_eligible(std::size_t k) const {
  const PlanChunk& c = plan_.rank_plans[static_cast<std::size_t>(rank_)].chunks[k];
  double credit = 0;
  if (k >= static_cast<std::size_t>(p_)) {
    credit = credited_[k - static_cast<std::size_t>(p_)];
    if (credit < 0) return std::nullopt;
  }
  const int d = static_cast<int>(plan_.spans.size());
  double earliest = c.planned_start_s;
  if (c.span < 0) {
    earliest = c.offset_s;
  } else if (d > 0) {
    const PlanSpan& span = plan_.spans[static_cast<std::size_t>(std::min(c.span, d - 1))];
    if (span.after_op >= 0) {
      if (!done_[static_cast<std::size_t>(span.after_op)]) return std::nullopt;
      earliest = rec_.ops[static_cast<std::size_t>(span.after_op)].end_s + (c.span >= d ? span.length_s : 0.0) + c.offset_s;
    }
  }
  const double eligible = std::max(earliest, credit);
  if (now() < eligible) return std::nullopt;
  return eligible;
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
    credited_[static_cast<std::size_t>(index)] = now();
    ++credits_seen_;
    progressed = true;
  }
  return progressed;
}

bool RankLoop::step_sends() {
  bool progressed = step_credits();
  const auto& chunks = plan_.rank_plans[static_cast<std::size_t>(rank_)].chunks;
  if (send_cursor_ >= chunks.size()) return progressed;
  const PlanChunk& c = chunks[send_cursor_];
  const auto [begin, end] = my_ranges_[send_cursor_];
  const std::size_t len = end - begin;
  const IssueItem item{IssueItem::send, -1, rank_, c.index};
  if (!send_active_) {
    if (!may_issue(item)) return progressed;
    const std::optional<double> eligible = chunk_eligible(send_cursor_);
    if (!eligible) return progressed;
    send_ = Segmented{};
    send_.span.start_s = *eligible;
    send_.sizes = link_.segments(len);
    send_.deadlines = link_.schedule(send_.sizes, *eligible);
    send_active_ = true;
  }
  // Each segment is handed to the backend at its deadline on the paced link, so the receiver
  // sees it no earlier than a link of that rate would deliver it (paced_link.hpp).
  const double t = now();
  while (send_.next < send_.sizes.size() && t >= send_.deadlines[send_.next]) {
    send_.handles.push_back(backend_.send(begin + send_.offset, send_.sizes[send_.next], c.peer));
    link_.hand_over(send_.deadlines[send_.next]);
    send_.offset += send_.sizes[send_.next];
    if (++send_.next == send_.sizes.size()) {
      link_.done(send_.deadlines.back(), t);
      issued(item);  // every segment of the chunk is issued before the next NCCL call site
    }
    progressed = true;
  }
  if (send_.next < send_.sizes.size() || !poll_all(backend_, send_, progressed)) return progressed;
  send_.span.end_s = std::max(send_.span.end_s, send_.deadlines.back());
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
  while (in.next_post < in.chunks.size()) {
    const int index = in.chunks[in.next_post];
    const int sb = plan_chunks[static_cast<std::size_t>(index)].sub_buffer;
    const bool busy = std::any_of(in.in_flight.begin(), in.in_flight.end(), [&](const InFlight& f) {
      return plan_chunks[static_cast<std::size_t>(f.index)].sub_buffer == sb;
    });
    const IssueItem item{IssueItem::receive, -1, in.sender, index};
    if (busy || !may_issue(item)) break;
    InFlight f;
    f.index = index;
    f.receive.span.start_s = now();
    const std::size_t len = ranges[static_cast<std::size_t>(index)].second - ranges[static_cast<std::size_t>(index)].first;
    // The sender's segments: the same sizes on every rank (the same link rate and options).
    std::size_t off = 0;
    for (std::size_t n : link_.segments(len)) {
      f.receive.handles.push_back(backend_.receive(in.slot, sb, off, n));
      off += n;
    }
    in.in_flight.push_back(std::move(f));
    issued(item);
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
  if (!compute_.done() || !all_gather_.done() || !reduce_scatter_.done()) return false;
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
  for (Stream* st : {&compute_, &all_gather_, &reduce_scatter_}) st->reset();
  link_.reset();
  order_next_ = 0;
  local_active_ = false;
  send_cursor_ = 0;
  send_active_ = false;
  credited_.assign(my_ranges_.size(), -1.0);
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
  const int sleep_us = opt_.idle_sleep_us >= 0 ? opt_.idle_sleep_us : backend_.idle_sleep_us();
  while (!finished()) {
    bool progressed = step_receives();
    progressed |= step_sends();
    progressed |= step_collective(all_gather_);
    progressed |= step_collective(reduce_scatter_);
    progressed |= step_markers();
    progressed |= step_local_copy();
    progressed |= step_compute();
    // Nothing to do: give the core to the other ranks (they may share it), waking for the next
    // paced deadline if it comes sooner.
    if (!progressed) {
      double wait = sleep_us * 1e-6;
      const double next = link_.next_deadline();
      if (next >= 0) wait = std::min(wait, std::max(0.0, next - now()));
      if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
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

RankRecord replay_rank(const PlanFile& plan, const EngineOptions& options, Backend& backend, MPI_Comm world,
                       IntegrityFailure& failure) {
  RankRecord record;
  MPI_Comm_rank(world, &record.rank);
  RankLoop loop(plan, options, backend, world);
  PacingReport before;
  for (int it = 0; it < options.warmup + options.iterations; ++it) {
    if (it == options.warmup) before = loop.pacing();  // the report covers the measured iterations
    IterationRecord r = loop.run(it);
    const IntegrityFailure f = loop.verify(it);
    if (f.failed && !failure.failed) failure = f;
    int local_bad = f.failed ? 1 : 0;
    int any_bad = 0;
    MPI_Allreduce(&local_bad, &any_bad, 1, MPI_INT, MPI_MAX, world);
    if (it >= options.warmup) record.iterations.push_back(std::move(r));
    if (any_bad) break;
  }
  record.pacing = loop.pacing();
  record.pacing.paced_bytes -= before.paced_bytes;
  record.pacing.ideal_s -= before.ideal_s;
  record.pacing.late_s -= before.late_s;
  return record;
}

}  // namespace ckptsim::replay
