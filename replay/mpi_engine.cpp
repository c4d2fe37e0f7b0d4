#include "mpi_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include <Eigen/Dense>

#include "pattern.hpp"
#include "token_bucket.hpp"

namespace ckptsim::replay {

namespace {

constexpr int kDataTag = 1;
constexpr int kCreditTag = 2;
constexpr std::size_t kLocalCopyStep = std::size_t{1} << 20;  // memcpy granularity of the local replica

using Clock = std::chrono::steady_clock;

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

struct Segmented {
  std::vector<MPI_Request> requests;
  std::size_t next = 0;  // next byte to post
  double released = 0;   // when the reserved segment has passed the token bucket
  bool reserved = false;  // tokens taken for the next segment, not yet posted
  Span span;
};

struct Incoming {  // one sender's chunks to this rank
  int sender = 0;
  std::vector<int> chunks;  // indices in the sender's plan
  std::vector<unsigned char> replica;
  std::vector<std::vector<unsigned char>> sub_buffers;
  std::size_t next_post = 0;
  std::deque<std::pair<int, Segmented>> in_flight;  // (chunk index, receives)
  std::vector<MPI_Request> credits;
};

class RankLoop {
 public:
  RankLoop(const ReplayPlan& plan, const EngineOptions& options, MPI_Comm world);
  ~RankLoop();
  IterationRecord run(int iteration);
  IntegrityFailure verify(int iteration) const;

 private:
  double now() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
  bool deps_done(const PlanOp& op) const;
  bool op_may_start(const PlanOp& op) const;
  bool step_compute();
  bool step_collective(OpKind kind, std::size_t& cursor, MPI_Request& req, double& release, MPI_Comm comm);
  bool step_markers();
  bool step_sends();
  bool start_chunk_allowed(std::size_t k) const;
  bool step_receives();
  bool step_local_copy();
  bool finished();
  void reset(int iteration);

  const ReplayPlan& plan_;
  const EngineOptions& opt_;
  int rank_ = 0;
  int n_ = 1;
  MPI_Comm ag_comm_{}, rs_comm_{}, ckpt_comm_{};
  std::size_t shard_ = 0;
  int p_ = 1;
  std::vector<std::pair<std::size_t, std::size_t>> my_ranges_;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> ranges_of_;  // per rank
  std::vector<int> compute_ops_, ag_ops_, rs_ops_, marker_ops_;
  std::vector<unsigned char> shard_data_, local_cpu_;
  std::vector<unsigned char> coll_send_, coll_recv_;
  std::vector<Incoming> incoming_;
  Eigen::MatrixXf a_, b_, c_;
  // Per-iteration state.
  Clock::time_point t0_;
  int iteration_ = 0;
  std::unique_ptr<TokenBucket> bucket_;
  IterationRecord rec_;
  std::vector<char> done_;
  std::size_t compute_cursor_ = 0, ag_cursor_ = 0, rs_cursor_ = 0;
  double compute_left_ = 0;
  MPI_Request ag_req_ = MPI_REQUEST_NULL, rs_req_ = MPI_REQUEST_NULL;
  double ag_release_ = 0, rs_release_ = 0;
  std::size_t send_cursor_ = 0;
  bool send_active_ = false;
  Segmented send_;
  std::vector<char> credited_;
  std::size_t credits_seen_ = 0;
  std::size_t local_done_ = 0;
};

RankLoop::RankLoop(const ReplayPlan& plan, const EngineOptions& options, MPI_Comm world) : plan_(plan), opt_(options) {
  MPI_Comm_rank(world, &rank_);
  MPI_Comm_size(world, &n_);
  MPI_Comm_dup(world, &ag_comm_);
  MPI_Comm_dup(world, &rs_comm_);
  MPI_Comm_dup(world, &ckpt_comm_);
  shard_ = static_cast<std::size_t>(std::floor(plan.shard_bytes));
  p_ = std::max(1, plan.sub_buffers);
  for (const PlanRank& pr : plan.rank_plans) ranges_of_.push_back(chunk_ranges(pr, plan.copies, shard_));
  my_ranges_ = ranges_of_[static_cast<std::size_t>(rank_)];
  double coll_max = 0;
  for (const PlanOp& op : plan.ops) {
    switch (op.kind) {
      case OpKind::compute: compute_ops_.push_back(op.id); break;
      case OpKind::all_gather: ag_ops_.push_back(op.id); coll_max = std::max(coll_max, op.bytes); break;
      case OpKind::reduce_scatter: rs_ops_.push_back(op.id); coll_max = std::max(coll_max, op.bytes); break;
      case OpKind::marker: marker_ops_.push_back(op.id); break;
    }
  }
  // Ring collectives: each rank's stream moves (n-1)/n of the gathered size, so a rank's block
  // is bytes / (n-1); blocks are whole floats for the reduction.
  const std::size_t block = n_ > 1 ? static_cast<std::size_t>(coll_max / (n_ - 1)) / 4 * 4 + 4 : 4;
  coll_send_.assign(block * static_cast<std::size_t>(n_), 0);
  coll_recv_.assign(block * static_cast<std::size_t>(n_), 0);
  shard_data_.assign(shard_, 0);
  local_cpu_.assign(shard_, 0);
  const auto limit = static_cast<std::size_t>(std::ceil(plan.chunk_limit_bytes)) + 1;
  for (const PlanRank& pr : plan.rank_plans) {
    Incoming in;
    in.sender = pr.rank;
    for (const PlanChunk& c : pr.chunks) {
      if (c.peer == rank_) in.chunks.push_back(c.index);
    }
    if (in.chunks.empty()) continue;
    in.replica.assign(shard_, 0);
    in.sub_buffers.assign(static_cast<std::size_t>(p_), std::vector<unsigned char>(limit));
    incoming_.push_back(std::move(in));
  }
  const int m = std::max(1, opt_.matmul_n);
  a_ = Eigen::MatrixXf::Constant(m, m, 0.5f);
  b_ = Eigen::MatrixXf::Constant(m, m, 0.25f);
  c_ = Eigen::MatrixXf::Zero(m, m);
}

RankLoop::~RankLoop() {
  MPI_Comm_free(&ag_comm_);
  MPI_Comm_free(&rs_comm_);
  MPI_Comm_free(&ckpt_comm_);
}

bool RankLoop::deps_done(const PlanOp& op) const {
  return std::all_of(op.deps.begin(), op.deps.end(), [&](int d) { return done_[static_cast<std::size_t>(d)] != 0; });
}

bool RankLoop::op_may_start(const PlanOp& op) const {
  if (!deps_done(op)) return false;
  const std::size_t chunks = my_ranges_.size();
  const bool all_sent = send_cursor_ >= chunks;
  if (plan_.blocks_training && op.deps.empty() && !all_sent) return false;
  if (op.id == plan_.optimizer_op && (!all_sent || local_done_ < shard_ || rec_.local_copy.end_s < 0)) return false;
  return true;
}

// One block of the current compute op (or starts the next one): at most one n x n x n matmul
// per call, so the loop keeps polling MPI while computing.
bool RankLoop::step_compute() {
  if (compute_cursor_ >= compute_ops_.size()) return false;
  const PlanOp& op = plan_.ops[static_cast<std::size_t>(compute_ops_[compute_cursor_])];
  Span& s = rec_.ops[static_cast<std::size_t>(op.id)];
  if (s.start_s < 0) {
    if (!op_may_start(op)) return false;
    s.start_s = now();
    compute_left_ = op.flops;
  }
  const double m = static_cast<double>(a_.rows());
  const double block = 2 * m * m * m;
  if (compute_left_ >= block) {
    c_.noalias() += a_ * b_;
    compute_left_ -= block;
  } else if (compute_left_ > 0) {
    // Remainder: n x k times k x n with 2 n^2 k = the FLOPs left.
    const auto k = static_cast<Eigen::Index>(std::llround(compute_left_ / (2 * m * m)));
    if (k > 0) c_.noalias() += a_.leftCols(k) * b_.topRows(k);
    compute_left_ = 0;
  }
  if (compute_left_ <= 0) {
    s.end_s = now();
    done_[static_cast<std::size_t>(op.id)] = 1;
    ++compute_cursor_;
  }
  return true;
}

bool RankLoop::step_collective(OpKind kind, std::size_t& cursor, MPI_Request& req, double& release, MPI_Comm comm) {
  const std::vector<int>& ops = kind == OpKind::all_gather ? ag_ops_ : rs_ops_;
  if (cursor >= ops.size()) return false;
  const PlanOp& op = plan_.ops[static_cast<std::size_t>(ops[cursor])];
  Span& s = rec_.ops[static_cast<std::size_t>(op.id)];
  if (s.start_s < 0) {
    if (!op_may_start(op)) return false;
    s.start_s = now();
    release = bucket_->take(op.bytes, s.start_s);
    const int count = n_ > 1 ? static_cast<int>(op.bytes / (n_ - 1) / 4) : 0;
    if (kind == OpKind::all_gather) {
      MPI_Iallgather(coll_send_.data(), count, MPI_FLOAT, coll_recv_.data(), count, MPI_FLOAT, comm, &req);
    } else {
      MPI_Ireduce_scatter_block(coll_send_.data(), coll_recv_.data(), count, MPI_FLOAT, MPI_SUM, comm, &req);
    }
    return true;
  }
  int flag = 0;
  MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  const double t = now();
  if (!flag || t < release) return false;
  s.end_s = t;
  done_[static_cast<std::size_t>(op.id)] = 1;
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

bool RankLoop::step_sends() {
  bool progressed = false;
  int flag = 1;
  while (flag) {  // credits: the receiver copied a chunk out of its sub-buffer
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kCreditTag, ckpt_comm_, &flag, &st);
    if (!flag) break;
    int index = 0;
    MPI_Recv(&index, 1, MPI_INT, st.MPI_SOURCE, kCreditTag, ckpt_comm_, MPI_STATUS_IGNORE);
    credited_[static_cast<std::size_t>(index)] = 1;
    ++credits_seen_;
    progressed = true;
  }
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
  // Each segment pays its tokens first and is handed to MPI when the emulated link has carried
  // it, so the receiver sees it no earlier than a link of that rate would deliver it.
  while (send_.next < len) {
    const std::size_t n = std::min(seg, len - send_.next);
    if (!send_.reserved) {
      send_.released = bucket_->take(static_cast<double>(n), now());
      send_.reserved = true;
    }
    if (now() < send_.released) break;
    send_.requests.emplace_back();
    MPI_Isend(shard_data_.data() + begin + send_.next, static_cast<int>(n), MPI_BYTE, c.peer, kDataTag, ckpt_comm_,
              &send_.requests.back());
    send_.reserved = false;
    send_.next += n;
    progressed = true;
  }
  if (send_.next < len) return progressed;
  int all = 0;
  MPI_Testall(static_cast<int>(send_.requests.size()), send_.requests.data(), &all, MPI_STATUSES_IGNORE);
  const double t = now();
  if (!all) return progressed;
  send_.span.end_s = t;
  rec_.sends.push_back({c.index, c.copy, c.peer, static_cast<double>(len), send_.span});
  send_active_ = false;
  ++send_cursor_;
  return true;
}

bool RankLoop::step_receives() {
  bool progressed = false;
  const auto seg = static_cast<std::size_t>(opt_.segment_bytes);
  for (Incoming& in : incoming_) {
    const auto& plan_chunks = plan_.rank_plans[static_cast<std::size_t>(in.sender)].chunks;
    const auto& ranges = ranges_of_[static_cast<std::size_t>(in.sender)];
    while (in.next_post < in.chunks.size()) {  // post receives into free sub-buffers, in order
      const int index = in.chunks[in.next_post];
      const int sb = plan_chunks[static_cast<std::size_t>(index)].sub_buffer;
      const bool busy = std::any_of(in.in_flight.begin(), in.in_flight.end(), [&](const auto& f) {
        return plan_chunks[static_cast<std::size_t>(f.first)].sub_buffer == sb;
      });
      if (busy) break;
      Segmented r;
      r.span.start_s = now();
      const std::size_t len = ranges[static_cast<std::size_t>(index)].second - ranges[static_cast<std::size_t>(index)].first;
      for (std::size_t off = 0; off < len; off += seg) {
        r.requests.emplace_back();
        MPI_Irecv(in.sub_buffers[static_cast<std::size_t>(sb)].data() + off, static_cast<int>(std::min(seg, len - off)), MPI_BYTE,
                  in.sender, kDataTag, ckpt_comm_, &r.requests.back());
      }
      in.in_flight.emplace_back(index, std::move(r));
      ++in.next_post;
      progressed = true;
    }
    if (in.in_flight.empty()) continue;
    auto& [index, r] = in.in_flight.front();
    int all = 0;
    MPI_Testall(static_cast<int>(r.requests.size()), r.requests.data(), &all, MPI_STATUSES_IGNORE);
    if (!all) continue;
    const auto [begin, end] = ranges[static_cast<std::size_t>(index)];
    unsigned char* sub = in.sub_buffers[static_cast<std::size_t>(plan_chunks[static_cast<std::size_t>(index)].sub_buffer)].data();
    if (iteration_ == opt_.corrupt_iteration && in.sender == opt_.corrupt_rank && index == opt_.corrupt_chunk && end > begin) {
      sub[(end - begin) / 2] ^= 0x01;  // --inject-corruption: one bit of one byte, in flight
    }
    CopyRecord cr{in.sender, index, static_cast<double>(end - begin), r.span, {}};
    cr.received.end_s = cr.copy.start_s = now();
    std::memcpy(in.replica.data() + begin, sub, end - begin);
    cr.copy.end_s = now();
    rec_.copies.push_back(cr);
    in.credits.emplace_back();
    MPI_Isend(&plan_chunks[static_cast<std::size_t>(index)].index, 1, MPI_INT, in.sender, kCreditTag, ckpt_comm_,
              &in.credits.back());
    in.in_flight.pop_front();
    progressed = true;
  }
  return progressed;
}

bool RankLoop::step_local_copy() {
  const double t = now();
  if (local_done_ >= shard_ && rec_.local_copy.end_s >= 0) return false;
  if (t < plan_.rank_plans[static_cast<std::size_t>(rank_)].local_copy_start_s) return false;
  if (rec_.local_copy.start_s < 0) rec_.local_copy.start_s = t;
  const std::size_t n = std::min(kLocalCopyStep, shard_ - local_done_);
  std::memcpy(local_cpu_.data() + local_done_, shard_data_.data() + local_done_, n);
  local_done_ += n;
  if (local_done_ >= shard_) rec_.local_copy.end_s = now();
  return true;
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
  fill_pattern(shard_data_.data(), 0, shard_, rank_, iteration);
  rec_ = IterationRecord{};
  rec_.iteration = iteration;
  rec_.ops.assign(plan_.ops.size(), Span{});
  done_.assign(plan_.ops.size(), 0);
  compute_cursor_ = ag_cursor_ = rs_cursor_ = 0;
  compute_left_ = 0;
  send_cursor_ = 0;
  send_active_ = false;
  credited_.assign(my_ranges_.size(), 0);
  credits_seen_ = 0;
  local_done_ = 0;
  for (Incoming& in : incoming_) {
    in.next_post = 0;
    in.credits.clear();
    in.credits.reserve(in.chunks.size());  // requests must not move while pending
  }
}

IterationRecord RankLoop::run(int iteration) {
  reset(iteration);
  MPI_Barrier(ckpt_comm_);
  t0_ = Clock::now();
  // Depth one segment: a rank that polled late may catch up by one segment, never burst more.
  bucket_ = std::make_unique<TokenBucket>(opt_.bandwidth, opt_.segment_bytes, 0.0);
  while (!finished()) {
    bool progressed = step_receives();
    progressed |= step_sends();
    progressed |= step_collective(OpKind::all_gather, ag_cursor_, ag_req_, ag_release_, ag_comm_);
    progressed |= step_collective(OpKind::reduce_scatter, rs_cursor_, rs_req_, rs_release_, rs_comm_);
    progressed |= step_markers();
    progressed |= step_local_copy();
    progressed |= step_compute();
    // Nothing to do: give the core to the other ranks (they share it on a small machine); long
    // enough that an idle rank's wake-ups do not preempt the computing ones every few microseconds.
    if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(opt_.idle_sleep_us));
  }
  rec_.iteration_time_s = rec_.ops[static_cast<std::size_t>(plan_.optimizer_op)].end_s;
  rec_.checkpoint_time_s = rec_.local_copy.end_s;
  for (const CopyRecord& c : rec_.copies) rec_.checkpoint_time_s = std::max(rec_.checkpoint_time_s, c.copy.end_s);
  return rec_;
}

IntegrityFailure RankLoop::verify(int iteration) const {
  std::vector<unsigned char> expected;
  IntegrityFailure f;
  for (const Incoming& in : incoming_) {
    const auto& ranges = ranges_of_[static_cast<std::size_t>(in.sender)];
    for (int index : in.chunks) {
      const auto [begin, end] = ranges[static_cast<std::size_t>(index)];
      expected.resize(end - begin);
      fill_pattern(expected.data(), begin, end - begin, in.sender, iteration);
      if (checksum(expected.data(), expected.size()) != checksum(in.replica.data() + begin, end - begin)) {
        return {true, in.sender, rank_, index, iteration};
      }
    }
  }
  std::vector<unsigned char> own(shard_);
  fill_pattern(own.data(), 0, shard_, rank_, iteration);
  if (checksum(own.data(), shard_) != checksum(local_cpu_.data(), shard_)) return {true, rank_, rank_, -1, iteration};
  return f;
}

}  // namespace

RankRecord replay_rank(const ReplayPlan& plan, const EngineOptions& options, MPI_Comm world, IntegrityFailure& failure) {
  RankRecord record;
  MPI_Comm_rank(world, &record.rank);
  RankLoop loop(plan, options, world);
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
