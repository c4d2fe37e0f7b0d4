// The megatron iteration model (megatron_iteration.hpp): per-layer costs on one rank, the
// pipeline schedule, the data-parallel reduce and the optimizer step, memory per rank.
#include "ckptsim/workload/megatron_iteration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/network/topology.hpp"
#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/scenario/parameter_count.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/workload/kernel_time.hpp"
#include "ckptsim/workload/step_phases.hpp"

namespace ckptsim {
namespace {

constexpr const char* kWhere = "/training/megatron";

/// The symbols of the header for one scenario, per rank.
struct Dims {
  double b, s, sc, T, Tn, h, f, a, kv, dh, V, w, g, E, k, t, c, e;
  double capacity_factor, imbalance;  ///< MoE dispatch: 0 = dropless; the busiest expert over the mean
  bool sp, causal, dropout, gated, flash, pad;
  Recomputation recompute;
  TransformerParameterCount count;  ///< the model's parameters, whole (scenario/parameter_count.hpp)
};

Dims dims_of(const Scenario& sc) {
  const ModelSpec& m = sc.model;
  const MegatronSpec& g = sc.training.megatron;
  Dims d{};
  d.b = sc.training.micro_batch;
  d.s = sc.training.sequence_length;
  d.c = g.cp;
  d.t = g.tp;
  d.e = g.ep;
  d.sc = d.s / d.c;
  d.T = d.b * d.sc;
  d.sp = g.sequence_parallel && g.tp > 1;
  d.Tn = d.sp ? d.T / d.t : d.T;
  d.h = m.hidden;
  d.f = m.ffn;
  d.a = m.heads;
  d.kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
  d.dh = d.h / d.a;
  d.V = m.vocabulary;
  d.w = sc.training.word_bytes();
  d.g = m.gated_ffn ? 2.0 : 1.0;
  d.E = m.experts;
  d.k = m.experts > 1 ? m.experts_per_token : 1;
  d.causal = m.causal;
  d.dropout = m.dropout > 0;
  d.gated = m.gated_ffn;
  d.flash = sc.training.attention == AttentionKind::flash;
  d.recompute = g.recomputation;
  d.capacity_factor = g.moe_capacity_factor.value_or(0.0);
  d.pad = g.moe_pad_to_capacity;
  d.imbalance = g.moe_load_imbalance;
  d.count = transformer_parameter_count(m).value_or(TransformerParameterCount{});  // the loader checked the shape
  return d;
}

/// Seconds of GEMMs, fused attention and memory-bound passes on one GPU: the kernel model's timer,
/// or FLOPs at the compute_efficiency override (memory passes then count as part of it).
class Clock {
 public:
  explicit Clock(const Scenario& s)
      : timer_(s.training.compute_efficiency ? KernelTimer::memory_only(s.cluster)
                                             : KernelTimer::from(s.cluster, s.training.attention)) {
    if (s.training.compute_efficiency) rate_ = *s.training.compute_efficiency * s.cluster.gpu_peak_flops;
  }
  [[nodiscard]] double gemm(double m, double n, double k, double batch = 1) const {
    return rate_ ? 2 * m * n * k * batch / *rate_ : timer_.gemm_seconds(m, n, k, batch);
  }
  [[nodiscard]] double flash(double flops) const { return rate_ ? flops / *rate_ : timer_.flash_seconds(flops); }
  [[nodiscard]] double memory(double bytes) const { return rate_ ? 0.0 : timer_.memory_seconds(bytes); }

 private:
  KernelTimer timer_;
  std::optional<double> rate_;
};

struct Linear {
  double m, n, k, repeat;  ///< forward Y(m x n) = X(m x k) W^T, `repeat` times
};

/// One pass's seconds.
struct PassSeconds {
  double forward = 0, backward = 0, attention_forward = 0, attention_backward = 0;
};

void add_linears(PassSeconds& p, const Clock& clk, const std::vector<Linear>& ls) {
  for (const Linear& l : ls) {
    p.forward += l.repeat * clk.gemm(l.m, l.n, l.k);
    p.backward += l.repeat * (clk.gemm(l.m, l.k, l.n) + clk.gemm(l.n, l.k, l.m));  // dgrad, wgrad
  }
}

void add_memory(PassSeconds& p, const Clock& clk, const std::vector<double>& passes) {
  for (double bytes : passes) {
    p.forward += clk.memory(bytes);
    p.backward += clk.memory(2 * bytes);
  }
}

void add_attention(PassSeconds& p, const Clock& clk, const Dims& d) {
  const double heads = d.a / d.t;
  if (d.flash) {
    const double flops = 4 * (d.causal ? 0.5 : 1.0) * d.b * d.sc * d.s * d.dh * heads;
    p.attention_forward = clk.flash(flops);
    p.attention_backward = clk.flash(2.5 * flops);
  } else {
    const double batch = d.b * heads;
    const double S = batch * d.sc * d.s;
    p.attention_forward = clk.gemm(d.sc, d.s, d.dh, batch) + clk.gemm(d.sc, d.dh, d.s, batch) + clk.memory(2 * S * d.w) +
                          clk.memory(2 * S * d.w) + (d.dropout ? clk.memory(2 * S * d.w + S) : 0.0) +
                          clk.memory(2 * d.T * d.dh * heads * d.w);
    p.attention_backward = 2 * p.attention_forward;  // dP, dV, dQ, dK GEMMs and the passes back
  }
  p.forward += p.attention_forward;
  p.backward += p.attention_backward;
}

/// Megatron-core's alltoall token dispatch on one rank for one layer and micro-batch (header):
/// capacity, kept and dropped tokens, the busiest expert's rank, the permutation passes.
MegatronMoeDispatch dispatch_of(const Dims& d) {
  MegatronMoeDispatch x;
  if (d.E <= 1) return x;
  const double assignments = d.Tn * d.k;                      // T'·k
  const double mean = assignments / d.E;                       // m
  const double hot = d.imbalance * mean;                       // λ·m
  const double other = mean * (d.E - d.imbalance) / (d.E - 1);  // the rest, evenly
  const bool capped = d.capacity_factor > 0;
  x.capacity = capped ? std::ceil(assignments / d.E * d.capacity_factor) : 0.0;
  const auto fits = [&](double load) { return capped ? std::min(load, x.capacity) : load; };
  const auto kept = [&](double load) { return d.pad && capped ? x.capacity : fits(load); };
  const double fitted = fits(hot) + (d.E - 1) * fits(other);  // assignments within capacity
  x.routed = kept(hot) + (d.E - 1) * kept(other);
  x.dropped = assignments > 0 ? (assignments - fitted) / assignments : 0.0;
  x.padding = x.routed > 0 ? (x.routed - fitted) / x.routed : 0.0;
  // On the busiest expert's rank, after the all-to-all from the e ranks and the gather over the
  // tensor group (T/T' = t with sequence parallelism).
  const double gather = d.T / d.Tn;
  const double local = d.E / d.e;
  x.busiest_expert = gather * d.e * kept(hot);
  x.other_expert = gather * d.e * kept(other);
  x.busiest_rank = x.busiest_expert + (local - 1) * x.other_expert;
  const double row = d.h * d.w;
  x.permute = 2 * x.routed * row;                                  // index_select: read + write
  x.sort = local > 1 ? 2 * x.busiest_rank * row : 0.0;             // sort_chunks_by_idxs (or the padded transpose)
  x.unpermute = 5 * x.routed * row + d.Tn * row;                   // probs product 2, zeros, scatter_add 3
  x.a2a_tokens = std::max(x.routed, x.busiest_rank / gather);
  return x;
}

/// One transformer layer's compute on one rank for one micro-batch.
PassSeconds layer_seconds(const Dims& d, const Clock& clk) {
  PassSeconds p;
  const double qkv = (d.a + 2 * d.kv) * d.dh / d.t;
  std::vector<Linear> ls{{d.T, qkv, d.h, 1}, {d.T, d.h, d.h / d.t, 1}};
  const double hw = d.Tn * d.h * d.w;
  const double mask = d.dropout ? d.Tn * d.h : 0.0;
  std::vector<double> mem{2 * hw + 8 * d.Tn, 3 * hw + mask, 2 * hw + 8 * d.Tn, 3 * hw + mask};
  if (d.E > 1) {
    // The busiest expert's rank (dispatch_of): its hot expert and its other local experts.
    const MegatronMoeDispatch x = dispatch_of(d);
    const double local = d.E / d.e;                 // experts on this rank
    ls.push_back({d.T, d.E, d.h, 1});                // router
    ls.push_back({x.busiest_expert, d.g * d.f / d.t, d.h, 1});
    ls.push_back({x.busiest_expert, d.h, d.f / d.t, 1});
    if (local > 1) {
      ls.push_back({x.other_expert, d.g * d.f / d.t, d.h, local - 1});
      ls.push_back({x.other_expert, d.h, d.f / d.t, local - 1});
    }
    mem.push_back((d.g + 1) * x.busiest_rank * d.f / d.t * d.w);
    mem.push_back(x.permute);
    if (x.sort > 0) {
      mem.push_back(x.sort);  // permutation 2
      mem.push_back(x.sort);  // unpermutation 2
    }
    mem.push_back(x.unpermute);
  } else {
    ls.push_back({d.T, d.g * d.f / d.t, d.h, 1});
    ls.push_back({d.T, d.h, d.f / d.t, 1});
    mem.push_back((d.g + 1) * d.T * d.f / d.t * d.w);
  }
  add_linears(p, clk, ls);
  add_memory(p, clk, mem);
  add_attention(p, clk, d);
  return p;
}

/// A ring collective's time on `n` ranks: `steps_factor` 1 for all-gather / reduce-scatter /
/// all-to-all, 2 for all-reduce.
SimTime ring_time(double bytes, int n, double bandwidth, SimTime alpha, int steps_factor, const char* what) {
  if (n <= 1 || bytes <= 0) return SimTime::zero();
  const double share = static_cast<double>(n - 1) / n;
  const SimTime moving = checked_transfer_time(steps_factor * share * bytes, bandwidth, kWhere, what);
  return checked_add(checked_multiply(alpha, static_cast<std::int64_t>(steps_factor) * (n - 1), kWhere, what), moving,
                     kWhere, what);
}

struct Links {
  double nvlink = 0;       ///< B/s per GPU
  double network = 0;      ///< B/s per GPU for collectives (f·B/G)
  double network_p2p = 0;  ///< B/s per GPU for point-to-point sends
  SimTime alpha;         ///< per ring step over the network (cluster.network.latency)
  SimTime alpha_nvlink;  ///< per ring step inside a machine's NVLink domain (cluster.nvlink_latency)
  [[nodiscard]] double rate(bool crosses) const { return crosses ? std::min(nvlink, network) : nvlink; }
  /// A group that crosses machines pays the network's step latency (its slowest hops); one
  /// inside a machine NVLink's (NCCL's tuning model charges each step its own tier's latency).
  [[nodiscard]] SimTime step_latency(bool crosses) const { return crosses ? alpha : alpha_nvlink; }
  /// The GPU type's measured curves inside a machine (nullptr: a ring at nvlink, alpha_nvlink
  /// per step), and the GPU count they were measured on.
  const BusCurve* ring_curve = nullptr;
  const BusCurve* all_reduce_curve = nullptr;
  int curve_gpus = 0;
  /// A ring collective of `bytes` over n ranks (steps_factor 1: reduce-scatter or all-gather; 2:
  /// all-reduce). Inside a machine with curves: t = k·S / busbw(S) (bus_curve.hpp) with
  /// k = steps_factor·(n-1)/n, the all-reduce curve (NVLS on Hopper) for an all-reduce over the
  /// curves' GPU count, else the ring curve; otherwise ring_time at the tier's rate and latency.
  [[nodiscard]] SimTime collective(double bytes, int n, bool crosses, int steps_factor, const char* what) const;
};

SimTime Links::collective(double bytes, int n, bool crosses, int steps_factor, const char* what) const {
  if (crosses || ring_curve == nullptr) return ring_time(bytes, n, rate(crosses), step_latency(crosses), steps_factor, what);
  if (n <= 1 || bytes <= 0) return SimTime::zero();
  const double k = steps_factor * static_cast<double>(n - 1) / n;
  const BusCurve& curve = steps_factor == 2 && n == curve_gpus && all_reduce_curve != nullptr ? *all_reduce_curve : *ring_curve;
  return checked_seconds(curve.seconds(bytes, k), kWhere, what);
}

Links links_of(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  if (!(c.nvlink_bandwidth > 0)) throw ModelError("/cluster/nvlink_bandwidth", "the megatron model needs the NVLink bandwidth");
  if (!(c.network_bandwidth > 0)) throw ModelError("/cluster/network_bandwidth", "the megatron model needs the network bandwidth");
  const double per_gpu = c.network_bandwidth / std::max(1, c.gpus_per_machine);
  Links l;
  l.nvlink = c.nvlink_bandwidth;
  l.network = c.network.collective_efficiency * per_gpu;
  l.network_p2p = std::min(c.nvlink_bandwidth, c.network.p2p_efficiency * per_gpu);
  l.alpha = c.network.latency;
  l.alpha_nvlink = c.nvlink_latency;
  if (nvlink_curves_apply(s)) {
    l.ring_curve = &*c.nvlink_ring_curve;
    l.all_reduce_curve = c.nvlink_all_reduce_curve ? &*c.nvlink_all_reduce_curve : nullptr;
    l.curve_gpus = c.nvlink_curve_gpus;
  }
  return l;
}

SimTime seconds_checked(double s, const char* what) { return checked_seconds(s, kWhere, what); }

/// Dense (tensor-split) and expert parameters of one layer on one rank, or before splitting: the
/// split parts of the one count (parameter_count.hpp) over t, the whole parts on every rank.
struct LayerParameters {
  double dense = 0, experts = 0;
};

LayerParameters layer_parameters(const Dims& d, bool per_rank) {
  const double t = per_rank ? d.t : 1.0;
  const TransformerParameterCount& c = d.count;
  LayerParameters p;
  p.dense = c.attention_matrices / t + (c.attention_bias_split / t + c.attention_bias_whole) + c.norms + c.router;
  const double expert = (c.ffn_matrices + c.ffn_bias_split) / t + c.ffn_bias_whole;
  if (c.experts > 1) p.experts = expert * (per_rank ? d.E / d.e : d.E);
  else p.dense += expert;
  return p;
}

/// Korthikanti et al.'s stored activations of one layer, one micro-batch, one rank (header).
double activation_bytes(const Dims& d) {
  const double sbh = d.sc * d.b * d.h;
  if (d.recompute == Recomputation::full) return 2 * sbh;
  // Dropout masks (1 byte each, after the attention and FFN blocks) exist only with dropout.
  const double masks = d.dropout ? 2 * sbh : 0.0;
  const double whole = 4 * sbh + 2 * sbh + 2 * sbh + masks;
  // Expert rows per token on the busiest expert's rank (k when balanced and dropless).
  const double rows = d.E > 1 ? dispatch_of(d).busiest_rank / d.T : d.k;
  const double split = 2 * sbh + 4 * d.sc * d.b * d.kv * d.dh + 2 * sbh + rows * (2 * d.g * d.sc * d.b * d.f + 2 * d.sc * d.b * d.f);
  const double scores = (d.flash || d.recompute == Recomputation::selective)
                            ? 0.0
                            : (d.dropout ? 5.0 : 2.0) * d.a * d.sc * d.s * d.b;  // softmax (+ mask, dropout output)
  if (d.sp) return (whole + split + scores) / d.t;
  return whole + split / d.t + scores / d.t;
}

/// What the last virtual stage keeps per micro-batch for the output layer and loss (header):
/// the final norm's input and the output projection's input (T'·h·w each) and
/// _VocabParallelCrossEntropy's saved fp32 softmax over the rank's V/t vocabulary slice of all
/// T tokens, its target mask (1 byte) and masked targets (int64) per token.
double output_layer_bytes(const Dims& d) { return 2 * d.Tn * d.h * d.w + 4 * d.T * d.V / d.t + 9 * d.T; }

/// A stage's output tensor, as sent to the next stage (b·(s/c)·h·w, over t with sequence
/// parallelism): kept until the backward unless deallocate_pipeline_outputs frees it (header).
double stage_output_bytes(const Dims& d) { return d.Tn * d.h * d.w; }

/// The embedding dropout's 1-byte mask on the first virtual stage, only with dropout (Korthikanti
/// et al. 2022, §4.2.3).
double embedding_mask_bytes(const Dims& d) { return d.dropout ? d.Tn * d.h : 0.0; }

std::vector<PipelineSpan> gaps(std::vector<PipelineSpan> busy, SimTime end) {
  std::sort(busy.begin(), busy.end(), [](const PipelineSpan& x, const PipelineSpan& y) { return x.from < y.from; });
  std::vector<PipelineSpan> out;
  SimTime at = SimTime::zero();
  for (const PipelineSpan& iv : busy) {
    if (iv.from > at) out.push_back({at, std::min(iv.from, end)});
    at = std::max(at, iv.to);
    if (at >= end) break;
  }
  if (at < end) out.push_back({at, end});
  out.erase(std::remove_if(out.begin(), out.end(), [](const PipelineSpan& i) { return i.to <= i.from; }), out.end());
  return out;
}

}  // namespace

namespace {

SimTime total_length(const std::vector<PipelineSpan>& spans) {
  SimTime sum;
  for (const PipelineSpan& i : spans) sum += i.to - i.from;
  return sum;
}

}  // namespace

SimTime MegatronStage::idle_time() const { return total_length(idle_spans); }

SimTime MegatronStage::silent_time() const { return total_length(silent_spans); }

double MegatronIteration::bubble_fraction() const { return pipeline.bubble_fraction(0); }

double MegatronIteration::mfu(double peak_flops) const {
  if (iteration_time <= SimTime::zero() || peak_flops <= 0) return 0;
  return model_flops / (iteration_time.seconds() * static_cast<double>(layout.world()) * peak_flops);
}

std::vector<WorkEstimate> estimate_megatron_work(const Scenario& s) {
  const MegatronSpec& g = s.training.megatron;
  const double ops = 2.0 * g.pp * g.virtual_stages * g.micro_batches;
  WorkEstimate e;
  e.input = "/training/megatron/pp x /training/megatron/virtual_stages x /training/megatron/micro_batches";
  e.what = "memory for the pipeline schedule";
  e.amount = 160 * ops;
  e.limit = kMaxMemoryBytes;
  e.unit = WorkUnit::bytes;
  e.file = s.source_file;
  e.found = fmt::format("{} x {} x {}", g.pp, g.virtual_stages, g.micro_batches);
  return {e};
}

double megatron_layer_activation_bytes(const Scenario& scenario) { return activation_bytes(dims_of(scenario)); }

double megatron_layer_parameters(const Scenario& scenario, bool per_rank) {
  const LayerParameters p = layer_parameters(dims_of(scenario), per_rank);
  return p.dense + p.experts;
}

namespace {

/// Per-micro-batch costs of the first virtual stage's embedding and the last one's output layer
/// and loss (Megatron's VocabParallelEmbedding and vocab-parallel cross entropy, kernels.hpp's
/// loss passes over V/t columns).
struct EdgeCosts {
  SimTime embedding_forward, embedding_backward, output_forward, output_backward;
};

EdgeCosts edge_costs(const Dims& d, const Clock& clk, SimTime tp_collective, SimTime tp_small) {
  EdgeCosts e;
  const double hw = d.T * d.h * d.w;
  // Lookup and its all-reduce (reduce-scatter with sequence parallelism) over the tensor group.
  e.embedding_forward = seconds_checked(clk.memory(2 * hw + 8 * d.T), "the embedding time") + tp_collective;
  e.embedding_backward = seconds_checked(clk.memory(hw + 8 * d.T) + clk.memory(3 * d.V / d.t * d.h * d.w), "the embedding time");
  const double TV = d.T * d.V / d.t;
  const double fwd = clk.memory(2 * d.Tn * d.h * d.w + 8 * d.Tn) + clk.gemm(d.T, d.V / d.t, d.h) +
                     clk.memory(TV * (d.w + 4)) + clk.memory(32 * TV) + clk.memory(16 * d.T);
  const double bwd = clk.memory(16 * d.T) + clk.memory(8 * TV) + clk.memory(TV * (4 + d.w)) + clk.gemm(d.T, d.h, d.V / d.t) +
                     clk.gemm(d.V / d.t, d.h, d.T) + clk.memory(5 * d.Tn * d.h * d.w);
  // Sequence parallelism gathers the final norm's output before the logits (and reduce-scatters
  // its gradient); without it the input gradient is all-reduced. The loss's max, sum and target
  // logit are three small all-reduces over the tensor group.
  e.output_forward = seconds_checked(fwd, "the output layer time") + (d.sp ? tp_collective : SimTime::zero()) + 3 * tp_small;
  e.output_backward = seconds_checked(bwd, "the output layer time") + tp_collective;
  return e;
}

/// The data-parallel reduce of one stage, in buckets that become ready evenly through its last
/// backward (overlap) or all at its end: the interval each bucket's bytes move in, in order (a
/// bucket starts when it is ready and the previous one is done). The last one ends the reduce.
std::vector<PipelineSpan> reduce_buckets(SimTime last_start, SimTime last_end, SimTime total, double parameters,
                                         double bucket, bool overlap) {
  std::vector<PipelineSpan> out;
  if (total <= SimTime::zero()) return out;
  const auto buckets = static_cast<std::int64_t>(std::max(1.0, std::ceil(parameters / bucket)));
  const SimTime each = SimTime::from_ns((total.ns() + buckets - 1) / buckets);
  out.reserve(static_cast<std::size_t>(buckets));
  SimTime at = overlap ? SimTime::zero() : last_end;
  const SimTime span = last_end - last_start;
  for (std::int64_t j = 0; j < buckets; ++j) {
    const SimTime ready = overlap ? last_start + SimTime::from_ns(span.ns() / buckets * (j + 1)) : last_end;
    const SimTime start = std::max(at, j + 1 == buckets ? last_end : ready);
    at = start + each;
    out.push_back({start, at});
  }
  return out;
}

MegatronCollective collective(std::string name, bool crosses, int group, double bytes, double sent, SimTime time,
                              std::int64_t calls) {
  return {std::move(name), crosses ? "network" : "NVLink", group, bytes, sent, time, calls};
}

/// Parameter tensors of one layer on one rank, dense and expert (Megatron-core's layer with
/// TransformerEngine modules: fused QKV and FC1 weights, each norm a weight (RMSNorm) or a
/// weight and a bias (LayerNorm), a bias on every linear layer in the GPT style; the router's
/// weight; each local expert's FC1 and FC2, with their biases). Only the launch counts of the
/// per-tensor kernels of the optimizer step read them.
struct LayerTensors {
  double dense = 0, experts = 0;
};

LayerTensors layer_tensors(const Dims& d) {
  const double biased = d.gated ? 1.0 : 2.0;  // a linear layer's weight (and bias); a norm's weight (and bias)
  LayerTensors t;
  t.dense = 2 * biased + 2 * biased;          // QKV, projection; the two norms
  const double ffn = 2 * biased;              // FC1, FC2
  if (d.E > 1) {
    t.dense += 1;                             // router
    t.experts = ffn * d.E / d.e;
  } else {
    t.dense += ffn;
  }
  return t;
}

/// One rank of pipeline stage r: its dense and expert parameters and parameter tensors (its
/// chunks' layers; the embedding on the first stage, the output projection and final norm on the
/// last).
struct StageParameters {
  double dense = 0, experts = 0, dense_tensors = 0, expert_tensors = 0;
};

StageParameters stage_parameters(const Dims& d, const std::vector<int>& chunk_layers, int r, int P, int V) {
  const LayerParameters lp = layer_parameters(d, true);
  const LayerTensors lt = layer_tensors(d);
  const double vocab_rank = d.count.embedding / d.t;
  StageParameters sp;
  for (int c = 0; c < V; ++c) {
    const int n = chunk_layers[static_cast<std::size_t>(c * P + r)];
    sp.dense += n * lp.dense;
    sp.experts += n * lp.experts;
    sp.dense_tensors += n * lt.dense;
    sp.expert_tensors += n * lt.experts;
  }
  if (r == 0) {
    sp.dense += vocab_rank;
    sp.dense_tensors += 1;
  }
  // The last stage holds the output projection: its own when untied, else a copy of the
  // embedding when the first stage is another rank (synchronised by the tied all-reduce).
  if (r == P - 1) {
    const bool projection = d.count.output_projection > 0 || P > 1;
    sp.dense += (d.count.output_projection > 0 ? d.count.output_projection / d.t : (P > 1 ? vocab_rank : 0.0)) + d.count.final_norm;
    sp.dense_tensors += (projection ? 1.0 : 0.0) + (d.gated ? 1.0 : 2.0);
  }
  return sp;
}

/// A rank's checkpoint shard (header, MegatronStage::checkpoint_shard): c bytes per parameter,
/// over its data group under the distributed optimizer.
double rank_checkpoint_shard(const Scenario& s, const StageParameters& sp) {
  const MegatronSpec& g = s.training.megatron;
  const int dc = static_cast<int>(*g.dp) * g.cp;
  const int expert_dp = std::max(1, dc / std::max(1, g.ep));
  const double c = s.training.checkpoint_bytes_per_parameter;
  return g.distributed_optimizer ? c * (sp.dense / dc + sp.experts / expert_dp) : c * (sp.dense + sp.experts);
}

/// The time of a 4-byte all-reduce over n ranks on `machines` machines (n / machines each):
/// NCCL's tuner runs the algorithm of least modelled time (src/graph/tuning.cc): the ring's
/// 2(n - 1) steps at the tier's latency (ring_time), or the tree's 2((n/N - 1)·alpha_NVLink +
/// ceil(log2 N)·alpha_network) (docs/references.md, "Bandwidth factors"); the bytes are negligible.
SimTime scalar_all_reduce(std::int64_t n, std::int64_t machines, const Links& links, const char* what) {
  if (n <= 1) return SimTime::zero();
  const bool crosses = machines > 1;
  const SimTime ring = ring_time(4, static_cast<int>(std::min<std::int64_t>(n, std::numeric_limits<int>::max())),
                                 links.rate(crosses), links.step_latency(crosses), 2, what);
  if (!crosses) return ring;
  const std::int64_t local = std::max<std::int64_t>(1, n / machines);
  const auto hops = static_cast<std::int64_t>(std::ceil(std::log2(static_cast<double>(machines))));
  const SimTime tree = checked_add(checked_multiply(links.alpha_nvlink, 2 * (local - 1), kWhere, what),
                                   checked_multiply(links.alpha, 2 * hops, kWhere, what), kWhere, what);
  return std::min(ring, tree);
}

}  // namespace

bool nvlink_curves_apply(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  if (!c.nvlink_curves || !c.nvlink_ring_curve || c.nvlink_ring_curve->points.empty()) return false;
  // Decided on the fields' values alone (never on which keys the file wrote), so that the sweep's
  // cache key, built from the values, separates every case. Curves other than the GPU type's (a
  // user's own nccl-tests log) are used as they are; the GPU type's yield to NVLink figures other
  // than the type's bandwidth and the default step latency (a user's own ring figures).
  const GpuType* type = c.gpu.empty() ? nullptr : find_gpu_type(c.gpu);
  if (type == nullptr || c.nvlink_ring_curve != type->nvlink_ring_curve ||
      c.nvlink_all_reduce_curve != type->nvlink_all_reduce_curve)
    return true;
  return c.nvlink_bandwidth == type->nvlink_bandwidth && c.nvlink_latency == ClusterSpec{}.nvlink_latency;
}

std::string nvlink_collectives_description(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  const std::string ring = fmt::format("a ring at {:.0f} GB/s with {} per step", c.nvlink_bandwidth / 1e9,
                                       format_duration(c.nvlink_latency));
  if (nvlink_curves_apply(s))
    return fmt::format("measured nccl-tests curves of {} ({} GPUs): reduce-scatter/all-gather {}{}; all-reduce {}{}",
                       c.gpu.empty() ? std::string("this cluster") : c.gpu, c.nvlink_curve_gpus, c.nvlink_ring_curve->source,
                       c.nvlink_ring_curve->assumed ? " (assumed)" : "",
                       c.nvlink_all_reduce_curve ? c.nvlink_all_reduce_curve->source : std::string("the ring curve"),
                       c.nvlink_all_reduce_curve && c.nvlink_all_reduce_curve->assumed ? " (assumed)" : "");
  if (!c.nvlink_ring_curve) return ring + " (no published curve for this GPU)";
  if (!c.nvlink_curves) return ring + " (cluster.nvlink_curves is false)";
  return ring + " (cluster.nvlink_bandwidth or nvlink_latency differs from the GPU type's, so its measured curves are not used)";
}

MegatronIteration simulate_megatron_iteration(const Scenario& s) {
  if (s.training.parallelism != Parallelism::megatron)
    throw ModelError("/training/parallelism", "the megatron iteration model needs \"megatron\"");
  MegatronIteration it;
  it.layout = MegatronLayout::from(s);
  const MegatronLayout& L = it.layout;
  const MegatronSpec& g = s.training.megatron;
  const Dims d = dims_of(s);
  const Clock clk(s);
  const Links links = links_of(s);
  it.nvlink_collectives = nvlink_collectives_description(s);
  it.chunk_layers = virtual_stage_layers(s);

  // Tensor-parallel collectives of one layer (header): four calls of S = T·h·w each way.
  const bool tp_cross = L.tensor_group_machines() > 1;
  const double S = d.T * d.h * d.w;
  const SimTime tp_call = d.sp ? links.collective(S, g.tp, tp_cross, 1, "a tensor-parallel collective")
                               : links.collective(S, g.tp, tp_cross, 2, "a tensor-parallel all-reduce");
  const int tp_calls = d.sp ? 4 : 2;
  const SimTime tp_small = links.collective(4 * d.T, g.tp, tp_cross, 2, "the loss all-reduce");
  // With experts and sequence parallelism the FFN half's all-gather and reduce-scatter are the
  // dispatcher's, over the expert rows the busiest expert's rank gathers (N·h·w, the dispatch
  // below; token_dispatcher.py gather_from_sequence_parallel_region after the all-to-all,
  // reduce_scatter_to_sequence_parallel_region before the combine): 2 calls at S, 2 at S_e.
  it.moe = dispatch_of(d);
  const bool moe_tp = d.E > 1 && d.sp;
  const double S_e = moe_tp ? it.moe.busiest_rank * d.h * d.w : S;
  const SimTime tp_call_e =
      moe_tp ? links.collective(S_e, g.tp, tp_cross, 1, "a tensor-parallel collective") : tp_call;
  const SimTime tp_layer = moe_tp ? 2 * tp_call + 2 * tp_call_e : tp_call * tp_calls;
  it.layer_tp_forward = tp_layer;
  const double tp_share = g.tp > 1 ? static_cast<double>(g.tp - 1) / g.tp : 0.0;
  it.tp_sent_bytes_per_layer = 2 * tp_share * S + 2 * tp_share * S_e;

  // Context-parallel ring (K and V per step) and expert all-to-alls.
  const PassSeconds layer = layer_seconds(d, clk);
  const bool cp_cross = L.context_group_machines() > 1;
  const double kv_bytes = 2 * d.b * d.sc * d.kv / d.t * d.dh * d.w;
  const SimTime cp_step = g.cp > 1 ? checked_add(links.step_latency(cp_cross), checked_transfer_time(kv_bytes, cp_cross ? links.network_p2p : links.nvlink, kWhere, "a context-parallel step"), kWhere, "a context-parallel step") : SimTime::zero();
  const SimTime attn_f = seconds_checked(layer.attention_forward, "the attention time");
  const SimTime attn_b = seconds_checked(layer.attention_backward, "the attention time");
  const SimTime cp_ring = cp_step * (g.cp - 1);
  const SimTime cp_fwd = cp_ring > attn_f ? cp_ring - attn_f : SimTime::zero();
  const SimTime cp_bwd = 2 * cp_ring > attn_b ? 2 * cp_ring - attn_b : SimTime::zero();
  const bool ep_cross = L.expert_group_machines() > 1;
  // Each all-to-all waits for the rank that sends or receives the most rows (dispatch_of).
  const double a2a_bytes = d.E > 1 ? it.moe.a2a_tokens * d.h * d.w : 0.0;
  const SimTime a2a = ring_time(a2a_bytes, g.ep, links.rate(ep_cross), links.step_latency(ep_cross), 1, "an expert all-to-all");

  it.layer_forward_compute = seconds_checked(layer.forward, "the layer forward time");
  it.layer_backward_compute = seconds_checked(layer.backward, "the layer backward time");
  SimTime layer_fwd = it.layer_forward_compute + it.layer_tp_forward + cp_fwd + 2 * a2a;
  SimTime layer_bwd = it.layer_backward_compute + tp_layer + cp_bwd + 2 * a2a;
  it.layer_tp_backward = tp_layer;
  if (d.recompute == Recomputation::full) layer_bwd += layer_fwd;
  if (d.recompute == Recomputation::selective) layer_bwd += attn_f;

  const EdgeCosts edges = edge_costs(d, clk, tp_call, tp_small);
  const int P = g.pp, V = g.virtual_stages;
  PipelineCosts costs;
  costs.p = P;
  costs.v = V;
  costs.m = g.micro_batches;
  costs.group = static_cast<int>(g.microbatch_group_size.value_or(0));
  costs.forward.assign(static_cast<std::size_t>(P), std::vector<SimTime>(static_cast<std::size_t>(V)));
  costs.backward = costs.forward;
  const int chunks = P * V;
  for (int k = 0; k < chunks; ++k) {
    const auto r = static_cast<std::size_t>(k % P), c = static_cast<std::size_t>(k / P);
    const int n = it.chunk_layers[static_cast<std::size_t>(k)];
    SimTime f = checked_multiply(layer_fwd, n, kWhere, "a stage's forward time");
    SimTime b = checked_multiply(layer_bwd, n, kWhere, "a stage's backward time");
    if (k == 0) {
      f += edges.embedding_forward;
      b += edges.embedding_backward;
    }
    if (k == chunks - 1) {
      f += edges.output_forward;
      b += edges.output_backward;
    }
    costs.forward[r][c] = f;
    costs.backward[r][c] = b;
  }
  const bool pp_cross = L.pipeline_crosses_machines();
  const double p2p_bytes = d.b * d.sc * d.h * d.w / (d.sp ? d.t : 1.0);
  if (P > 1) {
    const SimTime p2p = checked_add(links.step_latency(pp_cross), checked_transfer_time(p2p_bytes, pp_cross ? links.network_p2p : links.nvlink, kWhere, "a pipeline transfer"), kWhere, "a pipeline transfer");
    costs.p2p_forward = p2p;
    costs.p2p_backward = p2p;
  }
  it.p2p_forward = costs.p2p_forward;
  it.p2p_backward = costs.p2p_backward;
  it.pipeline = run_pipeline(costs);
  it.schedule_time = it.pipeline.makespan;

  // Parameters per stage and the data-parallel collectives.
  const int dc = static_cast<int>(*g.dp) * g.cp;
  const int expert_dp = std::max(1, dc / std::max(1, g.ep));
  const bool dp_cross = L.data_group_machines() > 1;
  // The data-parallel rings over their machines, slowed where they cross oversubscribed switch
  // tiers (network/topology.hpp, ring_tier_factor).
  const double dp_rate = links.rate(dp_cross) * (dp_cross ? ring_tier_factor(s.cluster.network, L.data_group_machines()) : 1.0);
  // A data-parallel group across machines rings at dp_rate; one inside a machine as Links does.
  const auto dp_collective = [&](double bytes, int n, int factor, const char* what) {
    return dp_cross ? ring_time(bytes, n, dp_rate, links.step_latency(true), factor, what)
                    : links.collective(bytes, n, false, factor, what);
  };
  const double grad_word = g.grad_reduce_in_fp32 ? 4.0 : d.w;
  const double bucket = std::max(4e7, 1e6 * dc);
  const bool tied_pair = s.model.tied_embeddings && P > 1;
  const double vocab_rank = d.count.embedding / d.t;
  const SimTime tied_ar = tied_pair ? ring_time(vocab_rank * grad_word, 2, links.rate(pp_cross), links.step_latency(pp_cross), 2, "the embedding all-reduce") : SimTime::zero();
  // The optimizer step's scalar all-reduces (found inf, gradient norm) over the gradient-
  // statistics group: every rank under the distributed optimizer, else the model-parallel group
  // (dense) and the expert tensor-model-pipeline group (experts) (megatron_step_phases).
  const bool moe = d.E > 1;
  const SimTime ar_world = scalar_all_reduce(L.world(), L.machines(), links, "the optimizer's all-reduce");
  const SimTime ar_dense = g.distributed_optimizer ? ar_world
                                                    : scalar_all_reduce(L.model_group_size(false), L.model_group_machines(false), links,
                                                                        "the optimizer's all-reduce");
  const SimTime ar_expert = !moe ? SimTime::zero()
                            : g.distributed_optimizer ? ar_world
                                                      : scalar_all_reduce(L.model_group_size(true), L.model_group_machines(true), links,
                                                                          "the optimizer's all-reduce");
  const SimTime found_inf_ar = s.training.mixed_precision && g.fp16 ? ar_dense + ar_expert : SimTime::zero();
  // One norm over both optimizers when their groups are the same (distributed), else one each.
  const SimTime norm_ar = g.clip_grad > 0 ? (g.distributed_optimizer || !moe ? ar_dense : ar_dense + ar_expert) : SimTime::zero();
  const KernelTimer step_timer = KernelTimer::memory_only(s.cluster);
  // Per stage: the step's phases up to each all-reduce (segments), for the synchronization below.
  std::vector<std::vector<SimTime>> segments(static_cast<std::size_t>(P));
  std::vector<SimTime> finishes(static_cast<std::size_t>(P));
  std::vector<StepSync> sync_order;  // the all-reduces of the step, in order (the same on every stage)
  SimTime synced, gather_exposed;
  it.stages.resize(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    MegatronStage& st = it.stages[static_cast<std::size_t>(r)];
    st.rank = r;
    for (int c = 0; c < V; ++c) {
      st.layers += it.chunk_layers[static_cast<std::size_t>(c * P + r)];
      st.forward += costs.forward[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
      st.backward += costs.backward[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
    }
    const StageParameters sp = stage_parameters(d, it.chunk_layers, r, P, V);
    const double dense = sp.dense, experts = sp.experts, dense_tensors = sp.dense_tensors, expert_tensors = sp.expert_tensors;
    st.parameters = dense + experts;
    const int factor = g.distributed_optimizer ? 1 : 2;  // reduce-scatter, or all-reduce
    const SimTime reduce = dp_collective(dense * grad_word, dc, factor, "the gradient reduce") +
                           dp_collective(experts * grad_word, expert_dp, factor, "the expert gradient reduce");
    const auto ru = static_cast<std::size_t>(r);
    st.schedule_end = it.pipeline.rank_end[ru];
    // The reduce's buckets, and the embedding sync after them, are the silent view's network-busy
    // intervals of the data-parallel reduce (kept only where it crosses machines, below).
    std::vector<PipelineSpan> reduce_iv = reduce_buckets(it.pipeline.last_backward_start[ru], st.schedule_end, reduce,
                                                         st.parameters, bucket, g.overlap_grad_reduce);
    const SimTime reduced = reduce_iv.empty() ? st.schedule_end : reduce_iv.back().to;
    const SimTime synced_tied = (r == 0 || r == P - 1) ? tied_ar : SimTime::zero();
    if (synced_tied > SimTime::zero()) reduce_iv.push_back({reduced, reduced + synced_tied});
    const SimTime finish = reduced + synced_tied;
    if (dp_cross && dc > 1) st.silent_busy = std::move(reduce_iv);
    st.grad_reduce_exposed = finish - st.schedule_end;
    synced = std::max(synced, finish);
    finishes[ru] = finish;
    if (r == 0) it.grad_reduce = reduce;
    // The optimizer step's passes on the rank's shard (step_phases.hpp, megatron_step_phases).
    const double shard = g.distributed_optimizer ? dense / dc + experts / expert_dp : dense + experts;
    MegatronStepShape step;
    // Under the distributed optimizer a rank's shard of each bucket cuts about 1/(d·c) of its
    // tensors and one more at the shard's edge.
    const auto pieces = [&](double tensors, double params, int ranks) {
      if (!g.distributed_optimizer || ranks <= 1) return tensors;
      return std::min(tensors, std::ceil(tensors / ranks) + std::max(1.0, std::ceil(params / bucket)));
    };
    step.optimizers.push_back({g.distributed_optimizer ? dense / dc : dense, pieces(dense_tensors, dense, dc)});
    if (moe) step.optimizers.push_back({g.distributed_optimizer ? experts / expert_dp : experts, pieces(expert_tensors, experts, expert_dp)});
    step.rank_parameters = dense + experts;
    step.buffers = static_cast<double>(V) * static_cast<double>(step.optimizers.size());
    step.word_bytes = d.w;
    step.grad_bytes = grad_word;
    step.mixed_precision = s.training.mixed_precision;
    step.fp16 = s.training.mixed_precision && g.fp16;
    step.distributed = g.distributed_optimizer;
    step.clip_grad = g.clip_grad;
    step.norms = (moe && !g.distributed_optimizer) ? 2 : 1;
    std::vector<StepPhase> phases = megatron_step_phases(step_timer, step);
    // Segments between the all-reduces: every rank of the group waits at each.
    std::vector<SimTime>& seg = segments[ru];
    seg.assign(1, SimTime::zero());
    if (r == 0) sync_order.clear();
    for (const StepPhase& p : phases) {
      seg.back() += p.duration;
      if (p.sync == StepSync::none) continue;
      seg.push_back(SimTime::zero());
      if (r == 0) sync_order.push_back(p.sync);
    }
    st.step = total_duration(phases) + found_inf_ar + norm_ar;
    if (r == 0 || st.step > it.stages[static_cast<std::size_t>(it.step_stage)].step) {
      it.step_stage = r;
      it.step_phases = std::move(phases);
    }
    // Under the distributed optimizer each data-parallel rank owns 1/(d·c) of its stage's state;
    // without it every one holds all of it (header).
    st.checkpoint_shard = rank_checkpoint_shard(s, sp);
    st.parameter_copies = dc;
    const SimTime gather = g.distributed_optimizer
                               ? dp_collective(dense * d.w, dc, 1, "the parameter all-gather") +
                                     dp_collective(experts * d.w, expert_dp, 1, "the parameter all-gather")
                               : SimTime::zero();
    const auto buckets = static_cast<std::int64_t>(std::max(1.0, std::ceil(st.parameters / bucket)));
    const SimTime exposed = g.overlap_param_gather ? SimTime::from_ns((gather.ns() + buckets - 1) / buckets) : gather;
    gather_exposed = std::max(gather_exposed, exposed);
    if (r == 0) it.param_gather = gather;
    // Memory (header).
    st.memory.parameters = st.parameters * d.w;
    st.memory.gradients = st.parameters * grad_word;
    const double states = sizeof(float) * 3.0;  // fp32 main parameter and two Adam moments
    st.memory.optimizer = g.distributed_optimizer ? states * shard : states * st.parameters;
    // Each forward of chunk c stores its layers' activations, plus the output layer's (last
    // virtual stage) or the kept stage output (deallocate_pipeline_outputs off), until its
    // backward: the rank's peak over its run order (pipeline_schedule.hpp, peak_held).
    const double act = activation_bytes(d);
    const double edge_out = output_layer_bytes(d), kept = g.deallocate_pipeline_outputs ? 0.0 : stage_output_bytes(d);
    std::vector<double> layers_of(static_cast<std::size_t>(V)), edge_of(static_cast<std::size_t>(V)), all_of(static_cast<std::size_t>(V));
    for (int c = 0; c < V; ++c) {
      const int k = c * P + r;
      const auto cu = static_cast<std::size_t>(c);
      layers_of[cu] = act * it.chunk_layers[static_cast<std::size_t>(k)];
      edge_of[cu] = k == chunks - 1 ? edge_out : kept + (k == 0 ? embedding_mask_bytes(d) : 0.0);
      all_of[cu] = layers_of[cu] + edge_of[cu];
    }
    // Both terms at the moment their sum peaks.
    const std::vector<int> held = peak_held(it.pipeline.ranks[ru], all_of);
    for (int c = 0; c < V; ++c) {
      const auto cu = static_cast<std::size_t>(c);
      st.memory.activations += held[cu] * layers_of[cu];
      st.memory.pipeline_edges += held[cu] * edge_of[cu];
    }
    if (r == 0) {
      const double dc_share = dc > 1 ? static_cast<double>(dc - 1) / dc : 0.0;
      it.dp_sent_bytes_per_step = dc_share * dense * grad_word * factor + (g.distributed_optimizer ? dc_share * dense * d.w : 0.0);
    }
  }
  it.param_gather_exposed = gather_exposed;
  // The step: each stage runs its phases up to the first all-reduce from its own reduce's end;
  // every all-reduce waits for the slowest rank of the group (all stages: the model-parallel
  // group spans them, and so does the world), the segments after it start together.
  {
    SimTime at;
    for (int r = 0; r < P; ++r) at = std::max(at, finishes[static_cast<std::size_t>(r)] + segments[static_cast<std::size_t>(r)][0]);
    for (std::size_t k = 0; k < sync_order.size(); ++k) {
      at += sync_order[k] == StepSync::found_inf ? found_inf_ar : norm_ar;
      SimTime longest;
      for (int r = 0; r < P; ++r) longest = std::max(longest, segments[static_cast<std::size_t>(r)][k + 1]);
      at += longest;
    }
    it.step_start = synced;
    it.step_end = at;
  }
  it.iteration_time = it.step_end + gather_exposed;

  // Network-busy intervals of one rank per stage (the NIC of its GPU) and the idle spans between,
  // in the two views of workload/profile.hpp. Profiler view (network_busy): the gradient reduce
  // is one busy window from its first bucket's launch to the last bucket's end. Network-silent
  // view (silent_busy): only the buckets' own intervals (reduce_buckets), so the gaps while a
  // bucket waits for its gradients count as silent. Everything else is the same in both views:
  // the model simulates no waits for peers or for the host.
  for (MegatronStage& st : it.stages) {
    const auto ru = static_cast<std::size_t>(st.rank);
    const auto both = [&st](PipelineSpan iv) {
      st.network_busy.push_back(iv);
      st.silent_busy.push_back(iv);
    };
    if (pp_cross)
      for (const PipelineSpan& iv : it.pipeline.transfers[ru]) both(iv);
    if (tp_cross || (cp_cross && g.cp > 1) || (ep_cross && d.E > 1))
      for (const TimedOp& op : it.pipeline.ranks[ru]) both({op.start, op.end});
    if (dp_cross && dc > 1) {
      const SimTime from = g.overlap_grad_reduce ? it.pipeline.last_backward_start[ru] : st.schedule_end;
      st.network_busy.push_back({from, st.schedule_end + st.grad_reduce_exposed});  // silent view: its buckets, above
      if (g.distributed_optimizer) {
        // Under the next step's forward when overlapped (its place in this step: the start).
        if (g.overlap_param_gather) both({SimTime::zero(), it.param_gather});
        else both({it.step_end, it.iteration_time});
      }
    }
    st.idle_spans = gaps(st.network_busy, it.iteration_time);
    st.silent_spans = gaps(st.silent_busy, it.iteration_time);
    st.bubble_fraction = it.pipeline.bubble_fraction(st.rank);
  }

  // Model FLOPs (Narayanan et al. §5.1, with grouped KV, gated and routed FFNs): 6 per matrix
  // parameter per token, plus attention's 12·s·h per token and layer (halved when causal).
  const double tokens = d.b * d.s * g.micro_batches * static_cast<double>(*g.dp);
  const LayerParameters whole = layer_parameters(d, false);
  const double active_expert = d.E > 1 ? whole.experts / d.E * d.k : 0.0;
  const double matrices = s.model.layers * (d.count.attention_matrices + (d.E > 1 ? active_expert : d.count.ffn())) + d.count.embedding;
  it.model_flops = tokens * (6 * matrices + 12 * s.model.layers * d.s * d.h * (d.causal ? 0.5 : 1.0));

  // The collectives as one rank of the first stage sees them.
  const std::int64_t mb = g.micro_batches;
  const std::int64_t first_layers = it.stages.front().layers;
  it.collectives.push_back(collective(d.sp ? "tensor all-gather / reduce-scatter" : "tensor all-reduce", tp_cross, g.tp, S,
                                      (d.sp ? 1 : 2) * tp_share * S, tp_call, 2 * (moe_tp ? 2 : tp_calls) * first_layers * mb));
  if (moe_tp)
    it.collectives.push_back(collective("tensor all-gather / RS (expert rows)", tp_cross, g.tp, S_e, tp_share * S_e,
                                        tp_call_e, 2 * 2 * first_layers * mb));
  if (P > 1) it.collectives.push_back(collective("pipeline send / receive", pp_cross, 2, p2p_bytes, p2p_bytes, it.p2p_forward, 2 * mb * V));
  if (g.cp > 1) it.collectives.push_back(collective("context ring step (K, V)", cp_cross, g.cp, kv_bytes, kv_bytes, cp_step, 3 * (g.cp - 1) * first_layers * mb));
  if (d.E > 1 && g.ep > 1) it.collectives.push_back(collective("expert all-to-all", ep_cross, g.ep, a2a_bytes, a2a_bytes * (g.ep - 1) / g.ep, a2a, 4 * first_layers * mb));
  // The step's scalar all-reduces, as the dense optimizer's group sees them (with experts the
  // expert optimizer's own call counts too).
  const std::int64_t stats_ranks = g.distributed_optimizer ? L.world() : L.model_group_size(false);
  const bool stats_cross = (g.distributed_optimizer ? L.machines() : L.model_group_machines(false)) > 1;
  const int stats_group = static_cast<int>(std::min<std::int64_t>(stats_ranks, std::numeric_limits<int>::max()));
  if (found_inf_ar > SimTime::zero())
    it.collectives.push_back(collective("found-inf all-reduce (step)", stats_cross, stats_group, 4, 8, ar_dense, moe ? 2 : 1));
  if (norm_ar > SimTime::zero())
    it.collectives.push_back(collective("gradient-norm all-reduce (step)", stats_cross, stats_group, 4, 8, ar_dense,
                                        moe && !g.distributed_optimizer ? 2 : 1));
  if (dc > 1) {
    const double grad_bytes = it.stages.front().parameters * grad_word;
    it.collectives.push_back(collective(g.distributed_optimizer ? "data reduce-scatter (gradients)" : "data all-reduce (gradients)",
                                        dp_cross, dc, grad_bytes, (g.distributed_optimizer ? 1 : 2) * grad_bytes * (dc - 1) / dc, it.grad_reduce, 1));
    if (g.distributed_optimizer)
      it.collectives.push_back(collective("data all-gather (parameters)", dp_cross, dc, it.stages.front().parameters * d.w,
                                          it.stages.front().parameters * d.w * (dc - 1) / dc, it.param_gather, 1));
  }
  return it;
}

double megatron_every_rank_load_bytes(const Scenario& s) {
  if (s.training.parallelism != Parallelism::megatron)
    throw ModelError("/training/parallelism", "the megatron storage model needs \"megatron\"");
  const MegatronSpec& g = s.training.megatron;
  const Dims d = dims_of(s);
  const std::vector<int> chunk_layers = virtual_stage_layers(s);
  // Every stage has t·c·d ranks (tp-cp-dp-pp order, megatron_layout.hpp), each reading its 16-bit
  // parameters and its checkpoint shard.
  const double ranks_per_stage = static_cast<double>(g.tp) * g.cp * static_cast<double>(*g.dp);
  double total = 0;
  for (int r = 0; r < g.pp; ++r) {
    const StageParameters sp = stage_parameters(d, chunk_layers, r, g.pp, g.virtual_stages);
    total += ranks_per_stage * ((sp.dense + sp.experts) * d.w + rank_checkpoint_shard(s, sp));
  }
  return total;
}

}  // namespace ckptsim
