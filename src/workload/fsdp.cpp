#include "ckptsim/workload/fsdp.hpp"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "ckptsim/workload/memory_pressure.hpp"

namespace ckptsim {

namespace {

// Writes the program unit by unit, with the host-side state of FSDP's runtime: which units are
// unsharded or prefetched, and the free-event queue of the limiter.
class FsdpWriter {
 public:
  explicit FsdpWriter(const EngineInput& in)
      : in_(in), spec_(in.scenario->training.fsdp), w_(in.shape.word_bytes()),
        hybrid_(spec_.sharding_strategy == FsdpSharding::hybrid_shard),
        shard_ranks_(hybrid_ ? in.gpus_per_machine : in.ranks()), layers_(in.shape.layers), pressure_(in.buffer_budget) {
    unit_elements_.assign(static_cast<std::size_t>(layers_), in.shape.layer_parameters());
    unit_elements_.push_back(in.shape.embedding_parameters());  // the root, index layers_
    unsharded_.assign(unit_elements_.size(), 0);
    prefetched_.assign(unit_elements_.size(), 0);
    alloc_op_.assign(unit_elements_.size(), -1);
    buffer_.assign(unit_elements_.size(), -1);
    // About 20 operations per unit (GPT-2 100B under FSDP: 2,491 for 125 units); a reservation
    // only, which the program may exceed.
    p_.reserve(32 * unit_elements_.size() + 64);
  }

  EngineProgram write() {
    const int root = layers_;
    // Root pre-forward: the side streams wait for the compute stream.
    p_.marker(Stream::gather, {Stream::compute});
    p_.marker(Stream::pre_gather, {Stream::compute});
    pre_forward(root);
    p_.compute({ComputePass::forward, ComputePart::embedding}, TaskCategory::forward, {}, -1, root, "embedding");
    for (int k = 0; k < layers_; ++k) {
      pre_forward(k);
      const int op = p_.compute({ComputePass::forward, ComputePart::block}, TaskCategory::forward, {}, k, k, unit_name(k));
      reshard(k, op);
    }
    p_.compute({ComputePass::forward, ComputePart::output}, TaskCategory::forward, {}, -1, root, "output projection and loss");
    hook();  // the root's post-forward (it does not reshard)
    // Backward: the root first (its pre-backward hook runs on the loss's gradient).
    out_.backward_op = static_cast<int>(p_.size());
    pre_backward(root, -1);
    p_.compute({ComputePass::backward, ComputePart::output}, TaskCategory::backward, {}, -1, root, "output projection");
    for (int k = layers_ - 1; k >= 0; --k) {
      pre_backward(k, k > 0 ? k - 1 : -1);
      const ComputePass pass = in_.shape.recompute ? ComputePass::backward_with_recompute : ComputePass::backward;
      const int op = p_.compute({pass, ComputePart::block}, TaskCategory::backward, {}, k, k, unit_name(k));
      queued_from(op);
      post_backward(k, op, k > 0 ? k - 1 : -1);
    }
    const int embedding = p_.compute({ComputePass::backward, ComputePart::embedding}, TaskCategory::backward, {}, -1, root,
                                     "embedding");
    queued_from(embedding);
    post_backward(root, embedding, -1);
    // The root's gradient is the last: the step's compute stream waits for the post-backward
    // stream (the final callback), so it never outlives a later backward.
    out_.queued_gradients.pop_back();
    p_.marker(Stream::compute, {Stream::reduce});  // _post_backward_final_callback
    step();
    out_.program = std::move(p_);
    out_.memory = fsdp_memory(in_);
    out_.summary = fmt::format("fsdp ({}, backward prefetch {}{}{})", name_of(spec_.sharding_strategy),
                               name_of(spec_.backward_prefetch), spec_.forward_prefetch ? ", forward prefetch" : "",
                               spec_.limit_all_gathers ? ", all-gather limiter" : "");
    return std::move(out_);
  }

 private:
  [[nodiscard]] std::string unit_name(int u) const { return u == layers_ ? std::string("root") : fmt::format("block {}", u); }

  [[nodiscard]] Group shard_group() const { return hybrid_ ? Group::shard : Group::data_parallel; }

  void limiter() {
    if (!spec_.limit_all_gathers || free_events_.size() < 2) return;
    const int event = free_events_.front();
    free_events_.pop_front();
    p_.host_wait(event, Cause::in_flight_limit);
  }

  // _unshard(u): the cast, the limiter, the all-gather (nothing to gather when unsharded).
  void unshard(int u, Cause cause) {
    const auto ui = static_cast<std::size_t>(u);
    const double elements = unit_elements_[ui];
    if (in_.shape.mixed_precision && !unsharded_[ui]) {
      p_.copy(Stream::pre_gather, 6 * elements / shard_ranks_, cause);
      p_.marker(Stream::gather, {Stream::pre_gather});
    }
    limiter();
    if (unsharded_[ui]) return;
    buffer_[ui] = pressure_.allocate(p_, w_ * elements);
    alloc_op_[ui] = p_.collective(CollectiveKind::all_gather, shard_group(), w_ * elements, cause, TaskCategory::all_gather,
                                  {Stream::gather}, u, "unshard " + unit_name(u));
    p_.marker(Stream::gather, {}, {alloc_op_[ui]});
    unsharded_[ui] = 1;
  }

  void prefetch(int u) {
    if (u < 0 || prefetched_[static_cast<std::size_t>(u)] || unsharded_[static_cast<std::size_t>(u)]) return;
    unshard(u, Cause::bandwidth);
    prefetched_[static_cast<std::size_t>(u)] = 1;
  }

  // One hook call's Python time (training.hook_host_time; the header).
  void hook() { p_.host_work(in_.scenario->training.hook_host_time, Cause::host_sync); }

  void pre_forward(int u) {
    hook();
    if (!prefetched_[static_cast<std::size_t>(u)]) unshard(u, Cause::on_demand_gather);
    prefetched_[static_cast<std::size_t>(u)] = 0;
    p_.marker(Stream::compute, {Stream::gather});
    if (spec_.forward_prefetch) prefetch(u == layers_ ? 0 : (u + 1 < layers_ ? u + 1 : -1));
  }

  // _reshard after `last_use`: frees the unsharded parameter and queues a free event.
  void reshard(int u, int last_use) {
    const auto ui = static_cast<std::size_t>(u);
    hook();  // _post_forward / _post_backward_hook: the reshard runs inside it
    out_.buffers.push_back({"unsharded parameters", w_ * unit_elements_[ui], alloc_op_[ui], last_use});
    pressure_.frees_at(buffer_[ui], last_use);
    unsharded_[ui] = 0;
    if (spec_.limit_all_gathers) free_events_.push_back(last_use);
  }

  void pre_backward(int u, int next) {
    const auto ui = static_cast<std::size_t>(u);
    hook();
    if (!prefetched_[ui]) unshard(u, Cause::on_demand_gather);
    prefetched_[ui] = 0;
    p_.marker(Stream::compute, {Stream::gather});
    if (spec_.backward_prefetch == FsdpBackwardPrefetch::backward_pre) prefetch(next);
  }

  void post_backward(int u, int last_use, int next) {
    const auto ui = static_cast<std::size_t>(u);
    reshard(u, last_use);
    if (spec_.backward_prefetch == FsdpBackwardPrefetch::backward_post) prefetch(next);
    p_.marker(Stream::reduce, {Stream::compute});
    const double bytes = w_ * unit_elements_[ui];
    const int rs = p_.collective(CollectiveKind::reduce_scatter, shard_group(), bytes, Cause::bandwidth,
                                 TaskCategory::reduce_scatter, {Stream::reduce}, u, "reduce-scatter " + unit_name(u));
    p_.marker(Stream::reduce, {}, {rs});
    int done = rs;
    if (hybrid_) {
      done = p_.collective(CollectiveKind::all_reduce, Group::replicate, bytes, Cause::bandwidth, TaskCategory::all_reduce,
                           {Stream::reduce}, u, "all-reduce across replicas " + unit_name(u));
      p_.marker(Stream::reduce, {}, {done});
    }
    if (in_.shape.mixed_precision) p_.copy(Stream::reduce, 6 * unit_elements_[ui] / shard_ranks_, Cause::bandwidth);
    // The unsharded gradient was made on the compute stream and consumed on the post-backward
    // stream: _no_dispatch_record_stream(autograd_computed_grad, post_backward_stream) after
    // _reduce_grad (R _post_backward_hook), so the caching allocator reuses its block only once
    // everything enqueued there so far has run. One block's gradient is the static term; from
    // the start of the next backward on, it is a queued gradient (EngineProgram).
    out_.queued_gradients.push_back({"unsharded gradients queued for the reduce-scatter", w_ * unit_elements_[ui], -1,
                                     p_.last_on(Stream::reduce)});
  }

  // The next backward compute op starts while the previous unit's gradient may still wait.
  void queued_from(int op) {
    if (!out_.queued_gradients.empty() && out_.queued_gradients.back().alloc_op < 0) out_.queued_gradients.back().alloc_op = op;
  }

  void step() {
    out_.step_op = static_cast<int>(p_.size());
    const double shard = in_.shape.parameters() / shard_ranks_;
    p_.compute({ComputePass::memory_bound, ComputePart::none, 4 * shard}, TaskCategory::boundary, {});
    const int norm = p_.collective(CollectiveKind::all_reduce, shard_group(), 4, Cause::host_sync, TaskCategory::all_reduce,
                                   {Stream::compute});
    p_.marker(Stream::compute, {}, {norm});
    if (hybrid_) {
      const int across = p_.collective(CollectiveKind::all_reduce, Group::replicate, 4 * in_.gpus_per_machine,
                                       Cause::host_sync, TaskCategory::all_reduce, {Stream::compute});
      p_.marker(Stream::compute, {}, {across});
    }
    p_.compute({ComputePass::memory_bound, ComputePart::none, 8 * shard}, TaskCategory::boundary, {});
    out_.update_op = p_.compute({ComputePass::memory_bound, ComputePart::none, 28 * shard}, TaskCategory::optimizer, {});
  }

  const EngineInput& in_;
  const FsdpSpec& spec_;
  const double w_;
  const bool hybrid_;
  const double shard_ranks_;
  const int layers_;
  MemoryPressure pressure_;
  StreamProgram p_;
  EngineProgram out_;
  std::vector<double> unit_elements_;
  std::vector<char> unsharded_;
  std::vector<char> prefetched_;
  std::vector<int> alloc_op_;
  std::vector<int> buffer_;  // per unit: its unsharded buffer's id (memory_pressure.hpp)
  std::deque<int> free_events_;
};

}  // namespace

EngineProgram fsdp_program(const EngineInput& input) { return FsdpWriter(input).write(); }

EngineMemory fsdp_memory(const EngineInput& in) {
  const FsdpSpec& spec = in.scenario->training.fsdp;
  const bool hybrid = spec.sharding_strategy == FsdpSharding::hybrid_shard;
  const double shard_ranks = hybrid ? in.gpus_per_machine : in.ranks();
  const double w = in.shape.word_bytes();
  const double block = in.shape.layer_parameters();
  const double root = in.shape.embedding_parameters();
  const double largest = std::max(block, root);
  constexpr PhaseSet kLossBackward = phase_bit(MemoryPhase::loss) | phase_bit(MemoryPhase::backward);
  EngineMemory out;
  out.terms = {
      {"model states (16 B x P / n)", 16.0 * in.shape.parameters() / shard_ranks, kEveryPhase},
      {"low-precision shard (largest unit)", in.shape.mixed_precision ? w * largest / shard_ranks : 0.0, kLossBackward},
      {"unsharded gradients (root's and one block's)", w * (root + block), phase_bit(MemoryPhase::backward)},
  };
  out.communicators = hybrid ? 3 : 1;  // the default group is FULL_SHARD's; HSDP adds shard and replicate
  out.layer_gradients = {w * block};   // the unit's flat gradient
  out.held_gradient = w * root;        // the root's, from the head to the embedding
  return out;
}

}  // namespace ckptsim
