#include "ckptsim/workload/deepspeed_zero3.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ckptsim/workload/memory_pressure.hpp"
#include "ckptsim/workload/step_phases.hpp"

namespace ckptsim {

Zero3Layout zero3_layout(const TransformerShape& shape) {
  Zero3Layout p;
  const double h = shape.hidden;
  const double f = shape.ffn;
  // Module 0: the tied embedding (+ final LayerNorm); layer k: 1 + 4k .. 4 + 4k.
  p.modules.push_back({{shape.vocabulary * h, h, h}});
  for (int k = 0; k < shape.layers; ++k) {
    p.modules.push_back({{3 * h * h, 3 * h, h, h}});  // QKV + LayerNorm 1
    p.modules.push_back({{h * h, h}});                // O
    p.modules.push_back({{h * f, f, h, h}});          // FC1 + LayerNorm 2
    p.modules.push_back({{f * h, h}});                // FC2
  }
  constexpr ComputePart kParts[4] = {ComputePart::qkv, ComputePart::attention_out, ComputePart::fc1, ComputePart::fc2};
  auto use = [&](int module, GpuWork c, TaskCategory category, int layer, bool gradient) {
    p.uses.push_back({module, gradient ? p.modules[static_cast<std::size_t>(module)].total() : 0.0});
    p.compute.push_back(c);
    p.category.push_back(category);
    p.layer.push_back(layer);
  };
  use(0, {ComputePass::forward, ComputePart::embedding}, TaskCategory::forward, -1, false);
  for (int k = 0; k < shape.layers; ++k) {
    for (int i = 0; i < 4; ++i) use(1 + 4 * k + i, {ComputePass::forward, kParts[i]}, TaskCategory::forward, k, false);
  }
  use(0, {ComputePass::forward, ComputePart::output}, TaskCategory::forward, -1, false);
  use(0, {ComputePass::backward, ComputePart::output}, TaskCategory::backward, -1, false);
  for (int k = shape.layers - 1; k >= 0; --k) {
    if (shape.recompute) {
      for (int i = 0; i < 4; ++i) use(1 + 4 * k + i, {ComputePass::recompute, kParts[i]}, TaskCategory::recompute, k, false);
    }
    for (int i = 3; i >= 0; --i) use(1 + 4 * k + i, {ComputePass::backward, kParts[i]}, TaskCategory::backward, k, true);
  }
  use(0, {ComputePass::backward, ComputePart::embedding}, TaskCategory::backward, -1, true);
  return p;
}

Zero3Persistent zero3_persistent(const Zero3Layout& layout, double threshold) {
  Zero3Persistent out;
  for (const SubModule& m : layout.modules) {
    for (double t : m.tensors) {
      if (t < threshold) {  // ds_numel < threshold (O 310-328)
        ++out.tensors;
        out.elements += t;
      }
    }
  }
  return out;
}

Zero3Knobs zero3_knobs(const Scenario& scenario) {
  const Zero3Spec& z = scenario.training.zero3;
  Zero3Knobs k;
  k.prefetch_bucket_size = z.prefetch_bucket_size;
  k.param_persistence_threshold = z.param_persistence_threshold;
  k.max_live_parameters = z.max_live_parameters;
  k.max_reuse_distance = z.max_reuse_distance;
  k.complete_trace = z.trace == Zero3Trace::complete;
  return k;
}

std::vector<BucketFlush> plan_buckets(const std::vector<double>& elements, double bucket_size) {
  std::vector<BucketFlush> flushes;
  double held = 0;
  int tensors = 0;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (held > 0 && held + elements[i] > bucket_size) {
      flushes.push_back({i, held, tensors});
      held = 0;
      tensors = 0;
    }
    held += elements[i];
    ++tensors;
  }
  if (tensors > 0) flushes.push_back({elements.size(), held, tensors});
  return flushes;
}

StepShape deepspeed_zero3_step_shape(const Scenario& scenario, const TransformerShape& shape) {
  StepShape x;
  x.partition_elements = shape.parameters() / (static_cast<double>(scenario.cluster.machines) * scenario.cluster.gpus_per_machine);
  for (const SubModule& m : zero3_layout(shape).modules) x.tensors += static_cast<double>(m.tensors.size());
  x.sub_group_size = scenario.training.zero3.sub_group_size;
  x.tokens = shape.micro_batch * shape.sequence;
  x.word_bytes = shape.word_bytes();
  x.host_bandwidth = scenario.cluster.gpu_cpu_bandwidth;
  return x;
}

namespace {

// Writes the program use by use, keeping the host-side state the header describes.
class Writer {
 public:
  Writer(const EngineInput& in, const Zero3Layout& layout, const Zero3Schedule& plan)
      : in_(in), layout_(layout), plan_(plan), w_(in.shape.word_bytes()), n_(in.ranks()),
        bucket_size_(in.scenario->training.zero3.reduce_bucket_size),
        threshold_(in.scenario->training.zero3.param_persistence_threshold), pressure_(in.buffer_budget) {
    module_alloc_.assign(layout.modules.size(), -1);
    gather_op_.assign(plan.gathers.size(), -1);
    group_tensors_.assign(plan.gathers.size(), 0);
    waited_.assign(plan.gathers.size(), 0);
    module_buffer_.assign(layout.modules.size(), -1);
    // About 7 operations per use (GPT-2 100B: 10,693 for 1,492 uses and 997 gathers, so this
    // reserves 15,924); a reservation only, which the program may exceed.
    p_.reserve(8 * layout.uses.size() + 4 * plan.gathers.size() + 64);
  }

  EngineProgram write() {
    std::size_t next_gather = 0;
    const auto& gathers = plan_.gathers;
    for (std::size_t j = 0; j < layout_.uses.size(); ++j) {
      const int step = static_cast<int>(j);
      if (layout_.category[j] != TaskCategory::forward && out_.backward_op < 0) out_.backward_op = static_cast<int>(p_.size());
      hook();  // pre_sub_module_forward / _backward (fetch_sub_module)
      for (; next_gather < gathers.size() && gathers[next_gather].step == step && gathers[next_gather].on_demand; ++next_gather) {
        issue(next_gather);
      }
      wait_for_module(j);
      p_.marker(Stream::compute, {Stream::gather});  // current_stream().wait_stream(allgather_stream)
      for (; next_gather < gathers.size() && gathers[next_gather].step == step; ++next_gather) issue(next_gather);
      const int op = p_.compute(layout_.compute[j], layout_.category[j], {}, layout_.layer[j], layout_.uses[j].module,
                                module_name(layout_.uses[j].module));
      hook();  // post_sub_module_forward / _backward (release_sub_module)
      if (plan_.waits_on[j] >= 0 && plan_.releases[j]) release(layout_.uses[j].module, op);
      if (layout_.uses[j].gradient > 0) gradients(j, op);
    }
    if (held_ > 0) flush();
    if (const int r = p_.last_on(Stream::reduce); r >= 0) p_.host_wait(r, Cause::host_sync);  // epilogue synchronize()
    step();
    for (std::size_t m = 0; m < module_buffer_.size(); ++m) {  // released with the last use's end
      if (module_buffer_[m] >= 0) release(static_cast<int>(m), out_.step_op - 1);
    }
    out_.program = std::move(p_);
    return std::move(out_);
  }

 private:
  static std::string module_name(int module) {
    if (module == 0) return "embedding/output";
    static const char* const parts[4] = {"QKV", "O", "FC1", "FC2"};
    return fmt::format("L{} {}", (module - 1) / 4, parts[(module - 1) % 4]);
  }

  [[nodiscard]] int fetched_tensors(int module) const {
    int count = 0;
    for (double t : layout_.modules[static_cast<std::size_t>(module)].tensors) count += t >= threshold_ ? 1 : 0;
    return count;
  }

  // A gathered module's buffer is freed when the use that releases it ends (free_param's
  // record_stream on the compute stream).
  void release(int module, int op) {
    const auto m = static_cast<std::size_t>(module);
    if (module_buffer_[m] < 0) return;
    pressure_.frees_at(module_buffer_[m], op);
    out_.buffers.push_back({"gathered parameters", layout_.modules[m].fetched(threshold_) * w_, module_alloc_[m], op});
    module_buffer_[m] = -1;
  }

  void issue(std::size_t g) {
    const GatherGroup& group = plan_.gathers[g];
    int tensors = 0;
    for (int m : group.modules) tensors += fetched_tensors(m);
    const Cause cause = group.on_demand ? Cause::on_demand_gather : Cause::bandwidth;
    std::vector<int> ids;
    for (int m : group.modules) ids.push_back(pressure_.allocate(p_, layout_.modules[static_cast<std::size_t>(m)].fetched(threshold_) * w_));
    if (tensors > 1) p_.copy(Stream::gather, 2 * w_ * group.elements / n_, cause);  // flatten the shards
    gather_op_[g] = p_.collective(CollectiveKind::all_gather, Group::data_parallel, group.elements * w_, cause,
                                  TaskCategory::all_gather, {Stream::gather}, static_cast<int>(g),
                                  fmt::format("gather group {}{}", g, group.on_demand ? " (on demand)" : ""));
    group_tensors_[g] = tensors;
    for (std::size_t i = 0; i < group.modules.size(); ++i) {
      const auto m = static_cast<std::size_t>(group.modules[i]);
      module_buffer_[m] = ids[i];
      module_alloc_[m] = gather_op_[g];
    }
  }

  void wait_for_module(std::size_t j) {
    const int g = plan_.waits_on[j];
    if (g < 0 || !plan_.first_wait[j]) return;
    const auto gi = static_cast<std::size_t>(g);
    const GatherGroup& group = plan_.gathers[gi];
    const Cause cause = group.on_demand ? Cause::on_demand_gather : Cause::bandwidth;
    for (int t = 0; t < fetched_tensors(layout_.uses[j].module); ++t) {
      if (fetch_events_.size() >= 3) p_.host_wait(fetch_events_[fetch_events_.size() - 3], Cause::in_flight_limit);
      if (!waited_[gi]) {
        waited_[gi] = 1;
        p_.marker(Stream::gather, {}, {gather_op_[gi]});  // handle.wait()
        if (group_tensors_[gi] > 1) p_.copy(Stream::gather, 2 * w_ * group.elements, cause);  // reassembly
      }
      fetch_events_.push_back(p_.marker(Stream::gather, {}));  // Event().record()
    }
  }

  // One hook call's Python time (training.hook_host_time; the header).
  void hook() { p_.host_work(in_.scenario->training.hook_host_time, Cause::host_sync); }

  // `op` is the backward use that wrote the gradients. Each full 16-bit gradient is freed
  // with record_stream on the reduce stream: reusable once its copy into the bucket ended (S
  // 1101-1105), or, when it was not copied, once its flush's partition copy ended (S 1306-1307).
  // The activation replay holds one gradient until the next is created; from the start of the
  // next gradient-writing use to that end it is a queued gradient (EngineProgram).
  void gradients(std::size_t j, int op) {
    for (std::size_t e : previous_use_) out_.queued_gradients[e].alloc_op = op;
    previous_use_.clear();
    const SubModule& m = layout_.modules[static_cast<std::size_t>(layout_.uses[j].module)];
    for (double g : m.tensors) {
      if (held_ > 0 && held_ + g > bucket_size_) flush();
      previous_use_.push_back(out_.queued_gradients.size());
      out_.queued_gradients.push_back({"parameter gradients queued for the reduce stream", g * w_, -1, -1});
      if (held_ + g < bucket_size_) {
        // into the contiguous bucket
        out_.queued_gradients.back().free_op = p_.copy(Stream::reduce, 2 * w_ * g, Cause::bandwidth, {Stream::compute});
      } else {
        p_.marker(Stream::reduce, {Stream::compute});
        uncopied_.push_back(out_.queued_gradients.size() - 1);
      }
      held_ += g;
      ++tensors_;
    }
  }

  void flush() {
    if (reduce_events_.size() >= 3) p_.host_wait(reduce_events_[reduce_events_.size() - 3], Cause::host_sync);
    p_.copy(Stream::reduce, 4 * w_ * held_, Cause::bandwidth);  // interleave with padding, pre-divide
    const int rs = p_.collective(CollectiveKind::reduce_scatter, Group::data_parallel, held_ * w_, Cause::bandwidth,
                                 TaskCategory::reduce_scatter, {Stream::reduce}, buckets_, fmt::format("bucket {}", buckets_));
    ++buckets_;
    p_.marker(Stream::reduce, {}, {rs});
    const int partition = p_.copy(Stream::reduce, 4 * w_ * held_ / n_, Cause::bandwidth);  // partition copy, inf/nan check
    for (std::size_t e : uncopied_) out_.queued_gradients[e].free_op = partition;
    uncopied_.clear();
    reduce_events_.push_back(p_.last_on(Stream::reduce));
    held_ = 0;
    tensors_ = 0;
  }

  void step() {
    out_.step_op = static_cast<int>(p_.size());
    const KernelTimer& timer = in_.compute.memory_timer();
    const StepShape shape = step_shape();
    const std::vector<StepPhase> boundary = boundary_phases(timer, shape);
    const std::vector<StepPhase> update = optimizer_step_phases(timer, shape);
    auto run = [&](const StepPhase& phase, TaskCategory category, std::vector<int> after = {}) {
      ProgramOp op;
      op.kind = ProgramOp::Kind::compute;
      op.stream = Stream::compute;
      op.category = category;
      op.use = {ComputePass::timed, ComputePart::none, 0, phase.duration};
      op.waits = {};
      op.after = std::move(after);
      op.label = std::string(phase.name);
      const int i = p_.add(std::move(op));
      if (phase.syncs > 0) p_.host_wait(i, Cause::host_sync);  // .item() / synchronize(): the host waits
      return i;
    };
    // Boundary (step_phases.hpp, in order): the overflow flag (the tracker's .item(), the flag to
    // the GPU, its one-byte all-reduce, .item()), the gradient norm (per-tensor norms, their
    // sum, an 8-byte all-reduce, .item()).
    run(boundary[0], TaskCategory::boundary);
    run(boundary[1], TaskCategory::boundary);
    const int overflow = p_.collective(CollectiveKind::all_reduce, Group::data_parallel, 1, Cause::host_sync,
                                       TaskCategory::all_reduce, {Stream::compute}, -1, "overflow flag");
    run(boundary[2], TaskCategory::boundary, {overflow});
    run(boundary[3], TaskCategory::boundary);
    run(boundary[4], TaskCategory::boundary);
    const int norm = p_.collective(CollectiveKind::all_reduce, Group::data_parallel, 8, Cause::host_sync,
                                   TaskCategory::all_reduce, {Stream::compute}, -1, "gradient norm");
    run(boundary[5], TaskCategory::boundary, {norm});
    // The update over the partition (fused Adam changes the model states), _post_step's
    // gathers of the persistent parameters, and the step end.
    bool post_step = false;
    for (const StepPhase& phase : update) {
      if (phase.part == StepPart::step_end && !post_step) {
        post_step = true;
        gather_persistent();
      }
      const int i = run(phase, phase.part == StepPart::update ? TaskCategory::optimizer : TaskCategory::boundary);
      if (phase.name == std::string_view("fused Adam")) out_.update_op = i;
    }
    if (!post_step) gather_persistent();
  }

  // _post_step (S 1838-1844): _partition_all_parameters at the step's start (S 1879,
  // release_and_reset_all, C 370-383) partitioned every parameter, the persistent ones too, so
  // they are gathered again: _all_gather -> _allgather_params_coalesced (P 999-1021,
  // 1235-1300) issues one all_gather_base per tensor, waits for the last (Work.wait: the
  // compute stream waits) and calls torch.cuda.synchronize().
  void gather_persistent() {
    const Zero3Persistent persistent = zero3_persistent(layout_, threshold_);
    if (persistent.tensors <= 0) return;
    const int g = p_.collective(CollectiveKind::all_gather, Group::data_parallel, persistent.elements * w_,
                                Cause::on_demand_gather, TaskCategory::all_gather, {Stream::compute}, -1,
                                fmt::format("persistent parameters ({} gathers)", persistent.tensors),
                                persistent.tensors);
    p_.marker(Stream::compute, {}, {g});  // launch_handles[-1].wait()
    p_.host_wait(g, Cause::on_demand_gather);  // torch.cuda.synchronize()
  }

  [[nodiscard]] StepShape step_shape() const { return deepspeed_zero3_step_shape(*in_.scenario, in_.shape); }

  const EngineInput& in_;
  const Zero3Layout& layout_;
  const Zero3Schedule& plan_;
  const double w_;
  const double n_;
  const double bucket_size_;
  const double threshold_;
  StreamProgram p_;
  EngineProgram out_;
  MemoryPressure pressure_;
  std::vector<int> gather_op_;
  std::vector<int> group_tensors_;
  std::vector<char> waited_;
  std::vector<int> module_buffer_;  // per module: its gathered buffer's id while gathered (-1: none)
  std::vector<int> module_alloc_;   // per module: the all-gather that allocated it
  std::vector<int> fetch_events_;
  std::vector<int> reduce_events_;
  std::vector<std::size_t> previous_use_;  // queued_gradients entries of the last gradient-writing use
  std::vector<std::size_t> uncopied_;      // entries of the bucket not copied into it (freed at its flush)
  double held_ = 0;
  int tensors_ = 0;
  int buckets_ = 0;
};

}  // namespace

EngineMemory deepspeed_zero3_memory(const EngineInput& in) {
  const Zero3Layout layout = zero3_layout(in.shape);
  const Zero3Spec& z = in.scenario->training.zero3;
  const double w = in.shape.word_bytes();
  const double p = in.shape.parameters();
  const double n = in.ranks();
  double persistent = 0;
  double largest_layer = 0;
  for (std::size_t i = 0; i < layout.modules.size(); ++i) {
    const SubModule& m = layout.modules[i];
    persistent += m.total() - m.fetched(z.param_persistence_threshold);
    if (i > 0) largest_layer = std::max(largest_layer, m.total());
  }
  const double fp32_conversion = w == 4.0 ? 0.0 : 4.0;
  EngineMemory out;
  out.terms = {
      {"model states (16 B x P / n)", 16.0 * p / n, kEveryPhase},
      {"persistent parameters", persistent * w, kEveryPhase},
      {"gradient bucket", z.reduce_bucket_size * w, kEveryPhase},
      {"tied embedding gradient (whole backward)", layout.modules.front().total() * w, phase_bit(MemoryPhase::backward)},
      {"largest layer-module gradient", largest_layer * w, phase_bit(MemoryPhase::backward)},
      {"reduce-scatter copy", std::min(z.reduce_bucket_size, p) * w, phase_bit(MemoryPhase::backward)},
      {"fp32 gradient (sub-group)", std::min(z.sub_group_size, p / n) * (w + fp32_conversion),
       phase_bit(MemoryPhase::optimizer_step)},
  };
  out.communicators = 2;  // the default group (setup, barriers) and the data-parallel group
  out.held_gradient = layout.modules.front().total() * w;
  for (std::size_t i = 4; i >= 1 && i < layout.modules.size(); --i) out.layer_gradients.push_back(layout.modules[i].total() * w);  // FC2, FC1, O, QKV
  return out;
}

EngineProgram deepspeed_zero3_program(const EngineInput& input) {
  const Zero3Layout layout = zero3_layout(input.shape);
  const Zero3Schedule plan = plan_zero3(layout.modules, layout.uses, zero3_knobs(*input.scenario));
  EngineProgram out = Writer(input, layout, plan).write();
  out.summary = fmt::format("deepspeed-zero3 (trace {})", name_of(input.scenario->training.zero3.trace));
  out.memory = deepspeed_zero3_memory(input);
  return out;
}

}  // namespace ckptsim
